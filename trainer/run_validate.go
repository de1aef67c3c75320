package trainer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/runlog"
)

// validate runs ValN rollouts of every validation task at the validation
// temperature and records avg@k, best@k, pass@k, the success rate and the
// failed share at step, with note's outage cost when an outage preceded
// it. Episodes that failed in the environment are in no score; too many of
// them is an error (ErrTooManyFailures). An outage in any episode returns
// an *outageAttempt: nothing is recorded and the validation may run again.
func (r *run) validate(ctx context.Context, step int, note outageNote) (runlog.ValidationStats, error) {
	began := time.Now()
	k := r.cfg.Rollout.ValN
	rollouts := agentflow.Expand(r.val, k)
	for i := range rollouts {
		rollouts[i].Seed = rolloutSeed(r.cfg.Trainer.Seed, phaseValidate, step, i/k, i%k)
	}
	if err := r.allocateExperience(rollouts, k, r.cfg.Experience.ValAllocation(), phaseValidate, step); err != nil {
		return runlog.ValidationStats{}, err
	}
	bar := runlog.NewProgress(r.out, int64(len(rollouts)), runlog.ProgressOptions{Description: fmt.Sprintf("validate@%d", step)})
	runner := r.runner(r.flow(r.policy, r.cfg.Rollout.ValTemperature))
	results, failures, err := r.runEpisodes(ctx, runner, rollouts, "validation", step)
	bar.Add(int64(len(rollouts)))
	bar.Finish()
	// Taken whatever the outcome, so that a training step's counts never
	// include a validation's retrievals.
	retrievals := r.retrievalsSince()
	if err != nil {
		return runlog.ValidationStats{}, err
	}
	if err := failures.outageErr(len(rollouts)); err != nil {
		return runlog.ValidationStats{}, err
	}
	// Written here rather than by the Runner, so that an attempt an
	// outage spoiled leaves no episode behind.
	if r.valTrajectories != nil {
		w := agentflow.NewTrajectoryWriter(r.valTrajectories)
		for _, res := range results {
			if err := w.Write(res.Trajectory); err != nil {
				return runlog.ValidationStats{}, fmt.Errorf("trainer: validation trajectories: %w", err)
			}
		}
	}
	if err := failures.check("validation", step, len(rollouts), r.maxFailedRatio()); err != nil {
		return runlog.ValidationStats{}, err
	}
	stats, err := validationStats(len(r.val), k, failures.failed, results)
	if err != nil {
		return runlog.ValidationStats{}, err
	}
	m := stats.Metrics("val/")
	if turns, ok := turnsPerSuccess(results); ok {
		m["val/turns_per_success"] = turns
	}
	if r.injector != nil {
		m["val/exp_retrieval_hits"] = float64(retrievals.Hits)
		m["val/exp_retrieval_misses"] = float64(retrievals.Misses)
		m["val/exp_retrieval_errors"] = float64(retrievals.Errors)
	}
	m["time/validate_s"] = time.Since(began).Seconds()
	note.addMetrics(m, "val/skipped")
	r.log.Info("trainer: validation", "step", step, "success", stats.Success, "pass@k", stats.PassAtK, "k", k, "failed", stats.Failed)
	r.state.LastVal, r.state.LastValStep = &stats, step
	return stats, r.record(step, m)
}

// validationStats groups the finished results by task (DataID); failed
// rollouts are not results, and failed counts them. A task keeps its
// surviving rollouts, with k lowered to their number, and a task none of
// whose rollouts finished is left out (runlog.ValidateFinished).
func validationStats(tasks, k, failed int, results []agentflow.Result) (runlog.ValidationStats, error) {
	grouped := make([][]runlog.Rollout, tasks)
	for _, res := range results {
		d := atoiOr(res.Trajectory.DataID, -1)
		j := atoiOr(res.Trajectory.RolloutID, -1)
		if d < 0 || d >= tasks || j < 0 || j >= k {
			return runlog.ValidationStats{}, fmt.Errorf("trainer: validation result with ids %q/%q out of range", res.Trajectory.DataID, res.Trajectory.RolloutID)
		}
		rw := res.Trajectory.Reward
		grouped[d] = append(grouped[d], runlog.Rollout{Score: rw.Outcome, Success: rw.SuccessRate >= 1})
	}
	stats, err := runlog.ValidateFinished(grouped, k, failed)
	if errors.Is(err, runlog.ErrNoTasks) {
		return runlog.ValidationStats{}, fmt.Errorf("%w: no validation episode finished", ErrTooManyFailures)
	}
	return stats, err
}

// atoiOr parses s as an int, or returns def.
func atoiOr(s string, def int) int {
	if v, err := strconv.Atoi(s); err == nil {
		return v
	}
	return def
}

// turnsPerSuccess is the mean number of policy turns of the successful
// episodes; ok is false when none succeeded.
func turnsPerSuccess(results []agentflow.Result) (float64, bool) {
	var sum, n float64
	for _, res := range results {
		if res.Trajectory.Reward.SuccessRate >= 1 {
			sum += float64(countRole(res.Trajectory.Steps, agentevolver.RoleAssistant))
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / n, true
}
