package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/org/agentevolver/models"
	"github.com/org/agentevolver/trainer"
)

func init() {
	register(command{
		name:    "eval",
		summary: "validate a saved policy on a split: k rollouts per task, avg@k, best@k, pass@k",
		run:     runEval,
	})
}

func runEval(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: agentevolver eval --checkpoint DIR [--split S] [--k K] [--tasks N] [flags]

Validate a saved policy (a run's final/ directory, any policy directory
in Hugging Face format, or a shipped policy such as builtin:toolworld-base)
on a task split: K rollouts per task, and the
success rate, avg@k, best@k and pass@k as one JSON line. The environment
and sampling settings come from the configuration, as for train.

Flags:
`)
		fs.PrintDefaults()
	}
	var configs, sets stringList
	fs.Var(&configs, "config", "YAML configuration file, layered over the defaults (repeatable)")
	fs.Var(&sets, "set", "override one key, for example --set rollout.val_temperature=0.7 (repeatable)")
	checkpoint := fs.String("checkpoint", "", "policy directory in Hugging Face format, e.g. runs/NAME/final, or a shipped policy, e.g. builtin:toolworld-base (required)")
	split := fs.String("split", "", "task split (default: data.val_split)")
	k := fs.Int("k", 0, "rollouts per task (default: rollout.val_n)")
	tasks := fs.Int("tasks", 0, "evaluate only the first N tasks of the split (default: data.val_tasks; 0 there means all)")
	trajectories := fs.String("trajectories", "", "write every episode as one JSON line to this file")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn or error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *checkpoint == "" {
		return fmt.Errorf("--checkpoint is required")
	}
	if *k < 0 || *tasks < 0 {
		return fmt.Errorf("--k and --tasks must be >= 0")
	}
	// A shipped policy (builtin:NAME, as model.path takes it) is
	// evaluated from its extracted directory.
	dir, err := models.Resolve(*checkpoint)
	if err != nil {
		return fmt.Errorf("--checkpoint: %w", err)
	}
	if err := checkCheckpointDir(dir); err != nil {
		return err
	}
	cfg, warnings, err := trainer.LoadConfigWarnings(trainer.DefaultConfig(), configs, sets)
	if err != nil {
		return err
	}
	printWarnings(stderr, "eval", warnings)
	cfg.Env.Token = envToken(cfg.Env.Token)
	log, err := newLogger(stderr, *logLevel)
	if err != nil {
		return err
	}
	eo := trainer.EvalOptions{Checkpoint: dir, Split: *split, K: *k, Tasks: *tasks}
	var trajFile *os.File
	if *trajectories != "" {
		if trajFile, err = os.Create(*trajectories); err != nil {
			return err
		}
		defer trajFile.Close()
		eo.Trajectories = trajFile
	}
	stats, err := trainer.Evaluate(ctx, cfg, trainerOptions(log, stderr), eo)
	if err != nil {
		return err
	}
	if trajFile != nil {
		if err := trajFile.Close(); err != nil {
			return fmt.Errorf("trajectories: %w", err)
		}
	}
	if *split == "" {
		*split = cfg.Data.ValSplit
	}
	if *tasks > stats.Tasks {
		fmt.Fprintf(stderr, "agentevolver eval: warning: --tasks %d asked for more tasks than split %q has: evaluated all %d\n", *tasks, *split, stats.Tasks)
	}
	enc := json.NewEncoder(stdout)
	return enc.Encode(map[string]any{
		"checkpoint": *checkpoint, "split": *split, "tasks": stats.Tasks, "k": stats.K,
		"success": stats.Success, "avg_at_k": stats.AvgAtK, "best_at_k": stats.BestAtK, "pass_at_k": stats.PassAtK,
	})
}

// checkCheckpointDir reports a --checkpoint that is not a directory, before
// anything inside it (tokenizer.json, config.json) is looked for.
func checkCheckpointDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--checkpoint %s: the directory does not exist", dir)
	case err != nil:
		return fmt.Errorf("--checkpoint: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("--checkpoint %s is not a directory (want a policy directory such as runs/NAME/final)", dir)
	}
	return nil
}
