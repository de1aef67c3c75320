package trainer

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/internal/runlog"
)

// validate runs ValN rollouts of every validation task at the validation
// temperature and records avg@k, best@k, pass@k and the success rate at
// step. A rollout that failed counts as a failure with score 0.
func (r *run) validate(ctx context.Context, step int) (runlog.ValidationStats, error) {
	began := time.Now()
	k := r.cfg.Rollout.ValN
	rollouts := agentflow.Expand(r.val, k)
	for i := range rollouts {
		rollouts[i].Seed = rolloutSeed(r.cfg.Trainer.Seed, phaseValidate, step, i/k, i%k)
	}
	bar := runlog.NewProgress(r.out, int64(len(rollouts)), runlog.ProgressOptions{Description: fmt.Sprintf("validate@%d", step)})
	runner := r.runner(r.flow(r.policy, r.cfg.Rollout.ValTemperature))
	runner.Trajectories = r.valTrajectories
	results, _, err := r.runEpisodes(ctx, runner, rollouts)
	bar.Add(int64(len(rollouts)))
	bar.Finish()
	if err != nil {
		return runlog.ValidationStats{}, err
	}
	stats, err := validationStats(len(r.val), k, results)
	if err != nil {
		return runlog.ValidationStats{}, err
	}
	m := stats.Metrics("val/")
	m["time/validate_s"] = time.Since(began).Seconds()
	r.log.Info("trainer: validation", "step", step, "success", stats.Success, "pass@k", stats.PassAtK, "k", k)
	r.state.LastVal, r.state.LastValStep = &stats, step
	return stats, r.record(step, m)
}

// validationStats groups results by task (DataID) into k rollouts each;
// missing rollouts are failures.
func validationStats(tasks, k int, results []agentflow.Result) (runlog.ValidationStats, error) {
	grouped := make([][]runlog.Rollout, tasks)
	for i := range grouped {
		grouped[i] = make([]runlog.Rollout, k)
	}
	for _, res := range results {
		d := atoiOr(res.Trajectory.DataID, -1)
		j := atoiOr(res.Trajectory.RolloutID, -1)
		if d < 0 || d >= tasks || j < 0 || j >= k {
			return runlog.ValidationStats{}, fmt.Errorf("trainer: validation result with ids %q/%q out of range", res.Trajectory.DataID, res.Trajectory.RolloutID)
		}
		rw := res.Trajectory.Reward
		grouped[d][j] = runlog.Rollout{Score: rw.Outcome, Success: rw.SuccessRate >= 1}
	}
	return runlog.Validate(grouped, k)
}

// atoiOr parses s as an int, or returns def.
func atoiOr(s string, def int) int {
	if v, err := strconv.Atoi(s); err == nil {
		return v
	}
	return def
}
