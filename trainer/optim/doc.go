// Package optim turns the objective of package trainer/objective into
// optimiser steps of a policy whose weights live in a GoMLX context, for
// those who drive their own training loop; package trainer's Fit builds
// them from a run configuration.
//
// A [Policy] builds per-token log-probs of a batch's response tokens from
// the variables of whatever context it is given ([ModelPolicy] adapts the
// model package). An [Updater] takes PPO epochs over mini-batches of a
// [Batch], each optimiser step accumulating gradients over micro-batches,
// clipping their global norm and applying AdamW, and reports
// [StepMetrics]. A [Reference] is a frozen copy of the policy's weights
// for the KL loss ([NewContextReference]: a context already frozen, such
// as a LoRA policy with its adapters off, with no copy).
// [Updater.LogProbs] recomputes the old log-probs. [Supervised] takes
// masked cross-entropy steps for warm starts from demonstrations.
// [PadSamples] lays token samples out as a batch, with bucketed shapes so
// that graphs compile for a few shapes only.
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
package optim
