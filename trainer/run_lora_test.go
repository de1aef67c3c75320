package trainer

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/context/checkpoints"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/runlog"
	"github.com/org/agentevolver/trainer/optim"
)

// loraConfig is tinyConfig with rank-4 adapters on every projection and a
// warm start long enough to see its loss fall.
func loraConfig(t *testing.T) Config {
	t.Helper()
	cfg := tinyConfig(t)
	cfg.Actor.LoRA = LoRAConfig{R: 4, Alpha: 8}
	cfg.WarmStart = WarmStartConfig{Steps: 4, BatchSize: 2, LR: 1e-2, Demos: 3}
	cfg.Trainer.MaxCheckpointsToKeep = 0
	return cfg
}

// stateVariables loads a checkpoint's GoMLX state into a new context and
// returns every variable's float32 values as little-endian bytes (nil for
// other dtypes), by parameter name.
func stateVariables(t *testing.T, ckpt string) map[string][]byte {
	t.Helper()
	vars := mlctx.New()
	if _, err := checkpoints.Build(vars).Dir(filepath.Join(ckpt, checkpointStateDir)).Immediate().Done(); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for v := range vars.IterVariables() {
		out[v.ParameterName()] = nil
		value, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		if data, err := tensors.CopyFlatData[float32](value); err == nil {
			out[v.ParameterName()] = float32Bytes(data)
		}
	}
	return out
}

// float32Bytes is data as the state file holds it (little endian).
func float32Bytes(data []float32) []byte {
	out := make([]byte, 4*len(data))
	for i, f := range data {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(f))
	}
	return out
}

// freshBase builds the policy model the run of cfg starts from, before any
// adapter: model.New of the configured shape and seed, over the vocabulary
// the run's final/config.json records.
func freshBase(t *testing.T, cfg Config) *model.Model {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(cfg.Trainer.OutputDir, FinalModelDir, model.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	var hf struct {
		VocabSize int `json:"vocab_size"`
	}
	if err := json.Unmarshal(raw, &hf); err != nil || hf.VocabSize == 0 {
		t.Fatalf("final config: %v (vocab %d)", err, hf.VocabSize)
	}
	m, err := model.New(cfg.Model.Shape.modelConfig(hf.VocabSize), cfg.Trainer.Seed, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestFitLoRA trains adapters end to end (warm start and RL) and checks
// what LoRA promises: the warm start's loss falls through the adapters
// alone; the base weights leave training bit for bit as they were made;
// only adapters have optimiser state; the reference is the base (the KL
// is positive right after the warm start, which a copy of the policy
// would make 0); final/ is the base with the adapter merged plus the
// adapter as a PEFT directory; and an interrupted run resumes to the same
// adapters, weights and metrics.
func TestFitLoRA(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model three times")
	}
	cfg := loraConfig(t)
	if _, err := mustNew(t, cfg, Options{}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	dir := cfg.Trainer.OutputDir
	checkMetricsDocumented(t, dir)

	for _, f := range []string{
		filepath.Join(FinalModelDir, model.ConfigFile), filepath.Join(FinalModelDir, model.WeightsFile),
		filepath.Join(FinalModelDir, AdapterDir, model.AdapterConfigFile), filepath.Join(FinalModelDir, AdapterDir, model.AdapterWeightsFile),
		filepath.Join(CheckpointDir, checkpointName(2), checkpointModelDir, AdapterDir, model.AdapterWeightsFile),
	} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing output: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ReferenceDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a LoRA run wrote %s (err %v): its reference is the base, not a copy", ReferenceDir, err)
	}

	// The warm start trains through the adapters.
	warm, err := runlog.ReadMetrics(filepath.Join(dir, WarmStartMetricsFile))
	if err != nil || len(warm) < 2 {
		t.Fatalf("warm start metrics: %d records, %v", len(warm), err)
	}
	first, _ := warm[0].Value("warm/loss")
	last, _ := warm[len(warm)-1].Value("warm/loss")
	if !(last < first) {
		t.Errorf("warm start loss %v -> %v: does not fall", first, last)
	}
	// The reference is the base: after the warm start the policy differs
	// from it.
	records, err := runlog.ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	sawKL := false
	for _, r := range records {
		if kl, ok := r.Value("actor/kl_loss"); ok && r.Step == 1 {
			sawKL = true
			if !(kl > 0) {
				t.Errorf("step 1 KL to the reference is %v: the reference is not the base", kl)
			}
		}
	}
	if !sawKL {
		t.Error("no actor/kl_loss at step 1")
	}

	// Base weights bit-identical, adapters trained, optimiser state for
	// adapters only.
	state := stateVariables(t, filepath.Join(dir, CheckpointDir, checkpointName(2)))
	base := freshBase(t, cfg)
	nBase := 0
	for v := range base.Context().IterVariables() {
		value, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		data, err := tensors.CopyFlatData[float32](value)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := state[v.ParameterName()]
		if !ok {
			t.Fatalf("%s not in the checkpoint", v.ParameterName())
		}
		if !bytes.Equal(got, float32Bytes(data)) {
			t.Errorf("base weight %s changed in training", v.ParameterName())
		}
		for _, moment := range []string{"m", "v"} {
			if _, ok := state["var:"+optim.AdamWScope+"/"+moment+strings.TrimPrefix(v.ParameterName(), "var:")]; ok {
				t.Errorf("the frozen %s has AdamW state", v.ParameterName())
			}
		}
		nBase++
	}
	trainedB, adapters := false, 0
	for name, data := range state {
		if !strings.HasPrefix(name, "var:/model/") || !strings.Contains(name, "/lora_") {
			continue
		}
		adapters++
		if _, ok := state["var:"+optim.AdamWScope+"/m"+strings.TrimPrefix(name, "var:")]; !ok {
			t.Errorf("adapter %s has no AdamW state", name)
		}
		if strings.Contains(name, "/lora_B/") && slices0(data) {
			continue
		}
		if strings.Contains(name, "/lora_B/") {
			trainedB = true
		}
	}
	if nBase == 0 || adapters != 2*7*cfg.Model.Shape.NumLayers || !trainedB {
		t.Fatalf("%d base weights, %d adapter matrices (want %d), some B trained: %v", nBase, adapters, 2*7*cfg.Model.Shape.NumLayers, trainedB)
	}

	// final/ is the base with final/adapter merged into it.
	if err := base.LoadAdapter(context.Background(), filepath.Join(dir, FinalModelDir, AdapterDir)); err != nil {
		t.Fatal(err)
	}
	merged := t.TempDir()
	if _, err := base.Export(context.Background(), merged, model.ExportOptions{DType: model.ExportFloat32}); err != nil {
		t.Fatal(err)
	}
	if !sameFile(t, filepath.Join(merged, model.WeightsFile), filepath.Join(dir, FinalModelDir, model.WeightsFile)) {
		t.Error("final/ is not the base with final/adapter merged")
	}

	// An interrupted run resumes to the same adapters.
	resumed := cfg
	resumed.Trainer.OutputDir = t.TempDir()
	if _, err := mustNew(t, resumed, Options{Hooks: Hooks{Recorder: failAt(1)}}).Fit(context.Background()); !errors.Is(err, errCrash) {
		t.Fatalf("first leg: err = %v, want the simulated crash", err)
	}
	if _, err := mustNew(t, resumed, Options{Resume: true}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(FinalModelDir, model.WeightsFile), filepath.Join(FinalModelDir, AdapterDir, model.AdapterWeightsFile)} {
		if !sameFile(t, filepath.Join(dir, f), filepath.Join(resumed.Trainer.OutputDir, f)) {
			t.Errorf("%s differs between the uninterrupted and the resumed run", f)
		}
	}
	if a, b := metricsWithoutTimes(t, dir), metricsWithoutTimes(t, resumed.Trainer.OutputDir); a != b {
		t.Errorf("metrics differ:\nuninterrupted:\n%s\nresumed:\n%s", a, b)
	}
}

func slices0(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

// TestLoRAResumeRefusesOtherAdapters resumes a LoRA run's checkpoint with
// another rank and without LoRA: both are configuration errors that name
// actor.lora, never a silent start.
func TestLoRAResumeRefusesOtherAdapters(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := loraConfig(t)
	cfg.WarmStart.Steps = 0
	cfg.Trainer.RLSteps = 1
	if _, err := mustNew(t, cfg, Options{}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, l := range []LoRAConfig{{R: 2}, {}} {
		c := copyRun(t, cfg)
		c.Actor.LoRA = l
		_, err, _ := resumeRun(t, c)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "actor.lora") {
			t.Errorf("resume with actor.lora %+v: err = %v, want a configuration error naming actor.lora", l, err)
		}
	}
}

func TestLoRAConfigValidation(t *testing.T) {
	tests := []struct {
		name string
		lora LoRAConfig
		want string
	}{
		{"off", LoRAConfig{}, ""},
		{"on", LoRAConfig{R: 8, Alpha: 16, Dropout: 0.05, TargetModules: []string{"q_proj", "v_proj"}}, ""},
		{"negative rank", LoRAConfig{R: -1}, "actor.lora.r"},
		{"dropout", LoRAConfig{R: 4, Dropout: 1}, "actor.lora.lora_dropout"},
		{"alpha", LoRAConfig{R: 4, Alpha: -2}, "actor.lora.lora_alpha"},
		{"module", LoRAConfig{R: 4, TargetModules: []string{"qkv_proj"}}, `"qkv_proj"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := FromScratchConfig()
			cfg.Actor.LoRA = tc.lora
			err := cfg.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrConfig naming %s", err, tc.want)
			}
		})
	}
	cfg, err := LoadConfig(nil, []string{"actor.lora.r=16", "actor.lora.lora_alpha=32", "actor.lora.target_modules=[q_proj,v_proj]"})
	if err != nil {
		t.Fatal(err)
	}
	if l := cfg.Actor.LoRA; l.R != 16 || l.Alpha != 32 || len(l.TargetModules) != 2 || l.TargetModules[1] != "v_proj" {
		t.Fatalf("--set actor.lora: %+v", l)
	}
}
