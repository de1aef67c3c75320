package attribution

import (
	"context"
	"errors"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/org/agentevolver"
)

func steps(n int) []agentevolver.SampleStep { return make([]agentevolver.SampleStep, n) }

// TestJudgeOutcomeFlags: fallback labels follow the rescaled outcome, so
// an outcome of exactly 0.5 is BAD.
func TestJudgeOutcomeFlags(t *testing.T) {
	cases := []struct {
		outcome float64
		want    bool
	}{{1, true}, {0, false}, {0.5, false}, {0.51, true}, {0.49, false}, {-1, false}, {math.NaN(), false}}
	for _, c := range cases {
		got := OutcomeFlags(Episode{Steps: steps(3), Outcome: c.outcome})
		if !slices.Equal(got, []bool{c.want, c.want, c.want}) {
			t.Errorf("OutcomeFlags(outcome %v) = %v, want all %v", c.outcome, got, c.want)
		}
	}
	if got := OutcomeFlags(Episode{Outcome: 1}); got == nil || len(got) != 0 {
		t.Errorf("no steps: %#v, want an empty slice", got)
	}
}

func TestJudgeSourceString(t *testing.T) {
	for s, want := range map[Source]string{SourceJudged: "judged", SourceFallback: "fallback", SourceSkipped: "skipped", 7: "Source(7)"} {
		if s.String() != want {
			t.Errorf("%d.String() = %q, want %q", s, s.String(), want)
		}
	}
}

func TestJudgeFunc(t *testing.T) {
	var j Judge = JudgeFunc(func(_ context.Context, eps []Episode) ([]Judgment, error) {
		out := make([]Judgment, len(eps))
		for i, ep := range eps {
			out[i] = Judgment{Good: OutcomeFlags(ep)}
		}
		return out, nil
	})
	out, err := j.Judge(context.Background(), []Episode{{Steps: steps(2), Outcome: 1}})
	if err != nil || len(out) != 1 || out[0].Source != SourceJudged || !slices.Equal(out[0].Good, []bool{true, true}) {
		t.Fatalf("%+v, %v", out, err)
	}
}

// TestJudgeMetrics computes the §7.8 metrics of a hand-checked batch.
func TestJudgeMetrics(t *testing.T) {
	eps := []Episode{
		{Steps: steps(3), Outcome: 1},   // judged G B G
		{Steps: steps(2), Outcome: 0},   // judged B G
		{Steps: steps(4), Outcome: 1},   // fallback G G G G
		{Steps: steps(1), Outcome: 0},   // skipped B
		{Steps: steps(5), Outcome: 0.3}, // a custom judge's short answer G B
	}
	js := []Judgment{
		{Good: []bool{true, false, true}, Calls: 1, PromptTokens: 500, CompletionTokens: 40},
		{Good: []bool{false, true}, Calls: 2, PromptTokens: 800, CompletionTokens: 30},
		{Good: []bool{true, true, true, true}, Source: SourceFallback, Calls: 4, Err: errors.New("down")},
		{Good: []bool{false}, Source: SourceSkipped},
		{Good: []bool{true, false}, Calls: 1, PromptTokens: 100, CompletionTokens: 5},
	}
	got := JudgeMetrics(eps, js)
	// Attempted: episodes 0, 1, 2, 4 with 3, 2, 4, 5 steps.
	// Positive (outcome > 0): 0, 2, 4 → G 2+4+1 = 7, B 1+0+1 = 2.
	// Negative: 1, 3 → G 1, B 1+1 = 2.
	want := map[string]float64{
		"prm/parse_success_rate":      3.0 / 4,
		"prm/avg_steps_per_sample":    14.0 / 4,
		"prm/p95_steps_per_sample":    5, // sorted [2 3 4 5], index round(2.85) = 3
		"prm/flags_len_mismatch_rate": 1.0 / 4,
		"prm/pos_traj_bad_rate":       2.0 / 9,
		"prm/pos_traj_good_rate":      7.0 / 9,
		"prm/neg_traj_good_rate":      1.0 / 3,
		"prm/neg_traj_bad_rate":       2.0 / 3,
		"prm/good_steps_total":        8,
		"prm/bad_steps_total":         4,
		"prm/judge_calls":             8,
		"prm/judge_prompt_tokens":     1400,
		"prm/judge_completion_tokens": 75,
		"prm/judge_judged":            3,
		"prm/judge_fallbacks":         1,
		"prm/judge_skipped":           1,
	}
	if !maps.Equal(got, want) {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %v, want %v", k, got[k], v)
			}
		}
		t.Fatalf("metrics %v", got)
	}
	keys := slices.Sorted(maps.Keys(got))
	if wantKeys := JudgeMetricKeys(); !slices.Equal(keys, slices.Sorted(slices.Values(wantKeys))) {
		t.Fatalf("keys %v, JudgeMetricKeys %v", keys, wantKeys)
	}
	// An empty batch divides by max(1, n): every rate is 0.
	for k, v := range JudgeMetrics(nil, nil) {
		if v != 0 {
			t.Errorf("empty batch: %s = %v", k, v)
		}
	}
}

// TestJudgeMetricsP95 pins the reference's percentile: the element at
// round-half-even(0.95·(n−1)).
func TestJudgeMetricsP95(t *testing.T) {
	cases := []struct {
		v    []float64
		want float64
	}{
		{nil, 0},
		{[]float64{7}, 7},
		{[]float64{1, 2}, 2}, // round(0.95) = 1
		{[]float64{5, 1, 3, 2, 4, 6, 7, 8, 9, 10, 11}, 11},                                                                                 // round(9.5) = 10 (half to even)
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22}, 21},                                     // round(19.95) = 20
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}, 29}, // round(28.5) = 28
	}
	for _, c := range cases {
		if got := stepsP95(c.v); got != c.want {
			t.Errorf("p95(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}
