package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/org/agentevolver/runlog"
	"github.com/org/agentevolver/trainer"
)

// withSummary wraps a fake trainer so that a run that finishes writes the
// trainer's summary.json, as trainer.Fit does.
func withSummary(train func(context.Context, trainer.Config) error) func(context.Context, trainer.Config) error {
	return func(ctx context.Context, cfg trainer.Config) error {
		if err := train(ctx, cfg); err != nil {
			return err
		}
		s := runlog.Summary{Seed: cfg.Trainer.Seed, RLSteps: cfg.Trainer.RLSteps, WallSeconds: 42}
		return s.WriteFile(filepath.Join(cfg.Trainer.OutputDir, trainer.SummaryFile))
	}
}

// TestRunResume checks Options.Resume: an experiment stopped part-way and
// run again trains only what did not finish (the interrupted run among
// them), reads the finished runs back with their wall time, and ends with
// the comparison an uninterrupted run gives; a run whose configuration
// changed since is trained again.
func TestRunResume(t *testing.T) {
	root := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := &fakeTrainer{t: t}
	stop := func(ctx context.Context, cfg trainer.Config) error {
		if cfg.Trainer.ExperimentName == "demo-grpo-std-s2" {
			cancel()
			return fmt.Errorf("trainer: %w", ctx.Err())
		}
		return first.train(ctx, cfg)
	}
	if _, err := Run(ctx, mustParse(t, twoArms), Options{OutputRoot: root, Train: withSummary(stop)}); !errors.Is(err, context.Canceled) {
		t.Fatalf("first Run: %v, want an interruption", err)
	}

	second := &fakeTrainer{t: t}
	var progress bytes.Buffer
	c, err := Run(context.Background(), mustParse(t, twoArms), Options{OutputRoot: root, Train: withSummary(second.train), Resume: true, Progress: &progress})
	if err != nil {
		t.Fatalf("resumed Run: %v", err)
	}
	if got, want := second.names(), []string{"demo-grpo-std-s2", "demo-grpo-s3", "demo-grpo-std-s3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("resumed Run trained %q, want %q", got, want)
	}
	if !strings.Contains(progress.String(), "[1/6] grpo seed 1: kept, finished earlier in") {
		t.Errorf("progress:\n%s", progress.String())
	}
	whole, err := Run(context.Background(), mustParse(t, twoArms), Options{OutputRoot: t.TempDir(), Train: withSummary((&fakeTrainer{t: t}).train)})
	if err != nil {
		t.Fatal(err)
	}
	for a := range c.Arms {
		if got, want := deref(c.Arms[a].FinalMean), deref(whole.Arms[a].FinalMean); got != want {
			t.Errorf("arm %s: resumed final mean %s, uninterrupted %s", c.Arms[a].Name, got, want)
		}
		if s := c.Arms[a].Seeds[0]; s.WallSeconds != 42 || len(s.ValSuccess) != 3 {
			t.Errorf("arm %s seed 1 read back: %+v", c.Arms[a].Name, s)
		}
	}

	third := &fakeTrainer{t: t}
	changed := strings.Replace(twoArms, "rollout.n=2", "rollout.n=4", 1)
	if _, err := Run(context.Background(), mustParse(t, changed), Options{OutputRoot: root, Train: withSummary(third.train), Resume: true}); err != nil {
		t.Fatal(err)
	}
	if len(third.runs) != 6 {
		t.Errorf("after a configuration change %d of 6 runs trained again, want all", len(third.runs))
	}
}

// TestRunResumeStart checks that a seed's arms are trained again when its
// start run is (here because the start layer changed), since they branch
// from its checkpoint, even though their own configuration did not change.
func TestRunResumeStart(t *testing.T) {
	root := t.TempDir()
	first := &fakeTrainer{t: t}
	if _, err := Run(context.Background(), mustParse(t, withStart), Options{OutputRoot: root, Train: withSummary(first.train)}); err != nil {
		t.Fatalf("first Run: %v", err)
	}
	same := &fakeTrainer{t: t}
	if _, err := Run(context.Background(), mustParse(t, withStart), Options{OutputRoot: root, Train: withSummary(same.train), Resume: true}); err != nil || len(same.runs) != 0 {
		t.Fatalf("resumed Run of the finished experiment: %v after %q trained", err, same.names())
	}
	changed := strings.Replace(withStart, "warm_start.demos=30", "warm_start.demos=31", 1)
	second := &fakeTrainer{t: t}
	if _, err := Run(context.Background(), mustParse(t, changed), Options{OutputRoot: root, Train: withSummary(second.train), Resume: true}); err != nil {
		t.Fatal(err)
	}
	if got, want := second.names(), []string{"st-start-s1", "st-a-s1", "st-b-s1", "st-start-s2", "st-a-s2", "st-b-s2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("resumed Run trained %q, want %q", got, want)
	}
}
