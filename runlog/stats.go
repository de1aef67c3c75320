package runlog

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// PassAtK is the unbiased estimator of pass@k from n samples of one task of
// which c succeeded (Chen et al., 2021): the probability that at least one of
// k samples drawn without replacement from the n succeeds,
//
//	1 - C(n-c, k) / C(n, k) = 1 - prod_{i=n-c+1}^{n} (1 - k/i),
//
// computed in the product form, which never forms the huge binomial
// coefficients. It returns [ErrInvalidCount] unless n >= 1 and 0 <= c <= n,
// and [ErrInvalidK] unless 1 <= k <= n.
func PassAtK(n, c, k int) (float64, error) {
	if n < 1 || c < 0 || c > n {
		return 0, fmt.Errorf("%w: n=%d c=%d", ErrInvalidCount, n, c)
	}
	if k < 1 || k > n {
		return 0, fmt.Errorf("%w: n=%d k=%d", ErrInvalidK, n, k)
	}
	if n-c < k {
		// Every draw of k samples contains a success.
		return 1, nil
	}
	fail := 1.0
	for i := n - c + 1; i <= n; i++ {
		fail *= 1 - float64(k)/float64(i)
	}
	return 1 - fail, nil
}

// BestAtK is the expected best score among k of a task's n scores drawn
// without replacement: with the scores sorted ascending, s(1) <= ... <= s(n),
//
//	sum_i s(i) * C(i-1, k-1) / C(n, k),
//
// which is the plain maximum when k == n and equals [PassAtK] when scores are
// 1 for success and 0 for failure. The weights are built by the ratio
// C(i-2, k-1)/C(i-1, k-1) = (i-k)/(i-1) from C(n-1, k-1)/C(n, k) = k/n, so no
// binomial coefficient is formed.
//
// The reference estimates best@k by bootstrap (1000 resamples with
// replacement); this exact, deterministic expectation is used instead and
// agrees with the plain max of k rollouts, the paper's best@k, when n == k.
// It returns [ErrInvalidK] unless 1 <= k <= len(scores) and [ErrNonFinite]
// for a NaN or infinite score.
func BestAtK(scores []float64, k int) (float64, error) {
	n := len(scores)
	if n < 1 {
		return 0, fmt.Errorf("%w: no scores", ErrInvalidCount)
	}
	if k < 1 || k > n {
		return 0, fmt.Errorf("%w: n=%d k=%d", ErrInvalidK, n, k)
	}
	sorted := slices.Clone(scores)
	for _, s := range sorted {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return 0, fmt.Errorf("%w: score %v", ErrNonFinite, s)
		}
	}
	slices.Sort(sorted)
	weight := float64(k) / float64(n) // P(the largest of the k is s(n))
	best := 0.0
	for i := n; i >= k; i-- {
		best += weight * sorted[i-1]
		if i > 1 {
			weight *= float64(i-k) / float64(i-1)
		}
	}
	return best, nil
}

// Rollout is the outcome of one validation rollout.
type Rollout struct {
	// Score is the rollout's reward (e.g. the env's outcome).
	Score float64
	// Success reports whether the rollout solved the task (in the reference,
	// score >= 1).
	Success bool
}

// ValidationStats summarises validation over tasks with several rollouts
// each. Every statistic is a mean over tasks of a per-task value, so each
// task weighs the same whatever its number of rollouts.
type ValidationStats struct {
	// Tasks is the number of tasks, Rollouts the number of rollouts in all.
	Tasks, Rollouts int
	// K is the k of the @k statistics.
	K int
	// Success is the mean per-task fraction of successful rollouts.
	Success float64
	// AvgAtK is the mean per-task mean score (avg@k; with n >= k rollouts
	// the mean of all n estimates the mean of k without bias).
	AvgAtK float64
	// BestAtK is the mean per-task [BestAtK] of the scores.
	BestAtK float64
	// PassAtK is the mean per-task [PassAtK] of the successes.
	PassAtK float64
	// Failed is the number of rollouts that failed in the environment:
	// they are in no statistic above (a task whose rollouts all failed is
	// not among Tasks).
	Failed int
}

// FailedRate is the share of all rollouts, failed ones included, that
// failed; 0 when there were none.
func (s ValidationStats) FailedRate() float64 {
	if n := s.Rollouts + s.Failed; n > 0 {
		return float64(s.Failed) / float64(n)
	}
	return 0
}

// Validate computes [ValidationStats] for tasks[t] holding the rollouts of
// task t. Every task needs at least k rollouts. It returns [ErrNoTasks] for
// no tasks, [ErrInvalidK] for k < 1 or a task with fewer than k rollouts, and
// [ErrNonFinite] for a NaN or infinite score.
func Validate(tasks [][]Rollout, k int) (ValidationStats, error) {
	return validate(tasks, k, false)
}

// ValidateFinished is [Validate] over the rollouts that finished when failed
// others did not (they failed in the environment and have no score): a task
// keeps the rollouts it has, with k lowered to their number, and a task with
// none is left out. Failed is recorded in the statistics. It returns
// [ErrNoTasks] when no task has a rollout.
func ValidateFinished(tasks [][]Rollout, k, failed int) (ValidationStats, error) {
	stats, err := validate(tasks, k, true)
	stats.Failed = failed
	return stats, err
}

// validate is Validate; with partial, tasks may have fewer than k rollouts
// (k is lowered for them) or none (they are skipped).
func validate(tasks [][]Rollout, k int, partial bool) (ValidationStats, error) {
	stats := ValidationStats{K: k}
	scores := make([]float64, 0, k)
	for t, rollouts := range tasks {
		n := len(rollouts)
		taskK := k
		if partial {
			if n == 0 {
				continue
			}
			taskK = min(k, n)
		}
		if taskK < 1 || taskK > n {
			return ValidationStats{}, fmt.Errorf("task %d: %w: n=%d k=%d", t, ErrInvalidK, n, k)
		}
		scores = scores[:0]
		successes, sum := 0, 0.0
		for _, r := range rollouts {
			scores = append(scores, r.Score)
			sum += r.Score
			if r.Success {
				successes++
			}
		}
		best, err := BestAtK(scores, taskK)
		if err != nil {
			return ValidationStats{}, fmt.Errorf("task %d: %w", t, err)
		}
		pass, err := PassAtK(n, successes, taskK)
		if err != nil {
			return ValidationStats{}, fmt.Errorf("task %d: %w", t, err)
		}
		stats.Tasks++
		stats.Rollouts += n
		stats.Success += float64(successes) / float64(n)
		stats.AvgAtK += sum / float64(n)
		stats.BestAtK += best
		stats.PassAtK += pass
	}
	if stats.Tasks == 0 {
		return ValidationStats{}, ErrNoTasks
	}
	tasksF := float64(stats.Tasks)
	stats.Success /= tasksF
	stats.AvgAtK /= tasksF
	stats.BestAtK /= tasksF
	stats.PassAtK /= tasksF
	return stats, nil
}

// Metrics returns the statistics as metrics-log values named
// prefix+"success", prefix+"avg@K", prefix+"best@K", prefix+"pass@K" and
// prefix+"failed" (the failed share of rollouts), e.g. "val/pass@8" for
// prefix "val/" and K 8.
func (s ValidationStats) Metrics(prefix string) map[string]float64 {
	k := strconv.Itoa(s.K)
	return map[string]float64{
		prefix + "success":   s.Success,
		prefix + "avg@" + k:  s.AvgAtK,
		prefix + "best@" + k: s.BestAtK,
		prefix + "pass@" + k: s.PassAtK,
		prefix + "failed":    s.FailedRate(),
	}
}
