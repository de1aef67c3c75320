// Package builtin is the one place where the environments built into
// agentevolver are registered.
//
// The trainer runs any envservice.Environment, and what it needs beyond
// the envclient.Env contract (demonstrations for the warm start, a corpus
// for a learned tokenizer, task difficulties) it finds as optional
// capabilities of that environment (see envservice's capabilities.go).
// Something still has to know which environments exist and how to build
// one from the env section of a configuration; that is this package. Each
// environment owns its configuration type in its own package (with the
// YAML keys of its section); Config gathers them, and the trainer's env
// section embeds it, so that a run configuration holds them as they are.
// This package imports no trainer: the command line (train, eval,
// serve-env, experiment) opens environments through it, and hands
// Environments() to the trainer, whose in-process and companion services
// build the configured environment from those factories.
//
// Environments is an allow-list: a name not registered here is never
// opened, and nothing is loaded dynamically. Each call returns a fresh map,
// so callers may add their own environments to it (or remove some) without
// affecting anyone else:
//
//	envs := builtin.Environments()
//	envs["myenv"] = openMyEnv // a builtin.Factory
//	opts := trainer.Options{Environments: envs}
//
// A factory returns the environment itself, not a wrapper, so that its
// optional capabilities stay visible. Among them, envservice.ProcessBacked
// tells a Manager that each instance is an operating-system process
// (textgame, and mcp with a stdio server); serve-env holds those to a
// lower limit (--max-process-instances). An environment of your own that
// starts a process per instance should implement it too.
//
// The built-in environments are:
//
//   - toolworld (package github.com/org/agentevolver/envs/toolworld): a
//     deterministic multi-turn tool-use environment over four small apps,
//     configured by the env.toolworld section (toolworld.Config). It
//     implements every optional capability.
//   - avalon (package github.com/org/agentevolver/arena/avalon): one seat
//     of The Resistance: Avalon trained against fixed baseline models,
//     configured by the env.avalon section (avalon.EnvConfig; its snapshots are loaded with Config.LoadPolicy); train
//     it with rollout.context_template per_call.
//   - diplomacy (package github.com/org/agentevolver/arena/diplomacy/dipgame):
//     one power of Diplomacy trained against fixed baseline models (the
//     greedy and random bots) or snapshots, configured by the
//     env.diplomacy section (dipgame.EnvConfig); train it with
//     rollout.context_template per_call.
package builtin
