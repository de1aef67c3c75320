// Package agentflow runs agent episodes: a policy (llm.ChatModel) talks to
// an environment (envclient.Env) turn by turn through a
// contextmgr.ContextManager, the episode is scored, and its trajectory and
// training samples are returned (reference §2).
//
// Flow.Run runs one episode. It creates an environment instance under a
// random id, checks the environment's initial messages (a system prompt and
// the task), optionally lets an ExperienceInjector add retrieved experience
// to the task, then alternates policy turns and environment steps until the
// environment declares the episode over, the step budget is spent, the
// context window is full or the environment fails. A RewardCalculator
// (by default the environment's own evaluation) scores the episode. The
// instance is always released, with a fresh short deadline when the
// caller's context was cancelled.
//
// What the Flow takes from each environment step: the observation (the
// texts of StepResult.State, see Observation) and IsTerminated. Step
// rewards are not supported: an episode is scored once, when it ends, by
// the Flow's RewardCalculator (by default the environment's Evaluate), and
// StepResult.Reward is ignored. A step that does not end the episode but
// returns a non-zero reward, or no observation at all, is accepted with a
// warning logged once (see ContractWarnings; a trainer warns once per
// run).
//
// Runner.Run runs many episodes, typically n rollouts of each task of a
// training batch (Expand), with bounded concurrency and bounded retries
// with exponential backoff, and returns the results in (data id, rollout id)
// order. TrajectoryWriter and ReadTrajectories store trajectories as JSON
// lines.
//
// # The rollout engine
//
// Rollouts are assembled from pieces in several packages; this is where
// each lives:
//
//   - the episode loop and its fan-out: Flow and Runner, here;
//   - what the policy sees and what trains: a contextmgr.ContextManager per
//     episode (contextmgr), chosen by rollout.context_template or the
//     trainer's Options.NewContext;
//   - experience in the prompt: an ExperienceInjector (experience.Injector
//     over a pool);
//   - the sampler: any llm.ChatModel. In process it is model.Policy
//     (model/policy.go and model/batcher.go: the prefix cache and the
//     continuous batching of concurrent episodes); on servers it is
//     llm/fleet.Fleet (load balancing, health checks, LoRA adapters loaded
//     at run time), kept on the current step's adapter by a
//     fleet.Publisher, which publishes it before a step's first request;
//     any OpenAI-compatible endpoint is llm/openai.Client;
//   - scoring: a RewardCalculator, by default the environment's Evaluate.
//
// docs/rollouts.md draws the same map with the data that flows through it.
//
// The reference's quirks are fixed here: an environment error ends the
// episode as an error (Trajectory.Error, IsTerminated false) instead of as a
// finished episode, tool-role observations are converted to user turns
// instead of crashing the converter, and failed episodes are retried a
// bounded number of times instead of forever.
package agentflow
