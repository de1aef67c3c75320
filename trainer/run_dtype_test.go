package trainer

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/runlog"
	"github.com/org/agentevolver/tokenizer"
)

func TestActorDTypeValidation(t *testing.T) {
	for _, ok := range []string{"", "float32", "bfloat16", "bf16", "BF16"} {
		cfg := FromScratchConfig()
		cfg.Actor.DType = ok
		if err := cfg.Validate(); err != nil {
			t.Errorf("actor.dtype %q: %v", ok, err)
		}
	}
	for _, bad := range []string{"float16", "fp32x", "int8"} {
		cfg := FromScratchConfig()
		cfg.Actor.DType = bad
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), "actor.dtype") {
			t.Errorf("actor.dtype %q: error %v, want one naming actor.dtype", bad, err)
		}
	}
	cfg, err := LoadConfig(nil, []string{"actor.dtype=bf16"})
	if err != nil {
		t.Fatal(err)
	}
	if dt, err := cfg.Actor.computeDType(); err != nil || dt != dtypes.BFloat16 {
		t.Errorf("--set actor.dtype=bf16: %s, %v", dt, err)
	}
}

// TestFitBFloat16 runs Fit end to end with mixed precision: the policy
// computes in bfloat16 (rollouts, warm start, log-probs, updates), its
// weights stay float32, and the metrics stay finite.
func TestFitBFloat16(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model end to end")
	}
	cfg := tinyConfig(t)
	cfg.Actor.DType = "bfloat16"
	tr := mustNew(t, cfg, Options{})
	s, err := tr.Fit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.RLSteps != 2 {
		t.Fatalf("summary %+v", s)
	}
	records, err := runlog.ReadMetrics(filepath.Join(cfg.Trainer.OutputDir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	for _, r := range records {
		if _, ok := r.Value("reward/mean"); !ok {
			continue
		}
		steps++
		diff, _ := r.Value("rollout/logprob_diff")
		diffMax, _ := r.Value("rollout/logprob_diff_max")
		t.Logf("step %d: rollout vs recomputed log-probs in bf16: mean |diff| %.2e, max %.2e", r.Step, diff, diffMax)
		for _, k := range []string{"actor/pg_loss", "actor/grad_norm", "actor/kl_loss", "actor/entropy"} {
			v, ok := r.Value(k)
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("step %d: %s = %v (present %v)", r.Step, k, v, ok)
			}
		}
	}
	if steps != 2 {
		t.Errorf("%d RL records, want 2", steps)
	}
}

// TestPolicyModelComputeDType checks the wiring: the policy model
// computes in actor.dtype.
func TestPolicyModelComputeDType(t *testing.T) {
	tok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	backend, err := model.NewBackend("")
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]dtypes.DType{"": dtypes.Float32, "bf16": dtypes.BFloat16} {
		cfg := tinyConfig(t)
		cfg.Actor.DType = in
		m, err := newPolicyModel(context.Background(), cfg, tok, backend)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.ComputeDType(); got != want {
			t.Errorf("actor.dtype %q: model computes in %s, want %s", in, got, want)
		}
	}
}

func TestRolloutWeightDTypeValidation(t *testing.T) {
	for _, ok := range []string{"", "float32", "bf16", "int8"} {
		cfg := FromScratchConfig()
		cfg.Rollout.WeightDType = ok
		if err := cfg.Validate(); err != nil {
			t.Errorf("rollout.weight_dtype %q: %v", ok, err)
		}
	}
	for _, bad := range []struct{ weights, actor string }{{"int4", ""}, {"fp8", ""}, {"int8", "bf16"}} {
		cfg := FromScratchConfig()
		cfg.Rollout.WeightDType, cfg.Actor.DType = bad.weights, bad.actor
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), "rollout.weight_dtype") {
			t.Errorf("rollout.weight_dtype %q with actor.dtype %q: error %v, want one naming rollout.weight_dtype", bad.weights, bad.actor, err)
		}
	}
}

// TestFitNarrowSampler runs Fit end to end with rollouts sampled from
// int8 and bfloat16 copies of the weights: the policy model samples with
// them, the weights and updates stay float32, and the rollout log-probs
// differ from the trainer's recomputed float32 ones by the rounding
// (rollout/logprob_diff above 0, small, finite).
func TestFitNarrowSampler(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model end to end")
	}
	for _, weights := range []string{"int8", "bfloat16"} {
		cfg := tinyConfig(t)
		cfg.Rollout.WeightDType = weights
		tok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
		if err != nil {
			t.Fatal(err)
		}
		backend, err := model.NewBackend("")
		if err != nil {
			t.Fatal(err)
		}
		m, err := newPolicyModel(context.Background(), cfg, tok, backend)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.SamplerWeights(); string(got) != weights {
			t.Fatalf("rollout.weight_dtype %s: the policy samples with %q", weights, got)
		}
		if _, err := mustNew(t, cfg, Options{}).Fit(context.Background()); err != nil {
			t.Fatal(err)
		}
		records, err := runlog.ReadMetrics(filepath.Join(cfg.Trainer.OutputDir, MetricsFile))
		if err != nil {
			t.Fatal(err)
		}
		steps := 0
		for _, r := range records {
			diff, ok := r.Value("rollout/logprob_diff")
			if !ok {
				continue
			}
			steps++
			diffMax, _ := r.Value("rollout/logprob_diff_max")
			t.Logf("%s step %d: rollout vs float32 log-probs: mean |diff| %.2e, max %.2e", weights, r.Step, diff, diffMax)
			if !(diff > 0) || diff > 0.5 || math.IsInf(diffMax, 0) || math.IsNaN(diffMax) {
				t.Errorf("%s step %d: rollout/logprob_diff %v, max %v", weights, r.Step, diff, diffMax)
			}
		}
		if steps != 2 {
			t.Errorf("%s: %d records with rollout/logprob_diff, want 2", weights, steps)
		}
	}
}
