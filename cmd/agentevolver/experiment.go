package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/org/agentevolver/experiment"
	"github.com/org/agentevolver/trainer"
)

func init() {
	register(command{
		name:    "experiment",
		summary: "run every arm × seed of an experiment file and compare their validation success",
		run:     runExperiment,
	})
}

func runExperiment(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("experiment", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: agentevolver experiment --config FILE [--quick] [--seeds LIST] [--out DIR] [--resume] [--dry-run]")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Trains every arm of the experiment file with every seed and the same RL-step budget, one run")
		fmt.Fprintln(stderr, "after another, then writes DIR/<name>/comparison.json, DIR/<name>/comparison.png and a table")
		fmt.Fprintln(stderr, "on stdout. Exits non-zero if any run failed.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	path := fs.String("config", "", "experiment file (required; see examples/experiments)")
	quick := fs.Bool("quick", false, "run the file's CI-sized quick version (under <name>-quick)")
	out := fs.String("out", experiment.DefaultOutputRoot, "directory to write the experiment under")
	dryRun := fs.Bool("dry-run", false, "check every configuration and list the runs without training")
	seeds := fs.String("seeds", "", "comma-separated seeds that replace the file's, e.g. 6,7,8,9,10 to replicate a result on seeds never run (not with --quick)")
	resume := fs.Bool("resume", false, "keep the runs an earlier invocation with the same file and --out finished (same resolved configuration) and train only the others, e.g. after an interruption")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn or error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *path == "" {
		return errors.New("--config is required")
	}
	log, err := newLogger(stderr, *logLevel)
	if err != nil {
		return err
	}
	f, err := experiment.Load(*path)
	if err != nil {
		return err
	}
	if *seeds != "" {
		if *quick {
			return errors.New("--seeds replaces the full run's seeds; a quick run has its own (quick.seeds)")
		}
		if f.Seeds, err = parseSeeds(*seeds); err != nil {
			return err
		}
	}
	opts := experiment.Options{
		Quick:      *quick,
		OutputRoot: *out,
		Resume:     *resume,
		Logger:     log,
		Output:     stdout,
		Progress:   stderr,
		// Each run's progress and summary go to stderr, so that stdout
		// holds the comparison alone.
		TrainerOptions: func(trainer.Config) trainer.Options { return trainerOptions(log, stderr) },
	}
	plan, err := experiment.NewPlan(f, opts)
	if err != nil {
		return err
	}
	if *dryRun {
		return printPlan(stdout, plan)
	}
	_, err = plan.Run(ctx, opts)
	fmt.Fprintf(stdout, "\ncomparison in %s\n", filepath.Join(plan.Dir, experiment.ComparisonFile))
	return err
}

// printPlan lists the runs of a plan.
func printPlan(w io.Writer, p experiment.Plan) error {
	starts := ""
	if slices.ContainsFunc(p.Jobs, func(j experiment.Job) bool { return j.Start }) {
		starts = " after a start run per seed (no RL step; every arm of the seed starts from its policy)"
	}
	fmt.Fprintf(w, "experiment %s: %d arms × %d seeds%s, %d RL steps per run, results in %s\n", p.Name, len(p.Arms), len(p.Seeds), starts, p.Steps, p.Dir)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tarm\tseed\toutput")
	for i, j := range p.Jobs {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\n", i+1, j.Arm, j.Seed, j.Config.Trainer.OutputDir)
	}
	return tw.Flush()
}

// parseSeeds reads a comma-separated list of seeds.
func parseSeeds(list string) ([]int64, error) {
	var seeds []int64
	for _, field := range strings.Split(list, ",") {
		seed, err := strconv.ParseInt(strings.TrimSpace(field), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--seeds %q: %q is not an integer", list, field)
		}
		seeds = append(seeds, seed)
	}
	return seeds, nil
}
