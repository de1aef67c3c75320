package attribution_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/org/agentevolver/attribution"
)

func TestADCAConfigValidate(t *testing.T) {
	tests := []struct {
		name     string
		cfg      attribution.ADCAConfig
		mentions string // "" = valid
	}{
		{"zero value", attribution.ADCAConfig{}, ""},
		{"allocation", attribution.ADCAConfig{Scheme: attribution.ADCAAllocation, ORMDistribution: attribution.ORMAllSteps}, ""},
		{"scheme in upper case", attribution.ADCAConfig{Scheme: "Decouple"}, ""},
		{"decouple only_prm", attribution.ADCAConfig{ORMDistribution: attribution.ORMOnlyPRM}, ""},
		{"zero alpha and scales", attribution.ADCAConfig{Alpha: new(0.0), PosUnconsistentScale: new(0.0), NegUnconsistentScale: new(0.0)}, ""},
		{"zero fix_base, consistent scale and total steps", attribution.ADCAConfig{FixBase: new(0.0), ConsistentScale: new(0.0), TotalSteps: new(0)}, ""},
		{"negative neg scale is its absolute value", attribution.ADCAConfig{NegUnconsistentScale: new(-0.2)}, ""},
		{"decay with progress", attribution.ADCAConfig{AlphaCosineDecay: true, AlphaProgress: new(2.0)}, ""},
		{"unknown scheme", attribution.ADCAConfig{Scheme: "gspo"}, "unknown scheme"},
		{"unknown distribution", attribution.ADCAConfig{ORMDistribution: "first_step"}, "unknown orm_distribution"},
		{"allocation only_prm", attribution.ADCAConfig{Scheme: attribution.ADCAAllocation, ORMDistribution: attribution.ORMOnlyPRM}, "only_prm"},
		{"negative fix_base", attribution.ADCAConfig{FixBase: new(-0.2)}, "fix_base"},
		{"negative alpha", attribution.ADCAConfig{Alpha: new(-0.1)}, "alpha"},
		{"NaN alpha", attribution.ADCAConfig{Alpha: new(math.NaN())}, "not finite"},
		{"infinite consistent scale", attribution.ADCAConfig{ConsistentScale: new(math.Inf(1))}, "consistent_scale"},
		{"negative pos scale", attribution.ADCAConfig{PosUnconsistentScale: new(-1.0)}, "pos_unconsistent_scale"},
		{"negative alpha_min", attribution.ADCAConfig{AlphaMin: -1}, "alpha_min"},
		{"NaN progress", attribution.ADCAConfig{AlphaProgress: new(math.NaN())}, "alpha_progress"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.mentions == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, attribution.ErrADCAConfig) || !strings.Contains(err.Error(), tc.mentions) {
				t.Fatalf("Validate() = %v, want ErrADCAConfig mentioning %q", err, tc.mentions)
			}
		})
	}
}

func TestADCAAlphaAt(t *testing.T) {
	tests := []struct {
		name           string
		cfg            attribution.ADCAConfig
		step           int
		alpha, process float64
	}{
		{"no decay", attribution.ADCAConfig{}, 50, 0.1, 0},
		{"decay start", attribution.ADCAConfig{AlphaCosineDecay: true}, 0, 0.1, 0},
		{"decay half way", attribution.ADCAConfig{AlphaCosineDecay: true}, 50, 0.05, 0.5},
		{"decay end, clamped", attribution.ADCAConfig{AlphaCosineDecay: true, TotalSteps: new(10)}, 20, 0, 1},
		{"decay to a floor", attribution.ADCAConfig{AlphaCosineDecay: true, Alpha: new(0.3), AlphaMin: 0.1}, 100, 0.1, 1},
		{"explicit progress", attribution.ADCAConfig{AlphaCosineDecay: true, AlphaProgress: new(0.5)}, 99, 0.05, 0.5},
		{"negative total steps", attribution.ADCAConfig{AlphaCosineDecay: true, TotalSteps: new(-1)}, 99, 0.1, 0},
		// An explicit 0 is honoured as the reference honours it: no
		// progress, not the default 100 steps.
		{"zero total steps", attribution.ADCAConfig{AlphaCosineDecay: true, TotalSteps: new(0)}, 50, 0.1, 0},
		// The first RL step is global step 1: progress 1/TotalSteps.
		{"first step", attribution.ADCAConfig{AlphaCosineDecay: true, TotalSteps: new(2)}, 1, 0.05, 0.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			alpha, p, err := tc.cfg.AlphaAt(tc.step)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(alpha-tc.alpha) > 1e-12 || math.Abs(p-tc.process) > 1e-12 {
				t.Fatalf("AlphaAt(%d) = %v, %v, want %v, %v", tc.step, alpha, p, tc.alpha, tc.process)
			}
		})
	}
}

func TestADCAActive(t *testing.T) {
	tests := []struct {
		prmSteps, step int
		want           bool
	}{
		{0, 99, true}, {0, 100, false}, {5, 4, true}, {5, 5, false}, {-1, 1 << 30, true},
		// Global steps count from 1: prm_steps 1 never replaces.
		{1, 1, false},
	}
	for _, tc := range tests {
		if got := (attribution.ADCAConfig{PRMSteps: tc.prmSteps}).Active(tc.step); got != tc.want {
			t.Errorf("PRMSteps %d: Active(%d) = %v, want %v", tc.prmSteps, tc.step, got, tc.want)
		}
	}
}

// specBatch is the worked example of reference §7.6.
func specBatch() attribution.ADCABatch {
	return attribution.ADCABatch{
		StepIDs: [][]int{
			{0, 0, -1, 1, 1, -1, 2, 2},
			{0, 0, 0, -1, 1, 1, -1, -1},
			{0, -1, 1, -1, 2, 2, 2, -1},
			{0, 0, 0, 0, -1, -1, -1, -1},
		},
		Groups: []int{0, 0, 1, 1},
		TokenLevelRewards: [][]float32{
			{0, 0, 0, 0, 0, 0, 0, 1},
			{0, 0, 0, 0, 0, 0, 0, 0},
			{0, 0, 0, 0, 0, 0, 1, 0},
			{0, 0, 0, 0, 0, 0, 0, 0},
		},
		Flags: [][]bool{{true, false, true}, {false, false}, {true, true, false}, {true}},
	}
}

func TestComputeADCABatchErrors(t *testing.T) {
	backend := testBackend(t)
	ctx := context.Background()
	tests := []struct {
		name     string
		edit     func(b *attribution.ADCABatch)
		mentions string
	}{
		{"NaN reward", func(b *attribution.ADCABatch) { b.TokenLevelRewards[1][3] = float32(math.NaN()) }, "not finite"},
		{"infinite reward", func(b *attribution.ADCABatch) { b.TokenLevelRewards[0][0] = float32(math.Inf(-1)) }, "not finite"},
		{"ragged rewards", func(b *attribution.ADCABatch) { b.TokenLevelRewards[2] = b.TokenLevelRewards[2][:3] }, "row 2 has 3 tokens"},
		{"missing step ids", func(b *attribution.ADCABatch) { b.StepIDs = b.StepIDs[:3] }, "step id rows"},
		{"missing groups", func(b *attribution.ADCABatch) { b.Groups = b.Groups[:1] }, "groups"},
		{"extra flag rows", func(b *attribution.ADCABatch) { b.Flags = append(b.Flags, nil) }, "flag rows"},
		{"more steps than tokens", func(b *attribution.ADCABatch) { b.StepIDs[1][2] = 8 }, "only 8 tokens"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := specBatch()
			tc.edit(&b)
			_, err := attribution.ComputeADCA(ctx, backend, attribution.ADCAConfig{}, 0, b)
			if !errors.Is(err, attribution.ErrADCABatch) || !strings.Contains(err.Error(), tc.mentions) {
				t.Fatalf("err = %v, want ErrADCABatch mentioning %q", err, tc.mentions)
			}
		})
	}
	t.Run("invalid config", func(t *testing.T) {
		_, err := attribution.ComputeADCA(ctx, backend, attribution.ADCAConfig{Scheme: "x"}, 0, specBatch())
		if !errors.Is(err, attribution.ErrADCAConfig) {
			t.Fatalf("err = %v, want ErrADCAConfig", err)
		}
	})
	t.Run("nil backend", func(t *testing.T) {
		_, err := attribution.ComputeADCA(ctx, nil, attribution.ADCAConfig{}, 0, specBatch())
		if !errors.Is(err, attribution.ErrADCAConfig) {
			t.Fatalf("err = %v, want ErrADCAConfig", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := attribution.ComputeADCA(cctx, backend, attribution.ADCAConfig{}, 0, specBatch())
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

func TestComputeADCAEdgeCases(t *testing.T) {
	backend := testBackend(t)
	ctx := context.Background()
	for _, scheme := range []attribution.ADCAScheme{attribution.ADCADecouple, attribution.ADCAAllocation} {
		cfg := attribution.ADCAConfig{Scheme: scheme}
		keys := attribution.ADCAMetricKeys(scheme, false)
		t.Run(string(scheme)+"/empty batch", func(t *testing.T) {
			res, err := attribution.ComputeADCA(ctx, backend, cfg, 0, attribution.ADCABatch{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Advantages) != 0 || len(res.ORMScores) != 0 || len(res.Metrics) != len(keys) {
				t.Fatalf("got %d rows, %d metrics; want 0 rows, %d metrics", len(res.Advantages), len(res.Metrics), len(keys))
			}
			for _, k := range keys {
				if v, ok := res.Metrics[k]; !ok || v != 0 {
					t.Errorf("metric %s = %v (present %v), want 0", k, v, ok)
				}
			}
		})
		t.Run(string(scheme)+"/no steps anywhere", func(t *testing.T) {
			b := attribution.ADCABatch{
				StepIDs:           [][]int{{-1, -1, -1}, {-3}, nil},
				Groups:            []int{5, 5, 9},
				TokenLevelRewards: [][]float32{{0, 0, 1}, {0, 0, 0}, {0, 0.5, 0}},
				Flags:             [][]bool{{true}},
			}
			res, err := attribution.ComputeADCA(ctx, backend, cfg, 0, b)
			if err != nil {
				t.Fatal(err)
			}
			for i, row := range res.Advantages {
				if len(row) != 3 || len(res.StepRewards[i]) != 0 || len(res.StepAdvantages[i]) != 0 {
					t.Fatalf("row %d: %d tokens, %d steps", i, len(row), len(res.StepRewards[i]))
				}
				for _, v := range row {
					if v != 0 {
						t.Fatalf("row %d: advantages %v, want zeros", i, row)
					}
				}
			}
			if want := []float64{1, 0, 0.5}; !equalFloats(res.ORMScores, want) {
				t.Fatalf("ORMScores = %v, want %v", res.ORMScores, want)
			}
		})
		t.Run(string(scheme)+"/zero width", func(t *testing.T) {
			b := attribution.ADCABatch{StepIDs: [][]int{{0, 1}, {}}, Groups: []int{0, 0}, TokenLevelRewards: [][]float32{{}, {}}}
			res, err := attribution.ComputeADCA(ctx, backend, cfg, 0, b)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Advantages) != 2 || len(res.Advantages[0]) != 0 || len(res.StepRewards[0]) != 0 {
				t.Fatalf("got %v / %v, want two empty rows without steps", res.Advantages, res.StepRewards)
			}
		})
		t.Run(string(scheme)+"/singleton group", func(t *testing.T) {
			// One trajectory in its group: its z-scores are 0 (every step
			// equals the group mean) and its outcome standardises to 0.
			b := attribution.ADCABatch{
				StepIDs:           [][]int{{0, 0, 1, 1, 2}},
				Groups:            []int{3},
				TokenLevelRewards: [][]float32{{0, 0, 0, 0, 1}},
				Flags:             [][]bool{{true, true, true}},
			}
			res, err := attribution.ComputeADCA(ctx, backend, cfg, 0, b)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range res.Advantages[0] {
				if math.Abs(float64(v)) > 1e-6 {
					t.Fatalf("advantages %v, want zeros", res.Advantages[0])
				}
			}
		})
	}
	t.Run("step ids cut and padded to L", func(t *testing.T) {
		b := specBatch()
		b.StepIDs[0] = append(b.StepIDs[0], 3, 3) // beyond L: cut, so K stays 3
		b.StepIDs[3] = b.StepIDs[3][:2]           // shorter: padded with -1
		res, err := attribution.ComputeADCA(ctx, backend, attribution.ADCAConfig{}, 0, b)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.StepRewards[0]) != 3 || len(res.Advantages[3]) != 8 || res.Advantages[3][2] != 0 {
			t.Fatalf("K_0 = %d, row 3 = %v", len(res.StepRewards[0]), res.Advantages[3])
		}
	})
	t.Run("decay reports alpha metrics", func(t *testing.T) {
		decayed, err := attribution.ComputeADCA(ctx, backend, attribution.ADCAConfig{AlphaCosineDecay: true}, 50, specBatch())
		if err != nil {
			t.Fatal(err)
		}
		fixed, err := attribution.ComputeADCA(ctx, backend, attribution.ADCAConfig{Alpha: new(0.05)}, 50, specBatch())
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(decayed.Alpha-0.05) > 1e-12 || decayed.Metrics["prm/alpha_base"] != 0.1 ||
			math.Abs(decayed.Metrics["prm/alpha_t"]-0.05) > 1e-12 || decayed.Metrics["prm/alpha_progress"] != 0.5 {
			t.Fatalf("alpha %v, metrics %v", decayed.Alpha, decayed.Metrics)
		}
		if len(decayed.Metrics) != len(attribution.ADCAMetricKeys("", true)) {
			t.Fatalf("%d metrics, want %d", len(decayed.Metrics), len(attribution.ADCAMetricKeys("", true)))
		}
		for i := range fixed.Advantages {
			for j := range fixed.Advantages[i] {
				if math.Abs(float64(decayed.Advantages[i][j]-fixed.Advantages[i][j])) > 1e-6 {
					t.Fatalf("decayed advantages %v differ from alpha 0.05's %v", decayed.Advantages, fixed.Advantages)
				}
			}
		}
	})
	t.Run("suffix sums match the step rewards", func(t *testing.T) {
		res, err := attribution.ComputeADCA(ctx, backend, attribution.ADCAConfig{ORMDistribution: attribution.ORMAllSteps, LengthNormalization: true}, 0, specBatch())
		if err != nil {
			t.Fatal(err)
		}
		b := specBatch()
		for i, r := range res.StepRewards {
			var sum float64
			for k := len(r) - 1; k >= 0; k-- {
				sum += float64(float32(r[k]))
				if math.Abs(float64(res.StepAdvantages[i][k])-sum) > 1e-6 {
					t.Fatalf("row %d step %d: %v, want %v", i, k, res.StepAdvantages[i][k], sum)
				}
			}
			for tok, id := range b.StepIDs[i] {
				want := float32(0)
				if id >= 0 {
					want = res.StepAdvantages[i][id]
				}
				if res.Advantages[i][tok] != want {
					t.Fatalf("row %d token %d: %v, want %v", i, tok, res.Advantages[i][tok], want)
				}
			}
		}
	})
}

func TestSuffixSumBroadcastErrors(t *testing.T) {
	backend := testBackend(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		rewards [][]float64
		ids     [][]int
		want    error
	}{
		{"id out of range", [][]float64{{1, 2}}, [][]int{{0, 2}}, attribution.ErrADCABatch},
		{"row counts differ", [][]float64{{1}}, [][]int{{0}, {0}}, attribution.ErrADCABatch},
		{"NaN", [][]float64{{math.NaN()}}, [][]int{{0}}, attribution.ErrADCABatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := attribution.SuffixSumBroadcast(ctx, backend, tc.rewards, tc.ids); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	t.Run("empty", func(t *testing.T) {
		s, a, err := attribution.SuffixSumBroadcast(ctx, backend, nil, nil)
		if err != nil || len(s) != 0 || len(a) != 0 {
			t.Fatalf("got %v, %v, %v", s, a, err)
		}
	})
	t.Run("ids ignored in a row without rewards", func(t *testing.T) {
		_, a, err := attribution.SuffixSumBroadcast(ctx, backend, [][]float64{{}}, [][]int{{7, 0, -1}})
		if err != nil || len(a[0]) != 3 || a[0][0] != 0 || a[0][1] != 0 {
			t.Fatalf("got %v, %v", a, err)
		}
	})
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestComputeADCAExplicitZeros: an explicit zero fix_base or
// consistent_scale is honoured, as the reference honours it, instead of
// becoming the default.
func TestComputeADCAExplicitZeros(t *testing.T) {
	backend := testBackend(t)
	ctx := context.Background()
	t.Run("fix_base 0: outcome alone", func(t *testing.T) {
		res, err := attribution.ComputeADCA(ctx, backend, attribution.ADCAConfig{FixBase: new(0.0)}, 1, specBatch())
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res.StepRewards {
			for k, v := range r[:len(r)-1] {
				if v != 0 {
					t.Fatalf("trajectory %d step %d: process reward %v, want 0 with fix_base 0 (rewards %v)", i, k, v, res.StepRewards)
				}
			}
			for _, a := range res.StepAdvantages[i] {
				if a != res.StepAdvantages[i][0] {
					t.Fatalf("trajectory %d: step advantages %v, want the outcome's at every step", i, res.StepAdvantages[i])
				}
			}
		}
	})
	t.Run("consistent_scale 0", func(t *testing.T) {
		alloc := attribution.ADCAConfig{Scheme: attribution.ADCAAllocation}
		def, err := attribution.ComputeADCA(ctx, backend, alloc, 1, specBatch())
		if err != nil {
			t.Fatal(err)
		}
		alloc.ConsistentScale = new(0.0)
		zero, err := attribution.ComputeADCA(ctx, backend, alloc, 1, specBatch())
		if err != nil {
			t.Fatal(err)
		}
		same := true
		for i := range def.StepRewards {
			for k := range def.StepRewards[i] {
				same = same && math.Abs(def.StepRewards[i][k]-zero.StepRewards[i][k]) < 1e-9
			}
		}
		if same {
			t.Fatalf("consistent_scale 0 gives the default's step rewards %v", def.StepRewards)
		}
	})
}
