package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// bf16Tolerance bounds the difference, in nats, between bfloat16 and
// float32 log-probs of the tiny random test models (bfloat16 keeps 8
// significant bits: a relative error of 2^-9 per rounding).
const bf16Tolerance = 5e-2

// mixedTestStd is the weight scale of the mixed-precision tests' models.
const mixedTestStd = 0.15

// newMixedTestModel is newTestModel with weights of standard deviation
// std: every weight random (biases and norm scales near one included),
// but at a scale where a two-layer model is not chaotic. The 0.3 of
// newTestModel makes rounding the weights alone to bfloat16 move
// log-probs by 0.05 nats.
func newMixedTestModel(t testing.TB, cfg Config, seed int64, std float64) *Model {
	t.Helper()
	m, err := New(cfg, seed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 99))
	for v := range m.Context().IterVariables() {
		data := make([]float32, v.Shape().Size())
		for i := range data {
			data[i] = float32(rng.NormFloat64() * std)
			if v.Name() == "weight" && v.Shape().Rank() == 1 {
				data[i] += 1 // norm scales near one
			}
		}
		if err := v.SetValue(tensors.FromFlatDataAndDimensions(data, v.Shape().Dimensions...)); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// withComputeDType returns a model with m's configuration and weights
// that computes in dt.
func withComputeDType(t testing.TB, m *Model, dt dtypes.DType) *Model {
	t.Helper()
	out, err := New(m.Config(), 1, Options{Backend: m.Backend(), ComputeDType: dt})
	if err != nil {
		t.Fatal(err)
	}
	if lora, ok := m.LoRA(); ok {
		if err := out.AddLoRA(lora, 1); err != nil {
			t.Fatal(err)
		}
	}
	for v := range m.Context().IterVariables() {
		value, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		clone, err := value.LocalClone()
		if err != nil {
			t.Fatal(err)
		}
		if err := out.Context().GetVariableByScopeAndName(v.Scope(), v.Name()).SetValue(clone); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestParseComputeDType(t *testing.T) {
	for in, want := range map[string]dtypes.DType{
		"": dtypes.Float32, "float32": dtypes.Float32, "Float32": dtypes.Float32,
		"bfloat16": dtypes.BFloat16, "bf16": dtypes.BFloat16, " BF16 ": dtypes.BFloat16,
	} {
		got, err := ParseComputeDType(in)
		if err != nil || got != want {
			t.Errorf("ParseComputeDType(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"float16", "fp8", "f64", "bfloat"} {
		if _, err := ParseComputeDType(in); !errors.Is(err, ErrBadConfig) {
			t.Errorf("ParseComputeDType(%q) error %v, want ErrBadConfig", in, err)
		}
	}
	if _, err := New(tinyConfig(), 1, Options{ComputeDType: dtypes.Float16}); !errors.Is(err, ErrBadConfig) {
		t.Errorf("New with float16 compute: %v, want ErrBadConfig", err)
	}
}

func TestComputeDTypeDefault(t *testing.T) {
	m, err := New(tinyConfig(), 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.ComputeDType(); got != dtypes.Float32 {
		t.Errorf("default ComputeDType = %s, want float32", got)
	}
}

// TestCheckComputeDTypeBackends documents which backends run bfloat16:
// both pure-Go ones do (simplego's bfloat16 kernels, which accumulate
// matrix products in float32).
func TestCheckComputeDTypeBackends(t *testing.T) {
	for _, name := range []string{DefaultBackend, "go:ops_sequential"} {
		backend, err := NewBackend(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckComputeDType(backend, dtypes.BFloat16); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if err := CheckComputeDType(backend, dtypes.Float32); err != nil {
			t.Errorf("%s float32: %v", name, err)
		}
	}
}

func TestCheckComputeDTypeNamesFailingOp(t *testing.T) {
	backend, err := NewBackend("")
	if err != nil {
		t.Fatal(err)
	}
	failing := append(dtypeProbes(), dtypeProbe{"FancyOp", func(x, _ *graph.Node, dt dtypes.DType) *graph.Node {
		panic(errors.New("op FancyOp: dtype not supported"))
	}})
	err = checkComputeDType(backend, dtypes.BFloat16, failing)
	if !errors.Is(err, ErrUnsupportedDType) {
		t.Fatalf("error %v, want ErrUnsupportedDType", err)
	}
	for _, want := range []string{"FancyOp", backend.Name(), "BFloat16", "dtype not supported"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	// A graph that cannot be built (mismatched dtypes) fails the same way.
	mismatch := []dtypeProbe{{"Add", func(x, _ *graph.Node, dt dtypes.DType) *graph.Node {
		return graph.Add(graph.ConvertDType(x, dt), x)
	}}}
	if err := checkComputeDType(backend, dtypes.BFloat16, mismatch); !errors.Is(err, ErrUnsupportedDType) || !strings.Contains(err.Error(), "Add") {
		t.Errorf("mismatched probe: %v", err)
	}
}

func TestMixedLogProbsCloseToFloat32(t *testing.T) {
	m32 := newMixedTestModel(t, tinyConfig(), 3, mixedTestStd)
	m16 := withComputeDType(t, m32, dtypes.BFloat16)
	if m16.ComputeDType() != dtypes.BFloat16 {
		t.Fatalf("ComputeDType = %s", m16.ComputeDType())
	}
	rng := rand.New(rand.NewPCG(3, 4))
	batch := Batch{Tokens: Tokens{PromptLen: 5}}
	for range 3 {
		batch.InputIDs = append(batch.InputIDs, randomIDs(rng, 12, tinyConfig().VocabSize))
	}
	batch.AttentionMask = [][]int{
		{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0},
		{0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0},
	}
	for _, temperature := range []float64{1, 0.7} {
		batch.Temperature = temperature
		want, got := mustLogProbs(t, m32, batch), mustLogProbs(t, m16, batch)
		maxDiff, maxEntDiff, differ := 0.0, 0.0, false
		for b := range want.LogProbs {
			for r := range want.LogProbs[b] {
				if batch.AttentionMask[b][batch.PromptLen+r] == 0 {
					continue
				}
				d := math.Abs(float64(got.LogProbs[b][r] - want.LogProbs[b][r]))
				maxDiff = max(maxDiff, d)
				maxEntDiff = max(maxEntDiff, math.Abs(float64(got.Entropy[b][r]-want.Entropy[b][r])))
				differ = differ || d > 0
			}
		}
		t.Logf("temperature %g: max |bf16 - f32| log-prob %.2e, entropy %.2e nats", temperature, maxDiff, maxEntDiff)
		if maxDiff > bf16Tolerance || maxEntDiff > bf16Tolerance {
			t.Errorf("temperature %g: bf16 log-probs differ by %.3g and entropies by %.3g nats, more than %g", temperature, maxDiff, maxEntDiff, bf16Tolerance)
		}
		if !differ {
			t.Errorf("temperature %g: bf16 log-probs equal float32 ones exactly: the bf16 path did not run", temperature)
		}
	}
}

// TestMixedLoRA checks the adapters in bfloat16: an adapted model's
// log-probs agree with float32's, and differ from the base model's.
func TestMixedLoRA(t *testing.T) {
	m32 := newMixedTestModel(t, tinyConfig(), 11, mixedTestStd)
	if err := m32.AddLoRA(LoRAConfig{R: 2}, 4); err != nil {
		t.Fatal(err)
	}
	randomizeAdapters(t, m32, 4)
	m16 := withComputeDType(t, m32, dtypes.BFloat16)
	rng := rand.New(rand.NewPCG(11, 4))
	batch := Batch{Tokens: Tokens{PromptLen: 4}}
	for range 2 {
		batch.InputIDs = append(batch.InputIDs, randomIDs(rng, 10, tinyConfig().VocabSize))
	}
	want, got := mustLogProbs(t, m32, batch), mustLogProbs(t, m16, batch)
	assertLogProbs(t, got, want, bf16Tolerance, "bf16 LoRA vs float32 LoRA")
	if err := m16.MergeLoRA(); err != nil {
		t.Fatal(err)
	}
	assertLogProbs(t, mustLogProbs(t, m16, batch), want, bf16Tolerance, "bf16 merged vs float32 LoRA")
}

// TestMixedGradientFloat32 checks that gradients of bfloat16 log-probs
// reach the float32 variables as float32, close to the float32 gradient.
func TestMixedGradientFloat32(t *testing.T) {
	m32 := newMixedTestModel(t, tinyConfig(), 5, mixedTestStd)
	m16 := withComputeDType(t, m32, dtypes.BFloat16)
	rng := rand.New(rand.NewPCG(5, 6))
	ids := make([]int32, 2*10)
	for i := range ids {
		ids[i] = int32(rng.IntN(tinyConfig().VocabSize))
	}
	pos := make([]int32, len(ids))
	mask := make([]bool, len(ids))
	targets := make([]int32, 2*6)
	for b := range 2 {
		for j := range 10 {
			pos[b*10+j], mask[b*10+j] = int32(j), true
			if j >= 4 {
				targets[b*6+j-4] = ids[b*10+j]
			}
		}
	}
	grads := func(m *Model) []*tensors.Tensor {
		exec, err := mlctx.NewExec(m.Backend(), m.Context(), func(ctx *mlctx.Context, ids, pos, mask, targets *graph.Node) []*graph.Node {
			logp, _ := m.ResponseLogProbs(ctx, ids, pos, mask, targets, 4)
			return ctx.BuildTrainableVariablesGradientsGraph(graph.ReduceAllSum(logp))
		})
		if err != nil {
			t.Fatal(err)
		}
		outs, err := exec.Exec(tensors.FromFlatDataAndDimensions(ids, 2, 10), tensors.FromFlatDataAndDimensions(pos, 2, 10),
			tensors.FromFlatDataAndDimensions(mask, 2, 10), tensors.FromFlatDataAndDimensions(targets, 2, 6))
		if err != nil {
			t.Fatal(err)
		}
		return outs
	}
	want, got := grads(m32), grads(m16)
	if len(want) != len(got) || len(got) == 0 {
		t.Fatalf("%d bf16 gradients, %d float32 ones", len(got), len(want))
	}
	var num, den float64
	for i := range got {
		if got[i].DType() != dtypes.Float32 {
			t.Errorf("gradient %d is %s, want float32", i, got[i].DType())
		}
		a, b := tensors.MustCopyFlatData[float32](got[i]), tensors.MustCopyFlatData[float32](want[i])
		for j := range a {
			d := float64(a[j] - b[j])
			num += d * d
			den += float64(b[j]) * float64(b[j])
		}
	}
	rel := math.Sqrt(num / den)
	t.Logf("relative L2 difference of bf16 and f32 gradients: %.2e", rel)
	if rel > 5e-2 {
		t.Errorf("bf16 gradients differ from float32 ones by %.3g (relative L2)", rel)
	}
	for v := range m16.Context().IterVariables() {
		if v.DType() != dtypes.Float32 {
			t.Errorf("variable %s is %s, want float32 master weights", v.ScopeAndName(), v.DType())
		}
	}
}

// TestMixedGenerate runs the KV-cache decoder in bfloat16: its sampled
// tokens' log-probs agree with what LogProbs computes for them.
func TestMixedGenerate(t *testing.T) {
	m := withComputeDType(t, newMixedTestModel(t, tinyConfig(), 7, mixedTestStd), dtypes.BFloat16)
	prompts := [][]int{{1, 2, 3, 4, 5}, {6, 7}}
	gens, err := m.Generate(context.Background(), prompts, SampleOptions{MaxTokens: 6, Temperature: 1, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range gens {
		if len(g.TokenIDs) == 0 {
			t.Fatalf("row %d: no tokens", i)
		}
		ids := append(append([]int(nil), prompts[i]...), g.TokenIDs...)
		res := mustLogProbs(t, m, Batch{Tokens: Tokens{InputIDs: [][]int{ids}, PromptLen: len(prompts[i])}})
		for j, lp := range g.LogProbs {
			if d := math.Abs(lp - float64(res.LogProbs[0][j])); d > bf16Tolerance {
				t.Errorf("row %d token %d: sampled log-prob %.4f, LogProbs %.4f", i, j, lp, res.LogProbs[0][j])
			}
		}
	}
}
