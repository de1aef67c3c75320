// Package trainer holds the learning core of AgentEvolver: the GRPO
// outcome advantage, the HET on/off-policy clipped policy loss, the loss
// aggregation modes, the KL penalties and the entropy bonus as GoMLX graph
// functions, and the machinery that turns them into optimiser steps of a
// policy whose weights live in a GoMLX context.
//
// # Graph functions
//
// [GRPOAdvantages], [PolicyLoss], [AggregateLoss], [KLPenalty] and
// [MaskedMean] take and return *graph.Node, for use inside other graphs.
// They reproduce the reference implementation (reference §6 and §8) and
// are checked against its golden fixtures. Configuration errors (an
// unknown aggregation mode or KL type, bad clip ranges) come back as
// errors; like every GoMLX op they panic on misshaped nodes built
// elsewhere, which graph.Exec recovers. [ComputeGRPOAdvantages],
// [ComputePolicyLoss], [ComputeAggregateLoss] and [ComputeKLPenalty] run
// them on host matrices and return errors only.
//
// # Optimiser steps
//
// A [Policy] builds per-token log-probs of a batch's response tokens from
// the variables of whatever context it is given ([ModelPolicy] adapts the
// model package). An [Updater] takes PPO epochs over mini-batches of a
// [Batch], each optimiser step accumulating gradients over micro-batches,
// clipping their global norm and applying AdamW, and reports
// [StepMetrics]. A [Reference] is a frozen copy of the policy's weights for
// the KL loss; [Updater.LogProbs] recomputes the old log-probs.
// [Supervised] takes masked cross-entropy steps for warm starts from
// demonstrations.
//
// Micro-batches contribute exact shares of the whole mini-batch's
// objective (every aggregation divides by mini-batch totals), so gradient
// accumulation gives the same step as one large batch in every
// aggregation mode. The reference scales each micro-batch's own aggregate
// by 1/k, which agrees only when micro-batches hold equally many loss
// tokens; this package implements the intended whole-batch objective.
//
// The package is not safe for concurrent use of one context: updaters,
// references and the model's own methods must not run graphs on the same
// variables at the same time.
package trainer
