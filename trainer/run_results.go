package trainer

import "github.com/org/agentevolver/runlog"

// Summary is the outcome of a run, as Fit returns it and writes it to
// SummaryFile: the seed, validation success before and after RL, the RL
// steps trained, the wall time, the episodes excluded as failed or
// discarded because of an outage, the outages waited out and the time
// waited, and one Phase per validation shown in the final table. It is runlog.Summary, named here so that a user of the
// trainer needs no other import.
type Summary = runlog.Summary

// Phase is one row of a Summary's table: validation at one point of the
// run ("after warm start" or "before RL", then "after RL").
type Phase = runlog.Phase

// ValidationStats are the statistics of one validation, as Evaluate
// returns them: tasks and rollouts scored, k, success rate, avg@k, best@k,
// pass@k, and the rollouts that failed in the environment (in no score).
type ValidationStats = runlog.ValidationStats
