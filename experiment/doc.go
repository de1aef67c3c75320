// Package experiment measures whether a change to training helps: it runs
// several variants of one training job ("arms") with the same seeds and the
// same RL-step budget, and compares their held-out validation success as a
// mean and a spread over seeds rather than as one lucky run.
//
// An experiment file names a shared base configuration, the arms (each a
// configuration layer over the base), the seeds and the budget:
//
//	name: grpo-seeds
//	seeds: [1, 2, 3]
//	arms:
//	  - name: grpo
//	  - name: grpo-std
//	    config: {algorithm: {norm_adv_by_std_in_grpo: true}}
//	quick:
//	  seeds: [1]
//	  steps: 2
//	  set: [warm_start.steps=2, data.val_tasks=4]
//
// [Load] parses it strictly; [NewPlan] resolves every arm × seed into a
// complete, validated trainer configuration before anything trains, so a
// typo in the last arm costs a second, not an hour; [Run] (or [Plan.Run])
// trains the runs one after another, each in its own emptied directory
// <root>/<name>/<arm>/seed-<seed>, and reads each run's validation curve
// from its metrics log. A run that fails is recorded with its error and the
// others go on; cancelling the context stops the run in progress and keeps
// what finished.
//
// The results go to <root>/<name>: comparison.json (a [Comparison]: per arm
// the per-seed validation curves, final values and wall times, and the
// final mean and sample standard deviation), comparison.png (each arm's
// mean validation curve with a min-max band over seeds, see [WritePlot]),
// and a table for people ([WriteTable]). Both files are rewritten after
// every run.
//
// A file may also have a start layer (File.Start): trained once per seed
// with no RL step, it makes the policy every arm of that seed starts from,
// so that arms that differ in their training tasks still share one warm
// start.
//
// The quick version of a file (Options.Quick) runs its quick seeds and
// steps with its quick layer applied last, under <name>-quick, so a test or
// CI job can check that an experiment runs end to end in seconds without
// touching the real results. Its numbers measure nothing.
//
// The command line runs experiments with "agentevolver experiment --config
// FILE [--quick]"; examples/experiments holds experiment files.
package experiment
