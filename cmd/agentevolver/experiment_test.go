package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/org/agentevolver/experiment"
)

// exampleExperiment is the experiment file shipped in examples/experiments.
var exampleExperiment = filepath.Join("..", "..", "examples", "experiments", "grpo-seeds.yaml")

// TestExperimentQuick runs the quick version of the example experiment with
// the real trainer (a tiny model, two RL steps) and reads its comparison.
func TestExperimentQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two tiny models")
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := runExperiment(context.Background(), []string{"--config", exampleExperiment, "--quick", "--out", out}, nil, &stdout, &stderr)
	if err != nil {
		t.Fatalf("experiment --quick: %v\n%s", err, stderr.String())
	}
	c, err := experiment.ReadComparison(filepath.Join(out, "grpo-seeds-quick", experiment.ComparisonFile))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Quick || c.Name != "grpo-seeds-quick" || c.Steps != 2 || len(c.Arms) != 2 {
		t.Fatalf("comparison %+v", c)
	}
	for i, name := range []string{"grpo", "grpo-std"} {
		a := c.Arms[i]
		if a.Name != name || len(a.Seeds) != 1 || a.FinalMean == nil || a.FinalStd == nil || *a.FinalStd != 0 {
			t.Errorf("arm %d: %+v", i, a)
			continue
		}
		s := a.Seeds[0]
		if s.Seed != 1 || !s.OK() || s.WallSeconds <= 0 {
			t.Errorf("arm %s seed: %+v", name, s)
		}
		// Validation before RL and after each of the two steps.
		if len(s.ValSuccess) != 3 || s.ValSuccess[0].Step != 0 || s.ValSuccess[2].Step != 2 || s.ValSuccess[2].Value != *s.Final {
			t.Errorf("arm %s curve %v, final %v", name, s.ValSuccess, *s.Final)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "grpo-seeds-quick", experiment.PlotFile)); err != nil {
		t.Errorf("no plot: %v", err)
	}
	for _, want := range []string{"experiment grpo-seeds-quick: 2 RL steps per run", "grpo-std  1/1", "comparison in "} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
}

// TestExperimentDryRun checks every configuration of the full example
// experiment and lists its runs without training.
func TestExperimentDryRun(t *testing.T) {
	var stdout, stderr bytes.Buffer
	out := t.TempDir()
	if err := runExperiment(context.Background(), []string{"--config", exampleExperiment, "--dry-run", "--out", out}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("experiment --dry-run: %v\n%s", err, stderr.String())
	}
	text := stdout.String()
	if !strings.Contains(text, "experiment grpo-seeds: 2 arms × 5 seeds, 10 RL steps per run") ||
		!strings.Contains(text, filepath.Join(out, "grpo-seeds", "grpo-std", "seed-5")) || strings.Count(text, "\n") != 12 {
		t.Errorf("dry run printed:\n%s", text)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a dry run wrote %d entries", len(entries))
	}
}

func TestExperimentErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: bad\nseeds: [1]\narms: [{name: a, set: [rollout.nn=2]}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no config", nil, "--config is required"},
		{"missing file", []string{"--config", filepath.Join(dir, "none.yaml")}, "no such file"},
		{"unknown key in an arm", []string{"--config", bad, "--out", dir}, `arm "a"`},
		{"positional argument", []string{"--config", bad, "extra"}, "unexpected arguments"},
		{"bad log level", []string{"--config", bad, "--log-level", "loud"}, "bad --log-level"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		err := runExperiment(context.Background(), tt.args, nil, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"experiment", "--config", bad, "--out", dir}, nil, &stdout, &stderr); code != 1 {
		t.Errorf("exit code %d for an invalid experiment, want 1", code)
	}
}

// TestEveryExampleExperiment dry-runs every experiment file shipped in
// examples/experiments (every configuration of every arm must load) and
// runs its quick variant with the real trainer.
func TestEveryExampleExperiment(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "experiments", "*.yaml"))
	if err != nil || len(files) < 2 {
		t.Fatalf("experiment files %v, %v", files, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if err := runExperiment(context.Background(), []string{"--config", file, "--dry-run", "--out", t.TempDir()}, nil, &stdout, &stderr); err != nil {
				t.Fatalf("--dry-run: %v\n%s", err, stderr.String())
			}
			if testing.Short() {
				return
			}
			stdout.Reset()
			if err := runExperiment(context.Background(), []string{"--config", file, "--quick", "--out", t.TempDir()}, nil, &stdout, &stderr); err != nil {
				t.Fatalf("--quick: %v\n%s", err, stderr.String())
			}
			if !strings.Contains(stdout.String(), "comparison in ") {
				t.Errorf("stdout:\n%s", stdout.String())
			}
		})
	}
}
