package diplomacy_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/org/agentevolver/arena/diplomacy"
)

func TestSubmit(t *testing.T) {
	g := diplomacy.NewGame(diplomacy.Config{})
	acc, rej, err := g.Submit(diplomacy.France, []string{
		"A PAR - BUR", "A PAR H", "F BRE - MAO", "A MUN - BUR", "gibberish", "A MAR - PAR",
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range acc {
		got = append(got, o.String())
	}
	if strings.Join(got, "; ") != "A PAR - BUR; F BRE - MAO" {
		t.Fatalf("accepted %v", got)
	}
	if len(rej) != 4 {
		t.Fatalf("rejected %+v", rej)
	}
	for i, want := range []string{"second order", "belongs to GERMANY", "syntax error", ""} {
		if !strings.Contains(rej[i].Reason, want) {
			t.Errorf("rejection %d: %q, want %q", i, rej[i].Reason, want)
		}
	}
	if os := g.Orders(diplomacy.France); len(os) != 2 {
		t.Fatalf("orders kept: %v", os)
	}
	if _, _, err := g.Submit(diplomacy.NoPower, nil); !errors.Is(err, diplomacy.ErrState) {
		t.Fatalf("NoPower: %v", err)
	}
	many := make([]string, diplomacy.MaxSubmitOrders+3)
	for i := range many {
		many[i] = "A PAR H"
	}
	if _, rej, _ := g.Submit(diplomacy.France, many); len(rej) != len(many)-1 {
		t.Fatalf("%d rejections of %d", len(rej), len(many))
	}
}

func TestBoardText(t *testing.T) {
	g := diplomacy.NewGame(diplomacy.Config{})
	txt := g.BoardText(diplomacy.England)
	for _, want := range []string{
		"Power: ENGLAND\n", "Current phase: S1901M\n", "Home centres: EDI, LON, LVP\n",
		"  RUSSIA: A MOS, F SEV, F STP/SC, A WAR\n", "  TURKEY (3): ANK, CON, SMY\n",
		"  unowned (12): BEL, BUL, DEN, GRE, HOL, NWY, POR, RUM, SER, SPA, SWE, TUN\n",
		"  LON: [F LON - ENG, F LON - NTH, F LON - WAL, F LON - YOR, F LON H, F LON S A LVP - WAL, F LON S A LVP - YOR, F LON S F BRE - ENG, F LON S F EDI - NTH, F LON S F EDI - YOR]\n",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("missing %q in\n%s", want, txt)
		}
	}
	if strings.Contains(g.BoardText(diplomacy.NoPower), "Possible orders") {
		t.Error("an observer sees possible orders")
	}
}
