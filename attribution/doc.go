// Package attribution is self-attributing: it learns which steps of a long
// episode helped, in the manner of AgentEvolver's ADCA-GRPO
// (attribution-driven credit assignment).
//
// A judge labels every step of a trajectory GOOD or BAD. [ComputeADCA] then
// turns those labels and the trajectory outcomes into token-level
// advantages that replace the GRPO ones: per-step process rewards are
// z-scored within each task group, fused with the group-standardised
// outcome (alpha weights the process part), summed from each step to the
// end of the trajectory and broadcast to the tokens of the step. The
// per-batch maths runs as GoMLX graphs on the caller's backend (the
// pure-Go one or XLA); ragged bookkeeping stays on the host.
//
// A [Judge] labels a batch of [Episode]s. [LLMJudge] is the reference's
// judge over any llm.ChatModel: one request per episode with the prompt of
// [StepEvalMessages], answers read by [ParseJudgments], bounded
// concurrency, retries that tell rate limits from refusals, and a fallback
// to the outcome's sign ([OutcomeFlags]) when a judgment cannot be had.
// [OracleJudge] needs no LLM: it asks an environment's
// envservice.StepOracle (toolworld has one) for exact labels, so the
// mechanism can be studied and tested for free. [JudgeMetrics] reports the
// labels' consistency and what judging cost.
//
// The trainer wires both halves from its
// attribution_driven_credit_assignment configuration; nothing here
// depends on it.
package attribution
