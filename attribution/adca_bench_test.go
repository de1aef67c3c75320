package attribution_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/org/agentevolver/attribution"
)

// benchBatch is B = 64 trajectories (8 tasks x 8 rollouts) of L = 1024
// response tokens with 4 to 16 steps each, every step an action followed
// by an observation.
func benchBatch() attribution.ADCABatch {
	const rows, width, rollouts = 64, 1024, 8
	rng := rand.New(rand.NewPCG(1, 2))
	var b attribution.ADCABatch
	for i := range rows {
		k := 4 + rng.IntN(13)
		span := width / k
		ids := make([]int, width)
		flags := make([]bool, k)
		for t := range ids {
			ids[t] = -1
			if s := t / span; s < k && t%span < span/2 {
				ids[t] = s
			}
		}
		for j := range flags {
			flags[j] = rng.IntN(2) == 0
		}
		rewards := make([]float32, width)
		rewards[width-1] = float32(rng.IntN(2))
		b.StepIDs = append(b.StepIDs, ids)
		b.Groups = append(b.Groups, i/rollouts)
		b.TokenLevelRewards = append(b.TokenLevelRewards, rewards)
		b.Flags = append(b.Flags, flags)
	}
	return b
}

func BenchmarkComputeADCA(b *testing.B) {
	backend := testBackend(b)
	batch := benchBatch()
	ctx := context.Background()
	for _, scheme := range []attribution.ADCAScheme{attribution.ADCADecouple, attribution.ADCAAllocation} {
		b.Run(string(scheme), func(b *testing.B) {
			cfg := attribution.ADCAConfig{Scheme: scheme}
			for b.Loop() {
				if _, err := attribution.ComputeADCA(ctx, backend, cfg, 0, batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
