package diplomacy_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/org/agentevolver/arena/diplomacy"
)

func FuzzParsePhase(f *testing.F) {
	for _, s := range []string{"S1901M", "F1901R", "W1901A", "s2000m", "X", "S-1M"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := diplomacy.ParsePhase(s)
		if err != nil {
			if !errors.Is(err, diplomacy.ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			return
		}
		if !p.Valid() {
			t.Fatalf("accepted invalid phase %+v", p)
		}
		back, err := diplomacy.ParsePhase(p.String())
		if err != nil || back != p {
			t.Fatalf("%q -> %v -> %v, %v", s, p, back, err)
		}
	})
}

// FuzzParseMap checks that map data is validated without panics and that
// whatever is accepted has symmetric adjacencies.
func FuzzParseMap(f *testing.F) {
	f.Add("[provinces]\nAAA land - - - Alpha\nBBB coast sc FRANCE NC,SC Beta\n[army]\nAAA: BBB\nBBB: AAA\n[fleet]\nBBB/NC: BBB/SC\n[units]\nFRANCE: A BBB\n")
	f.Add("[provinces]\nAAA water - - - A\n")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<14 {
			return
		}
		m, err := diplomacy.ParseMap(s)
		if err != nil {
			if !errors.Is(err, diplomacy.ErrMap) {
				t.Fatalf("error %v does not wrap ErrMap", err)
			}
			return
		}
		for _, p := range m.Provinces() {
			for _, typ := range []diplomacy.UnitType{diplomacy.Army, diplomacy.Fleet} {
				for _, l := range append([]diplomacy.Loc{p.Code}, p.Coasts...) {
					for _, n := range m.Neighbours(typ, l) {
						if !m.Adjacent(typ, n, l) {
							t.Fatalf("%s %s-%s one way", typ, l, n)
						}
					}
				}
			}
		}
	})
}

// FuzzSubmit feeds free text, one order per line, to Submit: it never
// panics, keeps only legal orders and never two for one unit.
func FuzzSubmit(f *testing.F) {
	f.Add("A PAR - BUR\nA PAR H\nF BRE - MAO\nA MUN - BUR\nWAIVE")
	f.Add("F NTH C A LON - NWY\n\n(garbage)")
	f.Fuzz(func(t *testing.T, s string) {
		g := diplomacy.NewGame(diplomacy.Config{})
		acc, _, err := g.Submit(diplomacy.France, strings.Split(s, "\n"))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[diplomacy.Loc]bool{}
		for _, o := range acc {
			if err := g.Check(diplomacy.France, o); err != nil {
				t.Fatalf("accepted illegal %v: %v", o, err)
			}
			if seen[o.Loc.Province()] {
				t.Fatalf("two orders for %s", o.Loc)
			}
			seen[o.Loc.Province()] = true
		}
		if _, err := g.Process(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestRandomGames plays seeded games of uniformly random possible orders
// (the reference's orders for seats without an agent) and checks the
// invariants of every position: one unit per province, every unit on a
// location its type may hold, centres only on supply centres, units never
// appearing from nothing outside a winter.
func TestRandomGames(t *testing.T) {
	m := diplomacy.Standard()
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		g := diplomacy.NewGame(diplomacy.Config{MaxPhases: 80})
		for !g.Done() {
			before := len(g.Units()) + len(g.Dislodged())
			phase := g.Phase()
			poss := g.PossibleOrders()
			for _, p := range diplomacy.Powers() {
				var texts []string
				for _, loc := range g.OrderableLocations(p) {
					os := poss[loc]
					texts = append(texts, os[rng.IntN(len(os))].String())
				}
				if _, rej, err := g.Submit(p, texts); err != nil || (phase.Type == diplomacy.Movement && len(rej) > 0) {
					t.Fatalf("seed %d %s %s: %v %v", seed, phase, p, rej, err)
				}
			}
			if _, err := g.Process(); err != nil {
				t.Fatal(err)
			}
			seen := map[diplomacy.Loc]bool{}
			for _, u := range g.Units() {
				if seen[u.Loc.Province()] || !m.CanHold(u.Type, u.Loc) {
					t.Fatalf("seed %d after %s: bad unit %s", seed, phase, u)
				}
				seen[u.Loc.Province()] = true
			}
			after := len(g.Units()) + len(g.Dislodged())
			if phase.Type != diplomacy.Adjustments && after > before {
				t.Fatalf("seed %d %s: %d units became %d", seed, phase, before, after)
			}
			total := 0
			for _, p := range diplomacy.Powers() {
				total += len(g.Centers(p))
				if s := g.Score(p); s < 0 || s > 1 {
					t.Fatalf("score %v", s)
				}
			}
			if total > 34 {
				t.Fatalf("%d centres owned", total)
			}
		}
	}
}
