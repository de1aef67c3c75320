//go:build xla

package optim_test

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer/objective"
	"github.com/org/agentevolver/trainer/optim"
)

// Tolerances of TestXLAParityUpdate: three RL updates of the same tiny
// transformer on the XLA backend and on the pure-Go backend.
const (
	parityLossTol   = 1e-3 // |Δ pg_loss| and |Δ kl_loss| per step, relative to 1+|loss|
	parityNormTol   = 1e-2 // |Δ grad_norm| relative to the norm
	parityWeightTol = 1e-3 // max |Δ weight| after the three steps (lr 1e-3)
)

// TestXLAParityUpdate runs three updates (PPO clip, k3 KL to a reference,
// gradient clipping, AdamW) of the same model on the same batch on the XLA
// backend (AGENTEVOLVER_XLA_BACKEND, default xla:cpu) and on the pure-Go
// backend, and compares the steps' losses and gradient norms and the
// trained weights. It is skipped without a PJRT plugin.
func TestXLAParityUpdate(t *testing.T) {
	config := os.Getenv("AGENTEVOLVER_XLA_BACKEND")
	if config == "" {
		config = "xla:cpu"
	}
	xb, err := model.NewBackend(config)
	if err != nil {
		t.Skipf("no XLA backend: %v", err)
	}
	defer xb.Finalize()
	gb, err := model.NewBackend(model.DefaultBackend)
	if err != nil {
		t.Fatal(err)
	}
	defer gb.Finalize()
	cfg := model.Config{VocabSize: testVocab, HiddenSize: 16, NumHiddenLayers: 2, NumAttentionHeads: 4,
		NumKeyValueHeads: 2, IntermediateSize: 24, InitializerRange: 0.3}
	run := func(b *optim.Batch, opts model.Options) ([]optim.StepMetrics, map[string][]float32) {
		m, err := model.New(cfg, 5, opts)
		if err != nil {
			t.Fatal(err)
		}
		policy := optim.ModelPolicy(m)
		u, err := optim.NewUpdater(opts.Backend, m.Context(), policy, optim.UpdaterConfig{
			Optimizer: optim.AdamWConfig{LearningRate: 1e-3, WeightDecay: 0.01},
			Clip:      optim.ClipConfig{MaxGradNorm: 1.0},
			Loss:      objective.PolicyLossConfig{ClipLow: 0.2, ClipHigh: 0.28, DualClip: 3.0, AggMode: objective.TokenMean},
			KLType:    objective.KLLowVar, KLCoef: 0.001,
		})
		if err != nil {
			t.Fatal(err)
		}
		ref, err := optim.NewReference(opts.Backend, m.Context(), policy, optim.ReferenceConfig{})
		if err != nil {
			t.Fatal(err)
		}
		ms := updateTimes(t, u, ref, b, 3)
		return ms, variableValues(t, m.Context(), "/")
	}
	got, gotW := run(randomBatch(testRows, testCols, testPL, testVocab, 9), model.Options{Backend: xb})
	want, wantW := run(randomBatch(testRows, testCols, testPL, testVocab, 9), model.Options{Backend: gb})
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("%d steps, want %d", len(got), len(want))
	}
	lossDiff, normDiff := 0.0, 0.0
	for i := range want {
		lossDiff = max(lossDiff, math.Abs(got[i].PGLoss-want[i].PGLoss)/(1+math.Abs(want[i].PGLoss)),
			math.Abs(got[i].KLLoss-want[i].KLLoss)/(1+math.Abs(want[i].KLLoss)))
		normDiff = max(normDiff, math.Abs(got[i].GradNorm-want[i].GradNorm)/(want[i].GradNorm+1e-6))
	}
	weightDiff := 0.0
	for name, w := range wantW {
		g, ok := gotW[name]
		if !ok || len(g) != len(w) {
			t.Fatalf("variable %s missing or resized on %s", name, config)
		}
		for j := range w {
			weightDiff = max(weightDiff, math.Abs(float64(g[j]-w[j])))
		}
	}
	recordUpdateParity(t, config, "update/pg_kl_loss", "max_rel_diff", lossDiff, parityLossTol)
	recordUpdateParity(t, config, "update/grad_norm", "max_rel_diff", normDiff, parityNormTol)
	recordUpdateParity(t, config, "update/weights", "max_abs_diff", weightDiff, parityWeightTol)
}

// recordUpdateParity checks diff <= tol and appends a JSON line to
// $AGENTEVOLVER_PARITY_OUT when it is set (the GPU check collects them).
func recordUpdateParity(t *testing.T, backend, check, metric string, diff, tol float64) {
	t.Helper()
	pass := diff <= tol && !math.IsNaN(diff)
	t.Logf("parity %s: %s %.3g (tolerance %.3g)", check, metric, diff, tol)
	if !pass {
		t.Errorf("%s: %s %.3g exceeds %.3g", check, metric, diff, tol)
	}
	path := os.Getenv("AGENTEVOLVER_PARITY_OUT")
	if path == "" {
		return
	}
	line, err := json.Marshal(struct {
		Package    string  `json:"package"`
		Check      string  `json:"check"`
		Backend    string  `json:"backend"`
		MaxDiff    float64 `json:"max_diff"`
		Tolerance  float64 `json:"tolerance"`
		Pass       bool    `json:"pass"`
		DiffMetric string  `json:"diff_metric"`
	}{"trainer/optim", check, backend, diff, tol, pass, metric})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
}
