// Package trainer trains agents: Trainer.Fit runs a whole job, and the
// machinery under it turns the objective of package trainer/objective
// (the GRPO outcome advantage, the HET on/off-policy clipped policy loss,
// the loss aggregation modes, the KL penalties, as GoMLX graph functions)
// into optimiser steps of a policy whose weights live in a GoMLX context.
//
// # Layers
//
// The learning core has three layers, each importing only those above it:
//
//   - package trainer/objective: the objective, as GoMLX graphs, and its
//     host-side Compute* entry points; it imports nothing of the run, for
//     those who want only the GRPO/HET objective;
//   - package trainer/optim: the optimiser — batches, log-probs of a
//     Policy, the Updater (PPO epochs, micro-batches, clipping, AdamW),
//     the Reference and Supervised steps — for those who drive their own
//     loop;
//   - package trainer/checkpoint: saving, sealing, checking and restoring
//     the GoMLX state of a policy and its optimiser;
//   - run_*.go: the run — [Config], [Trainer.Fit], RL steps, validation,
//     the warm start, checkpoints, the environment and its failures, and
//     the [Hooks] where the self-evolving mechanisms plug in (they use only
//     this layer).
//
// # Training runs
//
// A [Config] (YAML sections trainer, data, env, model, rollout, actor,
// algorithm, warm_start; [DefaultConfig] holds the defaults and
// [LoadConfig] layers files, "--set a.b=c" overrides and ${...}
// placeholders over them) describes a run; [New] validates it and
// [Trainer.Fit] runs it:
//
//  1. an optional supervised warm start on the environment's expert
//     demonstrations (envservice.Expert), after which the policy is saved
//     as the frozen reference;
//  2. validation (avg@k, best@k, pass@k at the validation temperature);
//  3. RL steps: the step's tasks ([Hooks.Tasks] or the training split,
//     shuffled per epoch), n rollouts each through agentflow with the
//     in-process policy (model.Policy, concurrent episodes batched), the
//     samples padded to bucketed shapes, rewards on the last response
//     token, GRPO advantages grouped by task ([Hooks.Advantages] may
//     replace them), old and reference log-probs, and the [Updater];
//  4. validation every test_freq steps, atomic checkpoints every save_freq
//     steps, and at the end the final policy, metrics.jsonl, a PNG plot and
//     summary.json under trainer.output_dir.
//
// Metrics go to metrics.jsonl and to the trackers trainer.logger names
// (console, tensorboard; package runlog/track) and Options.Trackers; the
// episodes, with their token view, go to episodes.jsonl for the run viewer
// (trainer.episode_log; package runlog/episodelog, agentevolver view).
//
// Every episode is seeded from (seed, phase, step, task, rollout), so with
// serial rollouts (rollout.concurrency 1) a run resumed from a checkpoint
// (Options.Resume) reproduces the uninterrupted run bit for bit; with
// batched rollouts it is equal up to floating-point summation order.
// [Evaluate] validates a saved policy on any split.
//
// The environment is Options.Env (any envclient.Env, usually an
// envservice.Manager serving the caller's environment), an env service at
// env.url, or one built by name from Options.Environments (the command
// line passes the built-ins of package envs/builtin). The trainer runs
// every environment through envclient.Env and its optional capabilities,
// never through a concrete type; it imports the built-in environments'
// packages only for their configuration types, which its env section
// holds as they are (builtin.Config). Episodes that fail in the environment are never
// trained on or scored: they are counted per cause, and too many of them
// stop Fit with a [*FailureError] after a checkpoint. An unreachable
// environment or model endpoint is not a failure of the episodes: Fit
// discards the step (or validation) it spoiled, waits for the service with
// health checks and backoff, and runs it again with the same seeds; when
// trainer.outage_timeout passes it stops with an [*OutageError] after a
// checkpoint.
//
// Resume verifies a checkpoint before loading anything from it (its files
// against their manifest, its configuration against the run's, its
// variables against the configured model) and falls back to an older one
// when it is corrupt; with none usable it fails with
// [ErrCorruptCheckpoint] rather than train from fresh weights.
//
// # Graph functions
//
// The objective's graph functions and their golden checks against the
// reference live in package trainer/objective. Its configuration types
// (objective.PolicyLossConfig, objective.AggMode, objective.KLType,
// objective.GRPOConfig) are those of [UpdaterConfig] and the rl step.
//
// # Optimiser steps
//
// The optimiser lives in package trainer/optim (see its documentation):
// a Policy builds per-token log-probs, an Updater takes PPO epochs over
// mini-batches with gradient accumulation, clipping and AdamW, a Reference
// is the frozen policy of the KL loss, Supervised takes the warm start's
// cross-entropy steps. A run builds them from its [Config].
//
// The package is not safe for concurrent use of one context: updaters,
// references and the model's own methods must not run graphs on the same
// variables at the same time.
package trainer
