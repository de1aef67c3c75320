// Package grader scores the episodes of training tasks: the graders of
// AgentEvolver's task manager (reference §4.8), each an
// agentflow.RewardCalculator selected per task by name, the task's
// Evaluator.
//
// [New] builds a grader by name (see [Names] and the Name constants):
// NameEnv is the environment's own sparse evaluation; the others are LLM
// judges over any llm.ChatModel. [NewByEvaluator] dispatches every episode
// to the grader its task names, so one flow can train on original tasks
// scored by their environment and synthetic tasks scored by a judge:
//
//	reward := grader.NewByEvaluator(grader.Config{Model: judge})
//	flow := &agentflow.Flow{Env: env, Policy: policy, Reward: reward}
//
// A judge renders the episode ([SplitTrajectory], [RenderSteps]; bounded by
// [Limits]), asks its model and reads the first <reward>NN</reward> of the
// reply with [ParseScore]: NN clamped to [0, 100] and divided by 100. The
// banded judges (llm-binary…) are told that a task they find achieved
// scores 60-100 and one they do not 0-40, never 41-59. In the reference's
// metrics an episode succeeds (success_rate) only at score 1, a judge's
// 100; agentevolver.NewReward applies that rule.
//
// What the caller must know, in order:
//
//  1. A judge failure is an error, never a silent 0. When the model cannot
//     answer (llm.ErrUnavailable once its client's retries are spent, a
//     refusal, a panic) or writes a <reward> tag that is no number
//     ([ErrMalformedScore], where the reference's float() raises), the
//     error matches [ErrJudgeFailed] and agentflow counts the episode as
//     failed (FailEvaluate): an unscorable episode never becomes training
//     data. The reference retried 64 times and then scored the empty reply
//     0, and its averaged judges scored a failed call 0.
//  2. A reply without a <reward> tag, or an empty reply, is the score 0,
//     as in the reference, with a warning in the log.
//  3. Retries are the model client's: llm/openai retries transient
//     failures with backoff and Retry-After, bounded by its RequestTimeout
//     and CallTimeout, which should be long enough for the judge's answer
//     (the banded judges allow 32,768 tokens). A grader makes one request
//     per judgment and bounds the requests in flight
//     (Config.MaxConcurrency).
//  4. The mean-constraint judges (llm-binary, llm-binary-gt,
//     avg-llm-binary-gt) show the judge a fast and a slow running mean of
//     its scores and ask it to keep its average near the slow one ±0.2.
//     The reference never updates them ([BUG/QUIRK]); here every score
//     does ([Judge.RunningMean]), per grader.
//
// The package also holds the LLM post-filter's validation step (reference
// §4.6 step 2): [ValidationMessages] builds the request and [ParseVerdict]
// reads the reply, keyword traps included.
//
// Deliberate differences from the reference, each documented where it
// lives: the llm judge is shown the task query (the reference overwrites
// it); long messages and trajectories are clipped ([Limits]); inline
// <think> blocks are dropped before the score is read; llm-binary does not
// require a ground truth it never shows; the env grader's reason is the
// default description.
package grader
