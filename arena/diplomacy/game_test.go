package diplomacy_test

import (
	"errors"
	"testing"

	"github.com/org/agentevolver/arena/diplomacy"
)

func mustOrders(t *testing.T, ss ...string) []diplomacy.Order {
	t.Helper()
	var out []diplomacy.Order
	for _, s := range ss {
		o, err := diplomacy.ParseOrder(diplomacy.Standard(), s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

func process(t *testing.T, g *diplomacy.Game) *diplomacy.PhaseRecord {
	t.Helper()
	rec, err := g.Process()
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestNewGame(t *testing.T) {
	g := diplomacy.NewGame(diplomacy.Config{})
	if g.Phase().String() != "S1901M" || len(g.Units()) != 22 || g.Done() {
		t.Fatalf("start: %v %d units", g.Phase(), len(g.Units()))
	}
	for _, p := range diplomacy.Powers() {
		n := len(g.Centers(p))
		if g.Score(p) != float64(n)/18 || g.Eliminated(p) {
			t.Errorf("%s: score %v with %d centres", p, g.Score(p), n)
		}
	}
	if len(g.OrderableLocations(diplomacy.Russia)) != 4 {
		t.Errorf("Russia orderable: %v", g.OrderableLocations(diplomacy.Russia))
	}
}

// TestPhaseSequence: with no orders nothing changes, the winter with
// nothing to adjust is skipped; an occupied neutral centre is captured
// in the fall and gives a build.
func TestPhaseSequence(t *testing.T) {
	g := diplomacy.NewGame(diplomacy.Config{})
	process(t, g)
	if g.Phase().String() != "F1901M" {
		t.Fatalf("after S1901M: %v", g.Phase())
	}
	process(t, g)
	if g.Phase().String() != "S1902M" {
		t.Fatalf("an empty winter is skipped: %v", g.Phase())
	}
	// France takes Spain and Portugal over a year.
	if err := g.SetOrders(diplomacy.France, mustOrders(t, "A MAR - SPA", "F BRE - MAO")); err != nil {
		t.Fatal(err)
	}
	process(t, g)
	if err := g.SetOrders(diplomacy.France, mustOrders(t, "F MAO - POR")); err != nil {
		t.Fatal(err)
	}
	process(t, g)
	if g.Phase().String() != "W1902A" {
		t.Fatalf("want W1902A, got %v", g.Phase())
	}
	if n := len(g.Centers(diplomacy.France)); n != 5 {
		t.Fatalf("France owns %d centres, want 5", n)
	}
	poss := g.PossibleOrders()
	if len(poss["MAR"]) != 3 || len(poss["BRE"]) != 3 { // A and F builds, WAIVE
		t.Fatalf("builds: MAR %v BRE %v", poss["MAR"], poss["BRE"])
	}
	if err := g.SetOrders(diplomacy.France, mustOrders(t, "F BRE B", "A MAR B", "A PAR B")); err == nil {
		t.Fatal("a build in occupied Paris must be reported")
	}
	rec := process(t, g)
	if g.Phase().String() != "S1903M" || len(g.Units()) != 24 {
		t.Fatalf("after builds: %v, %d units", g.Phase(), len(g.Units()))
	}
	if len(rec.Results) != 3 || rec.Results[2].Result != diplomacy.Void {
		t.Fatalf("build results: %+v", rec.Results)
	}
	if len(g.History()) != 5 {
		t.Fatalf("history: %d phases", len(g.History()))
	}
}

// TestRetreatPhase: a dislodged unit gives a retreats phase named after
// the movement phase; a retreat not ordered disbands the unit.
func TestRetreatPhase(t *testing.T) {
	m := diplomacy.Standard()
	pos := diplomacy.Position{Phase: diplomacy.FirstPhase, Units: []diplomacy.Unit{
		{Type: diplomacy.Army, Power: diplomacy.Germany, Loc: "MUN"},
		{Type: diplomacy.Army, Power: diplomacy.France, Loc: "BUR"},
		{Type: diplomacy.Army, Power: diplomacy.France, Loc: "RUH"},
	}}
	g, err := diplomacy.NewGameAt(m, pos, diplomacy.Config{})
	if err != nil {
		t.Fatal(err)
	}
	_ = g.SetOrders(diplomacy.France, mustOrders(t, "A BUR - MUN", "A RUH S A BUR - MUN"))
	rec := process(t, g)
	if g.Phase().String() != "S1901R" || len(rec.Dislodged) != 1 {
		t.Fatalf("phase %v, dislodged %v", g.Phase(), rec.Dislodged)
	}
	d := g.Dislodged()[0]
	for _, r := range d.Retreats {
		if r == "BUR" {
			t.Fatal("may not retreat to the attacker's province")
		}
	}
	if err := g.SetOrders(diplomacy.Germany, mustOrders(t, "A MUN R BUR")); !errors.Is(err, diplomacy.ErrIllegal) {
		t.Fatalf("retreat to BUR: %v", err)
	}
	_ = g.SetOrders(diplomacy.Germany, mustOrders(t, "A MUN R BOH"))
	process(t, g)
	if g.Phase().String() != "F1901M" {
		t.Fatalf("after retreats: %v", g.Phase())
	}
	found := false
	for _, u := range g.Units() {
		found = found || (u.Loc == "BOH" && u.Power == diplomacy.Germany)
	}
	if !found {
		t.Fatalf("German army did not retreat: %v", g.Units())
	}
}

func TestVictoryAndScore(t *testing.T) {
	m := diplomacy.Standard()
	pos := diplomacy.Position{Phase: diplomacy.Phase{Season: diplomacy.Fall, Year: 1910, Type: diplomacy.Movement},
		Centers: map[diplomacy.Loc]diplomacy.Power{}}
	n := 0
	for _, c := range m.SupplyCenters() {
		if c == "TUN" || c == "SMY" || c == "ANK" || c == "CON" || c == "SEV" {
			continue
		}
		if n < 17 {
			pos.Centers[c] = diplomacy.France
			n++
		} else {
			pos.Centers[c] = diplomacy.Turkey
		}
	}
	pos.Centers["SMY"], pos.Centers["ANK"], pos.Centers["CON"] = diplomacy.Turkey, diplomacy.Turkey, diplomacy.Turkey
	pos.Units = []diplomacy.Unit{
		{Type: diplomacy.Fleet, Power: diplomacy.France, Loc: "NAF"},
		{Type: diplomacy.Army, Power: diplomacy.Turkey, Loc: "CON"},
	}
	g, err := diplomacy.NewGameAt(m, pos, diplomacy.Config{})
	if err != nil {
		t.Fatal(err)
	}
	_ = g.SetOrders(diplomacy.France, mustOrders(t, "F NAF - TUN"))
	process(t, g)
	if !g.Done() || g.Winner() != diplomacy.France {
		t.Fatalf("done %v winner %v (France %d centres)", g.Done(), g.Winner(), len(g.Centers(diplomacy.France)))
	}
	if g.Score(diplomacy.France) != 1 || g.Score(diplomacy.Germany) != 0 || !g.Eliminated(diplomacy.Germany) {
		t.Fatalf("scores: France %v Germany %v", g.Score(diplomacy.France), g.Score(diplomacy.Germany))
	}
	if _, err := g.Process(); !errors.Is(err, diplomacy.ErrState) {
		t.Fatalf("Process after the end: %v", err)
	}
	if err := g.SetOrders(diplomacy.France, nil); !errors.Is(err, diplomacy.ErrState) {
		t.Fatalf("SetOrders after the end: %v", err)
	}
}

func TestMaxPhases(t *testing.T) {
	g := diplomacy.NewGame(diplomacy.Config{MaxPhases: 3})
	for i := 0; i < 3; i++ {
		process(t, g)
	}
	if !g.Done() || g.Winner() != diplomacy.NoPower || len(g.History()) != 3 {
		t.Fatalf("done %v after %d phases", g.Done(), len(g.History()))
	}
}

func TestSetOrdersReportsIllegal(t *testing.T) {
	g := diplomacy.NewGame(diplomacy.Config{})
	err := g.SetOrders(diplomacy.Germany, mustOrders(t, "F LON - NTH", "A MUN - BUR", "F KIE - MUN"))
	if !errors.Is(err, diplomacy.ErrIllegal) {
		t.Fatalf("got %v", err)
	}
	rec := process(t, g)
	for _, r := range rec.Results {
		if r.Unit.Loc == "KIE" && r.Result != diplomacy.Void {
			t.Errorf("F KIE - MUN: %v", r.Result)
		}
		if r.Unit.Loc == "LON" && r.Result != 0 {
			t.Errorf("England's fleet ordered by Germany: %v", r.Result)
		}
	}
	if _, err := diplomacy.NewGameAt(diplomacy.Standard(), diplomacy.Position{Phase: diplomacy.FirstPhase,
		Units: []diplomacy.Unit{{Type: diplomacy.Fleet, Power: diplomacy.France, Loc: "PAR"}}}, diplomacy.Config{}); !errors.Is(err, diplomacy.ErrState) {
		t.Fatalf("fleet in Paris: %v", err)
	}
}
