// Package objective is the learning objective of GRPO-style training as
// GoMLX graph functions: the GRPO outcome advantage grouped by task
// ([GRPOAdvantages], with [GroupIndex] for the groups), the HET
// on/off-policy clipped policy loss ([PolicyLoss]: PPO's clip with dual
// clip on samples the policy generated as it is trained, a separate upper
// clip on samples whose experience was stripped), the reference's four
// loss aggregation modes ([AggregateLoss], [AggMode]) and its KL penalties
// ([KLPenalty], [KLType]). They reproduce the reference implementation
// (reference §6 and §8) and are checked against its golden fixtures.
//
// The graph functions take and return *graph.Node, for use inside other
// graphs; configuration errors (an unknown aggregation mode or KL type,
// bad clip ranges) and misshaped inputs come back as errors. Their
// Compute* twins ([ComputeGRPOAdvantages], [ComputePolicyLoss],
// [ComputeAggregateLoss], [ComputeKLPenalty]) run them on host matrices
// and return errors only, GoMLX panics included ([ErrGraph]).
//
// [AggregateOver] and [PolicyLossOver] take the [Totals] an aggregation
// divides by, so that the micro-batches of one optimiser step contribute
// exact shares of the whole mini-batch's objective: package trainer's
// Updater accumulates gradients with them.
//
// The package imports nothing of a training run (no model, environment or
// configuration file), so a user who wants only the objective imports it
// alone.
package objective
