package diplomacy_test

import (
	"math/rand/v2"
	"testing"

	"github.com/org/agentevolver/arena/diplomacy"
)

// midGame plays 10 phases of seeded random orders and returns the game
// at the next movement phase.
func midGame(b *testing.B) *diplomacy.Game {
	b.Helper()
	rng := rand.New(rand.NewPCG(5, 5))
	g := diplomacy.NewGame(diplomacy.Config{})
	for i := 0; i < 10 || g.Phase().Type != diplomacy.Movement; i++ {
		poss := g.PossibleOrders()
		for _, p := range diplomacy.Powers() {
			var texts []string
			for _, loc := range g.OrderableLocations(p) {
				texts = append(texts, poss[loc][rng.IntN(len(poss[loc]))].String())
			}
			_, _, _ = g.Submit(p, texts)
		}
		if _, err := g.Process(); err != nil {
			b.Fatal(err)
		}
	}
	return g
}

// BenchmarkResolve adjudicates one movement phase of a mid-game position
// with random orders for every unit.
func BenchmarkResolve(b *testing.B) {
	g := midGame(b)
	rng := rand.New(rand.NewPCG(6, 6))
	poss := g.PossibleOrders()
	orders := map[diplomacy.Power][]diplomacy.Order{}
	for _, p := range diplomacy.Powers() {
		for _, loc := range g.OrderableLocations(p) {
			orders[p] = append(orders[p], poss[loc][rng.IntN(len(poss[loc]))])
		}
	}
	m, units := g.Map(), g.Units()
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Resolve(units, orders); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPossibleOrders lists every legal order of a mid-game movement
// phase.
func BenchmarkPossibleOrders(b *testing.B) {
	g := midGame(b)
	b.ResetTimer()
	for b.Loop() {
		_ = g.PossibleOrders()
	}
}
