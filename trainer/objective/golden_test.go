package objective_test

import (
	"errors"
	"testing"

	"github.com/gomlx/gomlx/backends"

	"github.com/org/agentevolver/internal/golden"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer/objective"
)

func newBackend(t testing.TB) backends.Backend {
	t.Helper()
	b, err := model.NewBackend("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Finalize)
	return b
}

func floats32(t testing.TB, c golden.Case, key string) [][]float32 {
	t.Helper()
	var m [][]golden.Num
	c.Input(t, key, &m)
	out := make([][]float32, len(m))
	for i, row := range m {
		out[i] = make([]float32, len(row))
		for j, v := range row {
			out[i][j] = float32(v)
		}
	}
	return out
}

func flat64(m [][]float32) []float64 {
	var out []float64
	for _, row := range m {
		for _, v := range row {
			out = append(out, float64(v))
		}
	}
	return out
}

func wantMatrix(t testing.TB, c golden.Case, key string) []float64 {
	t.Helper()
	var m [][]golden.Num
	c.Output(t, key, &m)
	var out []float64
	for _, row := range golden.Floats2D(m) {
		out = append(out, row...)
	}
	return out
}

func wantScalar(t testing.TB, c golden.Case, key string) float64 {
	t.Helper()
	var v golden.Num
	c.Output(t, key, &v)
	return float64(v)
}

func TestGoldenGRPOAdvantage(t *testing.T) {
	const file = "grpo_advantage.json"
	backend := newBackend(t)
	f := golden.Load(t, file)
	for _, c := range f.Cases {
		var keys []string
		var eps float64
		var norm bool
		c.Input(t, "group_index", &keys)
		c.Input(t, "epsilon", &eps)
		c.Input(t, "norm_adv_by_std", &norm)
		groups, n := objective.GroupIndex(keys)
		got, err := objective.ComputeGRPOAdvantages(backend, floats32(t, c, "token_level_rewards"), floats32(t, c, "response_mask"),
			groups, n, objective.GRPOConfig{Epsilon: eps, NoStdNorm: !norm})
		if err != nil {
			t.Fatalf("case %s: %v", c.Name, err)
		}
		f.CheckFloats(t, c.Name, "advantages", flat64(got), wantMatrix(t, c, "advantages"))
	}
	t.Logf("golden %s: %d cases", file, len(f.Cases))
}

func TestGoldenAggLoss(t *testing.T) {
	const file = "agg_loss.json"
	backend := newBackend(t)
	f := golden.Load(t, file)
	for _, c := range f.Cases {
		var mode string
		c.Input(t, "loss_agg_mode", &mode)
		got, err := objective.ComputeAggregateLoss(backend, floats32(t, c, "loss_mat"), floats32(t, c, "loss_mask"), objective.AggMode(mode))
		if isErr, typ := c.IsError(); isErr {
			if typ != "ValueError" || !errors.Is(err, objective.ErrUnknownAggMode) {
				t.Errorf("case %s: err = %v, want ErrUnknownAggMode (%s)", c.Name, err, typ)
			}
			continue
		}
		if err != nil {
			t.Fatalf("case %s: %v", c.Name, err)
		}
		f.CheckFloats(t, c.Name, "loss", []float64{float64(got)}, []float64{wantScalar(t, c, "loss")})
	}
	t.Logf("golden %s: %d cases", file, len(f.Cases))
}

func TestGoldenKLPenalty(t *testing.T) {
	const file = "kl_penalty.json"
	backend := newBackend(t)
	f := golden.Load(t, file)
	for _, c := range f.Cases {
		var kind string
		c.Input(t, "kl_penalty", &kind)
		got, err := objective.ComputeKLPenalty(backend, floats32(t, c, "logprob"), floats32(t, c, "ref_logprob"), objective.KLType(kind))
		if isErr, typ := c.IsError(); isErr {
			if typ != "NotImplementedError" || !errors.Is(err, objective.ErrUnknownKLType) {
				t.Errorf("case %s: err = %v, want ErrUnknownKLType (%s)", c.Name, err, typ)
			}
			continue
		}
		if err != nil {
			t.Fatalf("case %s: %v", c.Name, err)
		}
		f.CheckFloats(t, c.Name, "kl", flat64(got), wantMatrix(t, c, "kl"))
	}
	t.Logf("golden %s: %d cases", file, len(f.Cases))
}

func TestGoldenHETPolicyLoss(t *testing.T) {
	const file = "het_policy_loss.json"
	backend := newBackend(t)
	f := golden.Load(t, file)
	for _, c := range f.Cases {
		var clip float64
		var low, high *float64
		var offHigh, dual float64
		var mode string
		c.Input(t, "cliprange", &clip)
		c.Input(t, "cliprange_low", &low)
		c.Input(t, "cliprange_high", &high)
		c.Input(t, "off_cliprange_high", &offHigh)
		c.Input(t, "clip_ratio_c", &dual)
		c.Input(t, "loss_agg_mode", &mode)
		// The reference falls back to cliprange for a missing low or high.
		cfg := objective.PolicyLossConfig{ClipLow: clip, ClipHigh: clip, OffPolicyClipHigh: offHigh, DualClip: dual, AggMode: objective.AggMode(mode)}
		if low != nil {
			cfg.ClipLow = *low
		}
		if high != nil {
			cfg.ClipHigh = *high
		}
		got, err := objective.ComputePolicyLoss(backend, objective.PolicyLossBatch{
			OldLogProbs: floats32(t, c, "old_log_prob"),
			LogProbs:    floats32(t, c, "log_prob"),
			Advantages:  floats32(t, c, "advantages"),
			Mask:        floats32(t, c, "response_mask"),
			ExpMask:     floats32(t, c, "exp_mask"),
		}, cfg)
		if isErr, typ := c.IsError(); isErr {
			if typ != "ValueError" || !errors.Is(err, objective.ErrUnknownAggMode) {
				t.Errorf("case %s: err = %v, want ErrUnknownAggMode (%s)", c.Name, err, typ)
			}
			continue
		}
		if err != nil {
			t.Fatalf("case %s: %v", c.Name, err)
		}
		scalars := map[string]float32{
			"pg_loss": got.Loss, "on_pg_loss": got.OnLoss, "off_pg_loss": got.OffLoss,
			"on_pg_clipfrac": got.ClipFrac, "on_pg_clipfrac_lower": got.ClipFracLower, "ppo_kl": got.PPOKL,
		}
		for key, v := range scalars {
			f.CheckFloats(t, c.Name, key, []float64{float64(v)}, []float64{wantScalar(t, c, key)})
		}
		matrices := map[string][][]float32{"pg_losses": got.TokenLosses, "on_pg_losses": got.OnTokenLosses, "off_pg_losses": got.OffTokenLosses}
		for key, m := range matrices {
			f.CheckFloats(t, c.Name, key, flat64(m), wantMatrix(t, c, key))
		}
		if len(c.Outputs) != len(scalars)+len(matrices) {
			t.Errorf("case %s: fixture has %d outputs, checked %d", c.Name, len(c.Outputs), len(scalars)+len(matrices))
		}
	}
	t.Logf("golden %s: %d cases", file, len(f.Cases))
}
