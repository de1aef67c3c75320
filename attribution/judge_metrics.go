package attribution

import (
	"math"
	"slices"
)

// Metric keys of JudgeMetrics: the reference's names (§7.8), then the
// judge's cost, which the reference does not report.
var judgeMetricKeys = []string{
	"prm/parse_success_rate", "prm/avg_steps_per_sample", "prm/p95_steps_per_sample",
	"prm/flags_len_mismatch_rate",
	"prm/pos_traj_bad_rate", "prm/pos_traj_good_rate", "prm/neg_traj_good_rate", "prm/neg_traj_bad_rate",
	"prm/good_steps_total", "prm/bad_steps_total",
	"prm/judge_calls", "prm/judge_prompt_tokens", "prm/judge_completion_tokens",
	"prm/judge_judged", "prm/judge_fallbacks", "prm/judge_skipped",
}

// JudgeMetricKeys returns the keys JudgeMetrics reports, in a fixed order.
// The slice is new on every call.
func JudgeMetricKeys() []string { return slices.Clone(judgeMetricKeys) }

// JudgeMetrics computes the step-judge metrics of one batch from its
// episodes and their judgments (judgments[i] belongs to episodes[i]; the
// longer slice's extra entries are ignored).
//
// Over the episodes that were not skipped (the reference's evaluation
// tasks), with n their number and max(1, n) as every rate's denominator:
//   - prm/parse_success_rate: the share judged, whose labels came from the
//     judge. The reference counted every sample whose flag list had the
//     right length, fallbacks included, so its rate was 1 unless a request
//     raised; this one says how often the judge's answer was used;
//   - prm/avg_steps_per_sample and prm/p95_steps_per_sample: the mean and
//     the 95th percentile (the element at index round-half-even(0.95·(n−1))
//     of the sorted counts) of the number of steps;
//   - prm/flags_len_mismatch_rate: the share whose labels do not number the
//     steps.
//
// Over all episodes, a trajectory being positive when Outcome > 0 (the
// reference's consistency threshold, although fallbacks label by
// Outcome > 0.5): prm/pos_traj_bad_rate and prm/pos_traj_good_rate (BAD
// and GOOD labels among those of positive trajectories),
// prm/neg_traj_good_rate and prm/neg_traj_bad_rate (likewise for the
// others), prm/good_steps_total and prm/bad_steps_total (label counts).
//
// Cost and provenance, over all episodes: prm/judge_calls (model requests,
// retries included), prm/judge_prompt_tokens, prm/judge_completion_tokens,
// and the number of judgments of each Source (prm/judge_judged,
// prm/judge_fallbacks, prm/judge_skipped).
func JudgeMetrics(episodes []Episode, judgments []Judgment) map[string]float64 {
	n := min(len(episodes), len(judgments))
	var attempted, judged, mismatched, fallbacks, skips int
	var steps []float64
	var posGood, posBad, negGood, negBad int
	var calls, prompt, completion int
	for i := range n {
		ep, j := episodes[i], judgments[i]
		switch j.Source {
		case SourceJudged:
			judged++
		case SourceFallback:
			fallbacks++
		case SourceSkipped:
			skips++
		}
		if j.Source != SourceSkipped {
			attempted++
			steps = append(steps, float64(len(ep.Steps)))
			if len(j.Good) != len(ep.Steps) {
				mismatched++
			}
		}
		good := 0
		for _, g := range j.Good {
			if g {
				good++
			}
		}
		bad := len(j.Good) - good
		if ep.Outcome > 0 {
			posGood, posBad = posGood+good, posBad+bad
		} else {
			negGood, negBad = negGood+good, negBad+bad
		}
		calls += j.Calls
		prompt += j.PromptTokens
		completion += j.CompletionTokens
	}
	rate := func(k, of int) float64 { return float64(k) / float64(max(1, of)) }
	avg := 0.0
	for _, s := range steps {
		avg += s
	}
	avg /= float64(max(1, len(steps)))
	return map[string]float64{
		"prm/parse_success_rate":      rate(judged, attempted),
		"prm/avg_steps_per_sample":    avg,
		"prm/p95_steps_per_sample":    stepsP95(steps),
		"prm/flags_len_mismatch_rate": rate(mismatched, attempted),
		"prm/pos_traj_bad_rate":       rate(posBad, posGood+posBad),
		"prm/pos_traj_good_rate":      rate(posGood, posGood+posBad),
		"prm/neg_traj_good_rate":      rate(negGood, negGood+negBad),
		"prm/neg_traj_bad_rate":       rate(negBad, negGood+negBad),
		"prm/good_steps_total":        float64(posGood + negGood),
		"prm/bad_steps_total":         float64(posBad + negBad),
		"prm/judge_calls":             float64(calls),
		"prm/judge_prompt_tokens":     float64(prompt),
		"prm/judge_completion_tokens": float64(completion),
		"prm/judge_judged":            float64(judged),
		"prm/judge_fallbacks":         float64(fallbacks),
		"prm/judge_skipped":           float64(skips),
	}
}

// stepsP95 is the reference's _p95: the element at index
// round(0.95·(n−1)) of the sorted values (Python rounds half to even), 0
// for none.
func stepsP95(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[int(math.RoundToEven(0.95*float64(len(s)-1)))]
}
