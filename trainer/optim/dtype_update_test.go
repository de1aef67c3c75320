package optim_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer/optim"
)

// newDTypeUpdater returns a model computing in dt over the given shape,
// its updater and reference, and a batch with old and reference log-probs.
func newDTypeUpdater(t testing.TB, cfg model.Config, dt dtypes.DType, rows, cols, promptLen int, lr float64) (*model.Model, *optim.Updater, *optim.Batch) {
	t.Helper()
	backend := newBackend(t)
	m, err := model.New(cfg, 1, model.Options{Backend: backend, ComputeDType: dt})
	if err != nil {
		t.Fatal(err)
	}
	policy := optim.ModelPolicy(m)
	u, err := optim.NewUpdater(backend, m.Context(), policy, optim.UpdaterConfig{
		Optimizer: optim.AdamWConfig{LearningRate: lr}, NoEntropyMetric: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := optim.NewReference(backend, m.Context(), policy, optim.ReferenceConfig{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	batch := randomBatch(rows, cols, promptLen, cfg.VocabSize, 1)
	for i := range batch.LossMask {
		for j := range batch.LossMask[i] {
			batch.LossMask[i][j] = 1
			batch.Advantages[i][j] = float32(rng.NormFloat64())
		}
	}
	fillLogProbs(t, u, ref, batch)
	return m, u, batch
}

// TestBFloat16UpdateLowersLoss trains the model in mixed precision: the
// objective falls, and every floating-point variable (weights, AdamW
// moments) stays float32.
func TestBFloat16UpdateLowersLoss(t *testing.T) {
	cfg := model.Config{VocabSize: 32, HiddenSize: 16, NumHiddenLayers: 1, NumAttentionHeads: 2, NumKeyValueHeads: 1, IntermediateSize: 32}
	m, u, b := newDTypeUpdater(t, cfg, dtypes.BFloat16, 4, 12, 5, 3e-3)
	before := len(collectDTypes(m))
	var objective []float64
	for range 5 {
		ms, err := u.Update(context.Background(), b)
		if err != nil {
			t.Fatal(err)
		}
		objective = append(objective, ms[0].PGLoss+0.001*ms[0].KLLoss)
	}
	t.Logf("objective per step: %v", objective)
	if !(objective[4] < objective[0]-0.01) {
		t.Errorf("objective did not fall: %v", objective)
	}
	vars := collectDTypes(m)
	if len(vars) <= before {
		t.Fatalf("%d variables after the updates, %d before: no optimiser state in the context", len(vars), before)
	}
	for name, dt := range vars {
		if dt.IsFloat() && dt != dtypes.Float32 {
			t.Errorf("variable %s is %s, want float32", name, dt)
		}
	}
}

// collectDTypes returns the dtype of every variable of m's context (its
// weights and, after an update, the optimiser's state).
func collectDTypes(m *model.Model) map[string]dtypes.DType {
	out := map[string]dtypes.DType{}
	for v := range m.Context().IterVariables() {
		out[v.ScopeAndName()] = v.DType()
	}
	return out
}

// BenchmarkUpdateTinyDType compares the optimiser step of the tiny bench
// shape (as BenchmarkUpdateTiny) in float32 and in bfloat16 mixed
// precision. On the pure-Go backend bfloat16 runs upstream simplego's
// generic kernels instead of the SIMD float32 ones, so expect it slower
// there; it is meant for accelerators.
func BenchmarkUpdateTinyDType(b *testing.B) {
	cfg := model.Config{VocabSize: 512, HiddenSize: 64, NumHiddenLayers: 2, NumAttentionHeads: 4, NumKeyValueHeads: 2,
		IntermediateSize: 192, RMSNormEps: 1e-6, RopeTheta: 10000}
	for _, dt := range []dtypes.DType{dtypes.Float32, dtypes.BFloat16} {
		b.Run(dt.String(), func(b *testing.B) {
			_, u, batch := newDTypeUpdater(b, cfg, dt, 8, 128, 64, 1e-4)
			ctx := context.Background()
			if _, err := u.Update(ctx, batch); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := u.Update(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
