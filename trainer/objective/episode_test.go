package objective_test

import (
	"errors"
	"math"
	"testing"

	"github.com/org/agentevolver/trainer/objective"
)

// TestEpisodeGRPOAdvantages checks the per_call group weighting (§1.9.8):
// statistics over episodes, not calls, and each episode's advantage
// shared by its calls.
func TestEpisodeGRPOAdvantages(t *testing.T) {
	backend := newBackend(t)
	// Task a: a won game of 1 call and a lost game of 3 calls. Task b: a
	// single game of 2 calls (a singleton group keeps s / (1 + eps)).
	rewards := [][]float32{{0, 1}, {0, 0}, {0, 0}, {0, 0}, {1, 0}, {0, 1}}
	mask := [][]float32{{1, 1}, {1, 1}, {1, 0}, {1, 1}, {1, 0}, {1, 1}}
	groups, numGroups := objective.GroupIndex([]string{"a", "a", "a", "a", "b", "b"})
	episodes, numEpisodes := objective.GroupIndex([]string{"a0", "a1", "a1", "a1", "b0", "b0"})
	s2 := float32(math.Sqrt2) / 2 // (1 - 0.5) / std{1, 0} with the sample std
	for _, tc := range []struct {
		name string
		cfg  objective.GRPOConfig
		want [][]float32 // per row, before the mask
	}{
		{"std", objective.GRPOConfig{}, [][]float32{{s2}, {-s2 / 3}, {-s2 / 3}, {-s2 / 3}, {0.5}, {0.5}}},
		{"no std", objective.GRPOConfig{NoStdNorm: true}, [][]float32{{0.5}, {-0.5 / 3}, {-0.5 / 3}, {-0.5 / 3}, {0.5}, {0.5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			adv, err := objective.ComputeEpisodeGRPOAdvantages(backend, rewards, mask, groups, numGroups, episodes, numEpisodes, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i, row := range adv {
				for j, v := range row {
					want := tc.want[i][0] * mask[i][j]
					if math.Abs(float64(v-want)) > 1e-5 {
						t.Fatalf("row %d col %d: %v, want %v", i, j, v, want)
					}
				}
			}
			// The won and the lost game weigh the same in total.
			won, lost := adv[0][0], adv[1][0]+adv[2][0]+adv[3][0]
			if math.Abs(float64(won+lost)) > 1e-5 {
				t.Fatalf("episode weights %v and %v do not cancel", won, lost)
			}
		})
	}
	// The reference's call weighting, for contrast: the lost game's three
	// calls pull the group mean to 0.25.
	callAdv, err := objective.ComputeGRPOAdvantages(backend, rewards, mask, groups, numGroups, objective.GRPOConfig{NoStdNorm: true})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(float64(callAdv[0][0]-0.75)) > 1e-5 {
		t.Fatalf("call-weighted advantage of the won game %v, want 0.75", callAdv[0][0])
	}

	// An episode split over groups or scores is an error.
	bad, n := objective.GroupIndex([]string{"a0", "a0", "a0", "a0", "b0", "b0"})
	if _, err := objective.ComputeEpisodeGRPOAdvantages(backend, rewards, mask, groups, numGroups, bad, n, objective.GRPOConfig{}); !errors.Is(err, objective.ErrShape) {
		t.Fatalf("mixed episode: %v", err)
	}
	if _, err := objective.ComputeEpisodeGRPOAdvantages(backend, rewards, mask, groups, numGroups, episodes[:2], numEpisodes, objective.GRPOConfig{}); !errors.Is(err, objective.ErrShape) {
		t.Fatalf("short episodes: %v", err)
	}
}
