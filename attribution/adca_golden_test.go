package attribution_test

import (
	"context"
	"errors"
	"sort"
	"testing"

	"github.com/gomlx/gomlx/backends"
	_ "github.com/gomlx/gomlx/backends/simplego"

	"github.com/org/agentevolver/attribution"
	"github.com/org/agentevolver/internal/golden"
)

// testBackend is GoMLX's pure-Go backend, executing ops sequentially (its
// parallel executor is not race-clean).
func testBackend(t testing.TB) backends.Backend {
	t.Helper()
	b, err := backends.NewWithConfig("go:ops_sequential")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Finalize)
	return b
}

// goldenHyper is the fixtures' PRMHyper.
type goldenHyper struct {
	FixBase              float64 `json:"fix_base"`
	Alpha                float64 `json:"alpha"`
	ORMDistribution      string  `json:"orm_distribution"`
	LengthNormalization  bool    `json:"enable_length_normalization"`
	EqualTrajectoryWt    bool    `json:"equal_trajectory_weight"`
	DoBatchNorm          bool    `json:"do_batch_norm"`
	ConsistentScale      float64 `json:"consistent_scale"`
	PosUnconsistentScale float64 `json:"pos_unconsistent_scale"`
	NegUnconsistentScale float64 `json:"neg_unconsistent_scale"`
}

func (h goldenHyper) config(scheme string) attribution.ADCAConfig {
	return attribution.ADCAConfig{
		Scheme:                attribution.ADCAScheme(scheme),
		FixBase:               new(h.FixBase),
		Alpha:                 new(h.Alpha),
		ORMDistribution:       attribution.ORMDistribution(h.ORMDistribution),
		LengthNormalization:   h.LengthNormalization,
		EqualTrajectoryWeight: new(h.EqualTrajectoryWt),
		BatchNorm:             new(h.DoBatchNorm),
		ConsistentScale:       new(h.ConsistentScale),
		PosUnconsistentScale:  new(h.PosUnconsistentScale),
		NegUnconsistentScale:  new(h.NegUnconsistentScale),
	}
}

func TestGoldenADCAAdvantage(t *testing.T) {
	const file = "adca_advantage.json"
	backend := testBackend(t)
	f := golden.Load(t, file)
	ctx := context.Background()
	for _, c := range f.Cases {
		var b attribution.ADCABatch
		var rewards [][]golden.Num
		var hyper goldenHyper
		var scheme string
		c.Input(t, "step_ids", &b.StepIDs)
		c.Input(t, "group_ids", &b.Groups)
		c.Input(t, "token_level_rewards", &rewards)
		c.Input(t, "step_flags", &b.Flags)
		c.Input(t, "hyper", &hyper)
		c.Input(t, "scheme", &scheme)
		for _, row := range rewards {
			r := make([]float32, len(row))
			for j, v := range row {
				r[j] = float32(v)
			}
			b.TokenLevelRewards = append(b.TokenLevelRewards, r)
		}
		cfg := hyper.config(scheme)
		got, err := attribution.ComputeADCA(ctx, backend, cfg, 0, b)
		if isErr, typ := c.IsError(); isErr {
			if typ != "ValueError" || !errors.Is(err, attribution.ErrADCAConfig) {
				t.Errorf("case %s: err = %v, want ErrADCAConfig (%s)", c.Name, err, typ)
			}
			if cfg.Validate() == nil {
				t.Errorf("case %s: Validate accepts the config", c.Name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("case %s: %v", c.Name, err)
		}
		var adv [][]golden.Num
		var orm []golden.Num
		var metrics map[string]golden.Num
		c.Output(t, "advantages", &adv)
		c.Output(t, "orm_scores", &orm)
		c.Output(t, "metrics", &metrics)
		var want, have []float64
		for i, row := range golden.Floats2D(adv) {
			want = append(want, row...)
			for _, v := range got.Advantages[i] {
				have = append(have, float64(v))
			}
		}
		f.CheckFloats(t, c.Name, "advantages", have, want)
		f.CheckFloats(t, c.Name, "orm_scores", got.ORMScores, golden.Floats(orm))
		keys := make([]string, 0, len(metrics))
		for k := range metrics {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v, ok := got.Metrics[k]
			if !ok {
				t.Errorf("case %s: no metric %s", c.Name, k)
				continue
			}
			f.CheckFloats(t, c.Name, k, []float64{v}, []float64{float64(metrics[k])})
		}
		if len(got.Metrics) != len(metrics) {
			t.Errorf("case %s: %d metrics, fixture has %d", c.Name, len(got.Metrics), len(metrics))
		}
		if wantKeys := attribution.ADCAMetricKeys(cfg.Scheme, false); len(wantKeys) != len(metrics) {
			t.Errorf("case %s: ADCAMetricKeys lists %d keys, fixture has %d", c.Name, len(wantKeys), len(metrics))
		}
	}
	t.Logf("golden %s: %d cases", file, len(f.Cases))
}

func TestGoldenSuffixSumBroadcast(t *testing.T) {
	const file = "suffix_sum_broadcast.json"
	backend := testBackend(t)
	f := golden.Load(t, file)
	ctx := context.Background()
	for _, c := range f.Cases {
		var rewards [][]golden.Num
		var ids [][]int
		c.Input(t, "step_rewards", &rewards)
		c.Input(t, "step_ids", &ids)
		stepAdv, adv, err := attribution.SuffixSumBroadcast(ctx, backend, golden.Floats2D(rewards), ids)
		if isErr, typ := c.IsError(); isErr {
			if typ != "IndexError" || !errors.Is(err, attribution.ErrADCABatch) {
				t.Errorf("case %s: err = %v, want ErrADCABatch (%s)", c.Name, err, typ)
			}
			continue
		}
		if err != nil {
			t.Fatalf("case %s: %v", c.Name, err)
		}
		var wantStep, wantAdv [][]golden.Num
		c.Output(t, "step_advantages", &wantStep)
		c.Output(t, "advantages", &wantAdv)
		if len(stepAdv) != len(wantStep) || len(adv) != len(wantAdv) {
			t.Fatalf("case %s: %d/%d rows, want %d/%d", c.Name, len(stepAdv), len(adv), len(wantStep), len(wantAdv))
		}
		for i := range wantStep {
			f.CheckFloats(t, c.Name, "step_advantages", flat32(stepAdv[i]), golden.Floats(wantStep[i]))
			f.CheckFloats(t, c.Name, "advantages", flat32(adv[i]), golden.Floats(wantAdv[i]))
		}
	}
	t.Logf("golden %s: %d cases", file, len(f.Cases))
}

func flat32(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
