package model

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// randomizeAdapters gives every LoRA B matrix random values, so that the
// adapters change what the model computes.
func randomizeAdapters(t *testing.T, m *Model, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 5))
	for v := range m.Context().IterVariables() {
		if filepath.Base(v.Scope()) != "lora_B" {
			continue
		}
		data := make([]float32, v.Shape().Size())
		for i := range data {
			data[i] = float32(rng.NormFloat64() * 0.3)
		}
		if err := v.SetValue(tensors.FromFlatDataAndDimensions(data, v.Shape().Dimensions...)); err != nil {
			t.Fatal(err)
		}
	}
}

func assertLogProbs(t *testing.T, got, want LogProbResult, tol float64, what string) {
	t.Helper()
	for b := range want.LogProbs {
		for i := range want.LogProbs[b] {
			g, w := float64(got.LogProbs[b][i]), float64(want.LogProbs[b][i])
			if tol == 0 && g != w || math.Abs(g-w) > tol*(1+math.Abs(w)) {
				t.Fatalf("%s: row %d token %d: %g, want %g", what, b, i, g, w)
			}
		}
	}
}

func TestLoRAZeroInitEqualsBase(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 1)
	batch := exportLogProbsBatch(37)
	base := mustLogProbs(t, m, batch) // compiled before the adapters exist
	if err := m.AddLoRA(LoRAConfig{R: 4, Alpha: 8}, 3); err != nil {
		t.Fatal(err)
	}
	assertLogProbs(t, mustLogProbs(t, m, batch), base, 0, "zero-initialised adapters")
	randomizeAdapters(t, m, 1)
	adapted := mustLogProbs(t, m, batch)
	if slices.Equal(adapted.LogProbs[0], base.LogProbs[0]) {
		t.Fatal("trained adapters do not change the log-probs: the graphs ignore them")
	}
	// Sampling sees them too.
	gen, err := m.Generate(context.Background(), [][]int{{1, 2, 3}}, SampleOptions{MaxTokens: 3, Temperature: 0})
	if err != nil {
		t.Fatal(err)
	}
	want := mustLogProbs(t, m, Batch{Tokens: Tokens{InputIDs: [][]int{append([]int{1, 2, 3}, gen[0].TokenIDs...)}, PromptLen: 3}})
	for i, lp := range gen[0].LogProbs {
		if !closeTo(lp, float64(want.LogProbs[0][i]), 1e-4) {
			t.Errorf("token %d: sampled with log-prob %g, the log-prob graph says %g", i, lp, want.LogProbs[0][i])
		}
	}
}

// responseLogProbsIn computes ResponseLogProbs of a batch with the
// variables of ctx (a view such as AdaptersOff).
func responseLogProbsIn(t *testing.T, m *Model, ctx *mlctx.Context, ids [][]int, promptLen int) []float32 {
	t.Helper()
	exec, err := mlctx.NewExec(m.Backend(), ctx, func(ctx *mlctx.Context, ids, pos, mask, targets *graph.Node) *graph.Node {
		logp, _ := m.ResponseLogProbs(ctx, ids, pos, mask, targets, promptLen)
		return logp
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Exec(responseInputs(ids, promptLen)...)
	if err != nil {
		t.Fatal(err)
	}
	return tensors.MustCopyFlatData[float32](out[0])
}

func TestLoRAAdaptersOffIsTheBase(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 2)
	ids := exportLogProbsBatch(37).InputIDs
	base := responseLogProbsIn(t, m, m.Context(), ids, 3)
	if err := m.AddLoRA(LoRAConfig{R: 2, TargetModules: []string{"q_proj", "down_proj"}}, 1); err != nil {
		t.Fatal(err)
	}
	randomizeAdapters(t, m, 2)
	if got := responseLogProbsIn(t, m, AdaptersOff(m.Context()), ids, 3); !slices.Equal(got, base) {
		t.Errorf("adapters off: %v, the base computes %v", got, base)
	}
	if got := responseLogProbsIn(t, m, m.Context(), ids, 3); slices.Equal(got, base) {
		t.Errorf("the policy context lost its adapters to the AdaptersOff view")
	}
}

func TestLoRATrainsOnlyAdapters(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 3)
	cfg := LoRAConfig{R: 2, Alpha: 4, TargetModules: []string{"v_proj", "q_proj", "up_proj"}}
	if err := m.AddLoRA(cfg, 4); err != nil {
		t.Fatal(err)
	}
	var trainable []string
	for v := range m.Context().IterVariables() {
		if v.Trainable {
			trainable = append(trainable, hfName(v.Scope(), v.Name()))
		}
	}
	var want []string
	for i := range 2 {
		for _, module := range []string{"q_proj", "v_proj", "up_proj"} {
			a, b := loraTensorNames(i, module)
			want = append(want, a, b)
		}
	}
	slices.Sort(trainable)
	slices.Sort(want)
	if !slices.Equal(trainable, want) {
		t.Fatalf("trainable variables %v, want the adapters %v", trainable, want)
	}
	before := hostWeightsOf(t, m)
	adapters := func() map[string][]float32 {
		out := make(map[string][]float32)
		for _, name := range want {
			v, err := m.variableValue(name)
			if err != nil {
				t.Fatal(err)
			}
			out[name] = tensors.MustCopyFlatData[float32](v)
		}
		return out
	}
	start := adapters()

	// Two SGD steps on the summed log-probs over the trainable variables,
	// selected as the trainer's optimiser selects them.
	rng := rand.New(rand.NewPCG(9, 9))
	ids := [][]int{randomIDs(rng, 6, 37)}
	exec, err := mlctx.NewExec(m.Backend(), m.Context(), func(ctx *mlctx.Context, ids, pos, mask, targets *graph.Node) *graph.Node {
		logp, _ := m.ResponseLogProbs(ctx, ids, pos, mask, targets, 2)
		loss := graph.Neg(graph.ReduceAllSum(logp))
		g := loss.Graph()
		var vars []*mlctx.Variable
		var values []*graph.Node
		for v := range ctx.IterVariables() {
			if v.Trainable && v.InUseByGraph(g) {
				vars, values = append(vars, v), append(values, v.ValueGraph(g))
			}
		}
		for i, grad := range graph.Gradient(loss, values...) {
			vars[i].SetValueGraph(graph.Sub(values[i], graph.MulScalar(grad, 0.1)))
		}
		return loss
	})
	if err != nil {
		t.Fatal(err)
	}
	flat, pos, mask := make([]int32, 6), make([]int32, 6), make([]bool, 6)
	for j, id := range ids[0] {
		flat[j], pos[j], mask[j] = int32(id), int32(j), true
	}
	targets := []int32{flat[2], flat[3], flat[4], flat[5]}
	var losses []float32
	for range 3 {
		out, err := exec.Exec(tensors.FromFlatDataAndDimensions(flat, 1, 6), tensors.FromFlatDataAndDimensions(pos, 1, 6),
			tensors.FromFlatDataAndDimensions(mask, 1, 6), tensors.FromFlatDataAndDimensions(targets, 1, 4))
		if err != nil {
			t.Fatal(err)
		}
		losses = append(losses, tensors.MustCopyFlatData[float32](out[0])[0])
	}
	if !(losses[2] < losses[0]) {
		t.Errorf("losses %v: training the adapters did not lower the loss", losses)
	}
	after := hostWeightsOf(t, m)
	for name, w := range before {
		if !slices.Equal(after[name].data, w.data) {
			t.Errorf("frozen base weight %s changed", name)
		}
	}
	end := adapters()
	for _, name := range want {
		if slices.Equal(end[name], start[name]) {
			t.Errorf("adapter %s did not change", name)
		}
	}
}

func TestLoRAMergeAndExport(t *testing.T) {
	ctx := context.Background()
	m := newTestModel(t, tinyConfig(), 4)
	if err := m.AddLoRA(LoRAConfig{R: 3, Alpha: 6}, 5); err != nil {
		t.Fatal(err)
	}
	randomizeAdapters(t, m, 3)
	batch := exportLogProbsBatch(37)
	unmerged := mustLogProbs(t, m, batch)

	// The export writes merged weights; loading them gives the adapted model.
	dir := t.TempDir()
	if _, err := m.Export(ctx, dir, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	exported, err := Load(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	assertLogProbs(t, mustLogProbs(t, exported, batch), unmerged, 1e-4, "exported merged weights")

	if err := m.MergeLoRA(); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.LoRA(); ok {
		t.Error("the merged model still reports adapters")
	}
	assertLogProbs(t, mustLogProbs(t, m, batch), unmerged, 1e-4, "merged")
	assertSameWeights(t, m, exported, 0)
	for v := range m.Context().IterVariables() {
		if !v.Trainable {
			t.Errorf("%s is still frozen after the merge", hfName(v.Scope(), v.Name()))
		}
	}
}

func TestLoRAAdapterExportPEFT(t *testing.T) {
	ctx := context.Background()
	cfg := tinyConfig()
	m := newTestModel(t, cfg, 5)
	if err := m.AddLoRA(LoRAConfig{R: 2, Alpha: 16, Dropout: 0.05, TargetModules: []string{"o_proj", "q_proj"}}, 6); err != nil {
		t.Fatal(err)
	}
	randomizeAdapters(t, m, 4)
	dir := t.TempDir()
	if err := m.ExportAdapter(ctx, dir, "Qwen/Qwen2.5-7B-Instruct"); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, AdapterConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	var conf map[string]any
	if err := json.Unmarshal(raw, &conf); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]any{"peft_type": "LORA", "task_type": "CAUSAL_LM", "r": 2.0, "lora_alpha": 16.0,
		"lora_dropout": 0.05, "bias": "none", "base_model_name_or_path": "Qwen/Qwen2.5-7B-Instruct"} {
		if conf[key] != want {
			t.Errorf("%s = %v, want %v", key, conf[key], want)
		}
	}
	if targets, _ := json.Marshal(conf["target_modules"]); string(targets) != `["q_proj","o_proj"]` {
		t.Errorf("target_modules %s", targets)
	}
	header := readHeader(t, filepath.Join(dir, AdapterWeightsFile))
	want := map[string][]int{}
	for i := range cfg.NumHiddenLayers {
		p := "base_model.model.model.layers." + string(rune('0'+i)) + ".self_attn."
		want[p+"q_proj.lora_A.weight"], want[p+"q_proj.lora_B.weight"] = []int{2, 16}, []int{16, 2}
		want[p+"o_proj.lora_A.weight"], want[p+"o_proj.lora_B.weight"] = []int{2, 16}, []int{16, 2}
	}
	if len(header) != len(want) {
		t.Errorf("%d adapter tensors, want %d", len(header), len(want))
	}
	for name, shape := range want {
		if h, ok := header[name]; !ok || !slices.Equal(h.Shape, shape) || h.DType != "F32" {
			t.Errorf("%s: %+v (present %v), want F32 %v", name, h, ok, shape)
		}
	}

	// The adapter loads over a fresh copy of the base.
	batch := exportLogProbsBatch(37)
	adapted := mustLogProbs(t, m, batch)
	fresh := newTestModel(t, cfg, 5)
	if err := fresh.LoadAdapter(ctx, dir); err != nil {
		t.Fatal(err)
	}
	got, ok := fresh.LoRA()
	if !ok || got.R != 2 || got.Alpha != 16 || got.Dropout != 0.05 || !slices.Equal(got.TargetModules, []string{"q_proj", "o_proj"}) {
		t.Errorf("loaded settings %+v", got)
	}
	assertLogProbs(t, mustLogProbs(t, fresh, batch), adapted, 0, "reloaded adapter")
}

func TestLoRARejects(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 6)
	for _, cfg := range []LoRAConfig{{R: 0}, {R: 2, Alpha: -1}, {R: 2, Dropout: 1}, {R: 2, TargetModules: []string{"lm_head"}}, {R: 2, TargetModules: []string{}}} {
		if err := m.AddLoRA(cfg, 1); !errors.Is(err, ErrBadConfig) {
			t.Errorf("AddLoRA(%+v): %v, want ErrBadConfig", cfg, err)
		}
	}
	if err := m.ExportAdapter(context.Background(), t.TempDir(), ""); !errors.Is(err, ErrBadInput) {
		t.Errorf("ExportAdapter without adapters: %v, want ErrBadInput", err)
	}
	if err := m.AddLoRA(LoRAConfig{R: 2}, 1); err != nil {
		t.Fatal(err)
	}
	if err := m.AddLoRA(LoRAConfig{R: 2}, 1); !errors.Is(err, ErrBadConfig) {
		t.Errorf("a second AddLoRA: %v, want ErrBadConfig", err)
	}
}
