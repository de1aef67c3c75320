package optim_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/org/agentevolver/trainer/objective"
	"github.com/org/agentevolver/trainer/optim"
)

// TestOnPolicyUpdateNeedsNoOldLogProbs runs the same updates twice: with
// old log-probs recomputed before each update, and on-policy, with none,
// where Update takes its own forward pass's. The steps, the weights and
// the old log-probs Update hands back agree, with accumulated
// micro-batches and over two devices with a padded micro-batch too.
func TestOnPolicyUpdateNeedsNoOldLogProbs(t *testing.T) {
	for _, tc := range []struct {
		name           string
		backend        string
		devices        int
		rows, micro    int
		aggregation    objective.AggMode
		experienceRows bool
	}{
		{"one micro-batch", "gofast", 0, 8, 0, objective.TokenMean, false},
		{"accumulated micro-batches", "gofast", 0, 7, 3, objective.SeqMeanTokenMean, true},
		{"2 devices, padded rows", "gofast:devices=2", 2, 7, 3, objective.TokenMean, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(onPolicy bool) (steps []optim.StepMetrics, old [][][]float32, weights map[string][]float32) {
				u, ref, vars := newTestUpdaterOn(t, tc.backend, optim.UpdaterConfig{
					Optimizer:      optim.AdamWConfig{LearningRate: 0.02, Epsilon: 1e-3},
					MicroBatchSize: tc.micro, Devices: tc.devices,
					Loss: objective.PolicyLossConfig{AggMode: tc.aggregation},
				}, 3)
				if !u.OnPolicy(tc.rows) {
					t.Fatalf("OnPolicy(%d) false for one epoch over the whole batch", tc.rows)
				}
				b := randomBatch(tc.rows, testCols, testPL, testVocab, 5)
				if tc.experienceRows {
					b.ExpMask = make([][]float32, tc.rows)
					for i := range b.ExpMask {
						b.ExpMask[i] = make([]float32, testCols-testPL)
						if i%2 == 1 {
							for j := range b.ExpMask[i] {
								b.ExpMask[i][j] = 1
							}
						}
					}
				}
				for range 3 {
					fillLogProbs(t, u, ref, b)
					if onPolicy {
						b.OldLogProbs = nil
					} else {
						// What the on-policy update must hand back.
						old = append(old, b.OldLogProbs)
					}
					ms, err := u.Update(context.Background(), b)
					if err != nil {
						t.Fatal(err)
					}
					if onPolicy {
						old = append(old, b.OldLogProbs)
					}
					steps = append(steps, ms...)
				}
				return steps, old, variableValues(t, vars, "/bigram")
			}
			wantSteps, wantOld, wantW := run(false)
			gotSteps, gotOld, gotW := run(true)
			if len(gotSteps) != len(wantSteps) {
				t.Fatalf("%d steps, want %d", len(gotSteps), len(wantSteps))
			}
			for i := range wantSteps {
				g, w := gotSteps[i], wantSteps[i]
				for _, m := range []struct {
					name      string
					got, want float64
				}{
					{"pg_loss", g.PGLoss, w.PGLoss}, {"ppo_kl", g.PPOKL, w.PPOKL}, {"clipfrac", g.PGClipFrac, w.PGClipFrac},
					{"kl_loss", g.KLLoss, w.KLLoss}, {"grad_norm", g.GradNorm, w.GradNorm}, {"off_pg_loss", g.OffPGLoss, w.OffPGLoss},
				} {
					if math.Abs(m.got-m.want) > 1e-5 {
						t.Errorf("step %d %s = %v, want %v", i, m.name, m.got, m.want)
					}
				}
				if g.PPOKL != 0 || g.PGClipFrac != 0 {
					t.Errorf("step %d on-policy: ppo_kl %v, clipfrac %v, want 0 (ratio 1)", i, g.PPOKL, g.PGClipFrac)
				}
			}
			for step := range wantOld {
				if len(gotOld[step]) != tc.rows {
					t.Fatalf("update %d handed back %d rows of old log-probs, want %d", step, len(gotOld[step]), tc.rows)
				}
				for i, row := range wantOld[step] {
					for j, v := range row {
						if d := math.Abs(float64(gotOld[step][i][j] - v)); d > 1e-5 {
							t.Fatalf("update %d old log-prob [%d][%d] = %v, want %v", step, i, j, gotOld[step][i][j], v)
						}
					}
				}
			}
			compareValues(t, "weights", gotW, wantW)
		})
	}
}

// TestOffPolicyUpdateNeedsOldLogProbs checks that an update of more than
// one step refuses a batch without old log-probs: after its first step the
// weights are no longer the ones that sampled the batch.
func TestOffPolicyUpdateNeedsOldLogProbs(t *testing.T) {
	for _, cfg := range []optim.UpdaterConfig{
		{PPOEpochs: 2},
		{MiniBatchSize: testRows / 2},
	} {
		u, _, _ := newTestUpdater(t, cfg, 1)
		if u.OnPolicy(testRows) {
			t.Errorf("%+v: OnPolicy(%d) true", cfg, testRows)
		}
		b := randomBatch(testRows, testCols, testPL, testVocab, 1)
		b.RefLogProbs = b.Advantages // any matrix of the right shape
		if _, err := u.Update(context.Background(), b); !errors.Is(err, optim.ErrShape) {
			t.Errorf("%+v: Update without OldLogProbs: %v, want ErrShape", cfg, err)
		}
	}
}
