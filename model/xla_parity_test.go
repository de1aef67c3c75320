//go:build xla

package model

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
)

// Tolerances of the XLA parity checks: the same weights and inputs on the
// XLA backend and on the pure-Go backend. Float32 log-probs may differ by
// summation order (and by TF32 matrix products where XLA picks them);
// bfloat16 compute rounds at points that XLA's fusions may move.
const (
	parityLogProbTolF32 = 2e-3 // max |Δ log-prob|, float32 compute
	parityLogProbTolBF  = 5e-2 // max |Δ log-prob|, bfloat16 compute
	parityGradRelTolF32 = 1e-2 // max over variables of ‖Δg‖/‖g‖, float32
	parityGradRelTolBF  = 5e-2 // the same, bfloat16 compute
)

// xlaParityBackends returns the XLA backend under test
// (AGENTEVOLVER_XLA_BACKEND, default xla:cpu) and the pure-Go reference,
// or skips the test when no PJRT plugin is found.
func xlaParityBackends(t *testing.T) (xla, ref Options) {
	t.Helper()
	config := os.Getenv("AGENTEVOLVER_XLA_BACKEND")
	if config == "" {
		config = "xla:cpu"
	}
	xb, err := NewBackend(config)
	if err != nil {
		t.Skipf("no XLA backend: %v", err)
	}
	t.Cleanup(xb.Finalize)
	gb, err := NewBackend(DefaultBackend)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gb.Finalize)
	return Options{Backend: xb}, Options{Backend: gb}
}

// parityRecord is one line of $AGENTEVOLVER_PARITY_OUT (JSON lines), which
// the GPU check's report collects.
type parityRecord struct {
	Package    string  `json:"package"`
	Check      string  `json:"check"`
	Backend    string  `json:"backend"`
	MaxDiff    float64 `json:"max_diff"`
	Tolerance  float64 `json:"tolerance"`
	Pass       bool    `json:"pass"`
	DiffMetric string  `json:"diff_metric"`
}

// recordParity checks diff <= tol and appends the result to
// $AGENTEVOLVER_PARITY_OUT when it is set.
func recordParity(t *testing.T, check, metric string, diff, tol float64) {
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
	line, err := json.Marshal(parityRecord{Package: "model", Check: check, Backend: os.Getenv("AGENTEVOLVER_XLA_BACKEND"),
		MaxDiff: diff, Tolerance: tol, Pass: pass, DiffMetric: metric})
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

// TestXLAParityLogProbs compares per-token log-probs and entropies of the
// same weights on the XLA backend and the pure-Go backend, in float32 and
// bfloat16 compute, on a padded batch.
func TestXLAParityLogProbs(t *testing.T) {
	xo, ro := xlaParityBackends(t)
	for _, tc := range []struct {
		name string
		dt   dtypes.DType
		tol  float64
	}{{"f32", dtypes.Float32, parityLogProbTolF32}, {"bf16", dtypes.BFloat16, parityLogProbTolBF}} {
		t.Run(tc.name, func(t *testing.T) {
			xo.ComputeDType, ro.ComputeDType = tc.dt, tc.dt
			cfg := tinyConfig()
			mx, mg := newTestModelOn(t, cfg, 7, xo), newTestModelOn(t, cfg, 7, ro)
			rng := rand.New(rand.NewPCG(7, 1))
			b := Batch{Tokens: Tokens{PromptLen: 4, InputIDs: [][]int{randomIDs(rng, 12, cfg.VocabSize), randomIDs(rng, 12, cfg.VocabSize), randomIDs(rng, 12, cfg.VocabSize)},
				AttentionMask: [][]int{{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0}}}}
			got, want := mustLogProbs(t, mx, b), mustLogProbs(t, mg, b)
			diff := 0.0
			for i := range want.LogProbs {
				for j := range want.LogProbs[i] {
					diff = max(diff, math.Abs(float64(got.LogProbs[i][j]-want.LogProbs[i][j])),
						math.Abs(float64(got.Entropy[i][j]-want.Entropy[i][j])))
				}
			}
			recordParity(t, "logprobs/"+tc.name, "max_abs_diff", diff, tc.tol)
		})
	}
}

// TestXLAParityGradients compares the trainer's gradient of the summed
// response log-probs for every variable on the XLA backend and the pure-Go
// backend: the largest relative L2 error over the variables.
func TestXLAParityGradients(t *testing.T) {
	xo, ro := xlaParityBackends(t)
	for _, tc := range []struct {
		name string
		dt   dtypes.DType
		tol  float64
	}{{"f32", dtypes.Float32, parityGradRelTolF32}, {"bf16", dtypes.BFloat16, parityGradRelTolBF}} {
		t.Run(tc.name, func(t *testing.T) {
			xo.ComputeDType, ro.ComputeDType = tc.dt, tc.dt
			cfg := tinyConfig()
			mx, mg := newTestModelOn(t, cfg, 41, xo), newTestModelOn(t, cfg, 41, ro)
			rng := rand.New(rand.NewPCG(4, 2))
			seqs := [][]int{randomIDs(rng, 9, cfg.VocabSize), randomIDs(rng, 9, cfg.VocabSize)}
			got, want := responseGradients(t, mx, seqs, 3), responseGradients(t, mg, seqs, 3)
			if len(got) != len(want) || len(want) == 0 {
				t.Fatalf("%d gradients, want %d", len(got), len(want))
			}
			worst := 0.0
			for i := range want {
				var d2, n2 float64
				for j := range want[i] {
					d := float64(got[i][j] - want[i][j])
					d2 += d * d
					n2 += float64(want[i][j]) * float64(want[i][j])
				}
				worst = max(worst, math.Sqrt(d2)/(math.Sqrt(n2)+1e-6))
			}
			recordParity(t, "gradients/"+tc.name, "max_rel_l2_error", worst, tc.tol)
		})
	}
}
