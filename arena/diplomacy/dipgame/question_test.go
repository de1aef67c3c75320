package dipgame_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
)

// firstRequests plays one phase and returns the first negotiation and
// orders requests France was sent.
func firstRequests(t testing.TB) (neg, orders []agentevolver.Message) {
	fr := &scripted{neg: "[]"}
	models := greedySeats()
	models[diplomacy.France-1] = fr
	if _, err := dipgame.Play(context.Background(), dipgame.Config{MaxPhases: 1, NegotiationRounds: 1}, 1, models, nil); err != nil {
		t.Fatal(err)
	}
	return fr.asked[0], fr.asked[1]
}

func TestReadQuestion(t *testing.T) {
	neg, orders := firstRequests(t)
	m := diplomacy.Standard()
	q, err := dipgame.ReadQuestion(m, neg)
	if err != nil || !q.Negotiation || q.Power != diplomacy.France || q.Phase.String() != "S1901M" {
		t.Fatalf("%+v %v", q, err)
	}
	q, err = dipgame.ReadQuestion(m, orders)
	if err != nil || q.Negotiation {
		t.Fatalf("%+v %v", q, err)
	}
	g := diplomacy.NewGame(diplomacy.Config{})
	if len(q.Units) != 22 || len(q.Centers) != 22 || len(q.Possible) != 3 {
		t.Errorf("%d units, %d centres, %d locations", len(q.Units), len(q.Centers), len(q.Possible))
	}
	for l, os := range q.Possible {
		want := g.PossibleOrders()[l]
		if len(os) != len(want) {
			t.Errorf("%s: %d orders, want %d", l, len(os), len(want))
		}
	}
	if _, err := dipgame.ReadQuestion(m, []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "hello"}}); !errors.Is(err, dipgame.ErrNoQuestion) {
		t.Errorf("not a question: %v", err)
	}
}

func FuzzReadQuestion(f *testing.F) {
	_, orders := firstRequests(f)
	f.Add(orders[1].Content)
	f.Add("# Board\nPower: FRANCE\nCurrent phase: S1901M\nUnits:\n  FRANCE: A PAR, Q X\nSubmit your orders")
	f.Add("# Board\nPower: FRANCE\nCurrent phase: W1901A\nPossible orders:\n  PAR: [A PAR B, WAIVE]\nSubmit your orders")
	m := diplomacy.Standard()
	f.Fuzz(func(t *testing.T, text string) {
		msgs := []agentevolver.Message{{Role: agentevolver.RoleSystem, Content: "x"}, {Role: agentevolver.RoleUser, Content: text}}
		q, err := dipgame.ReadQuestion(m, msgs)
		if err != nil {
			if !errors.Is(err, dipgame.ErrNoQuestion) {
				t.Fatalf("error %v", err)
			}
			return
		}
		if !q.Power.Valid() || !q.Phase.Valid() {
			t.Fatalf("question %+v", q)
		}
		// The bots answer whatever parses.
		out := dipgame.GreedyOrders(m, q)
		if !q.Negotiation && len(out) > len(q.Possible)+1 && !strings.Contains(text, "WAIVE") {
			t.Fatalf("%d orders for %d locations", len(out), len(q.Possible))
		}
	})
}
