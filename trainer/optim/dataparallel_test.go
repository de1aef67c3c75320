package optim_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer/objective"
	"github.com/org/agentevolver/trainer/optim"
)

// TestDataParallelMatchesOneDevice trains the same policy on the same
// batches on one device and data parallel on two and four virtual devices
// (gofast:devices=N): the steps' metrics and the trained weights agree up
// to float32 summation order, the AdamW moments are sharded, and a
// micro-batch whose rows do not divide by the devices is padded without
// changing anything.
func TestDataParallelMatchesOneDevice(t *testing.T) {
	for _, tc := range []struct {
		name        string
		devices     int
		rows, micro int
		aggregation objective.AggMode
	}{
		{"2 devices, accumulated micro-batches", 2, 8, 4, objective.TokenMean},
		{"4 devices, one micro-batch", 4, 8, 0, objective.SeqMeanTokenSum},
		{"2 devices, padded rows", 2, 7, 3, objective.TokenMean},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A larger epsilon than AdamW's 1e-8: with it, a weight whose
			// gradient is about zero moves by a full step whose sign the
			// summation order of the devices decides.
			cfg := optim.UpdaterConfig{
				Optimizer:      optim.AdamWConfig{LearningRate: 0.02, Epsilon: 1e-3},
				MicroBatchSize: tc.micro,
				Loss:           objective.PolicyLossConfig{AggMode: tc.aggregation},
			}
			run := func(backendConfig string, devices int) ([]optim.StepMetrics, map[string][]float32, map[string][]float32) {
				c := cfg
				c.Devices = devices
				u, ref, vars := newTestUpdaterOn(t, backendConfig, c, 3)
				all := updateTimes(t, u, ref, randomBatch(tc.rows, testCols, testPL, testVocab, 5), 3)
				if devices > 1 {
					// Each device holds its rows of the weight and of its moments.
					for _, scope := range []string{"/bigram", "/trainer/adamw/m/bigram", "/trainer/adamw/v/bigram"} {
						v := vars.GetVariableByScopeAndName(scope, "w")
						if v == nil {
							t.Fatalf("no %s/w", scope)
						}
						dv, err := v.DistributedValue()
						if err != nil {
							t.Fatal(err)
						}
						if got := dv.ShardShape().Dimensions; dv.NumShards() != devices || got[0] != testVocab/devices || got[1] != testVocab {
							t.Errorf("%s/w: %d shards of %v, want %d of [%d %d]", scope, dv.NumShards(), got, devices, testVocab/devices, testVocab)
						}
					}
				}
				return all, variableValues(t, vars, "/bigram"), variableValues(t, vars, "/trainer/adamw/m")
			}
			wantM, wantW, wantMoments := run("gofast", 1)
			gotM, gotW, gotMoments := run("gofast:devices="+string(rune('0'+tc.devices)), tc.devices)
			if len(gotM) != len(wantM) {
				t.Fatalf("%d steps, want %d", len(gotM), len(wantM))
			}
			for i := range wantM {
				for _, p := range [][2]float64{{gotM[i].PGLoss, wantM[i].PGLoss}, {gotM[i].KLLoss, wantM[i].KLLoss},
					{gotM[i].GradNorm, wantM[i].GradNorm}, {gotM[i].Entropy, wantM[i].Entropy}, {gotM[i].PGClipFrac, wantM[i].PGClipFrac}} {
					if math.Abs(p[0]-p[1]) > 1e-5*(1+math.Abs(p[1])) {
						t.Errorf("step %d: metrics %+v, want %+v", i, gotM[i], wantM[i])
						break
					}
				}
			}
			compareValues(t, "weights", gotW, wantW)
			compareValues(t, "first moments", gotMoments, wantMoments)
		})
	}
}

func compareValues(t *testing.T, what string, got, want map[string][]float32) {
	t.Helper()
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("%s: %d variables, want %d", what, len(got), len(want))
	}
	for name, w := range want {
		g := got[name]
		if len(g) != len(w) {
			t.Fatalf("%s %s: %d values, want %d", what, name, len(g), len(w))
		}
		bad := 0
		for i := range w {
			if math.Abs(float64(g[i]-w[i])) > 1e-5*(1+math.Abs(float64(w[i]))) {
				bad++
				t.Logf("%s %s[%d] = %v, want %v", what, name, i, g[i], w[i])
			}
		}
		if bad > 0 {
			t.Errorf("%d of %d differ", bad, len(w))
		}
	}
}

func TestDataParallelErrors(t *testing.T) {
	backend := newBackend(t) // one device
	policy, vars := newBigram(testVocab, 3)
	_, err := optim.NewUpdater(backend, vars, policy, optim.UpdaterConfig{Devices: 2})
	if !errors.Is(err, optim.ErrConfig) || !strings.Contains(err.Error(), "devices=2") {
		t.Errorf("2 devices on a one-device backend: %v", err)
	}
	two, err := model.NewBackend("gofast:devices=2")
	if err != nil {
		t.Fatal(err)
	}
	defer two.Finalize()
	u, err := optim.NewUpdater(two, vars, policy, optim.UpdaterConfig{Devices: 2, NoKLLoss: true, Loss: objective.PolicyLossConfig{AggMode: objective.SeqMeanTokenMean}})
	if err != nil {
		t.Fatal(err)
	}
	b := randomBatch(3, testCols, testPL, testVocab, 5)
	fillLogProbs(t, u, nil, b)
	if _, err := u.Update(context.Background(), b); !errors.Is(err, optim.ErrConfig) {
		t.Errorf("seq-mean-token-mean with padding rows: %v", err)
	}
}

// updateTimes runs n updates of u on b, each after recomputing b's old
// log-probs (and reference log-probs with ref), and returns every step's
// metrics.
func updateTimes(t *testing.T, u *optim.Updater, ref *optim.Reference, b *optim.Batch, n int) []optim.StepMetrics {
	t.Helper()
	var all []optim.StepMetrics
	for range n {
		fillLogProbs(t, u, ref, b)
		ms, err := u.Update(context.Background(), b)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ms...)
	}
	return all
}
