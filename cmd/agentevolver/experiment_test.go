package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
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
	// --seeds replaces the file's seeds.
	stdout.Reset()
	if err := runExperiment(context.Background(), []string{"--config", exampleExperiment, "--seeds", "6, 7", "--dry-run", "--out", out}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("experiment --seeds --dry-run: %v\n%s", err, stderr.String())
	}
	if text := stdout.String(); !strings.Contains(text, "2 arms × 2 seeds") || !strings.Contains(text, filepath.Join(out, "grpo-seeds", "grpo-std", "seed-7")) {
		t.Errorf("dry run with --seeds 6,7 printed:\n%s", text)
	}
	// A file with a start layer lists each seed's start run first.
	stdout.Reset()
	file := filepath.Join("..", "..", "examples", "experiments", "adca-scratch.yaml")
	if err := runExperiment(context.Background(), []string{"--config", file, "--dry-run", "--out", out}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("experiment --dry-run: %v\n%s", err, stderr.String())
	}
	text = stdout.String()
	if !strings.Contains(text, "2 arms × 5 seeds after a start run per seed") || !strings.Contains(text, "1    start  1     "+filepath.Join(out, "adca-scratch", "start", "seed-1")) {
		t.Errorf("dry run printed:\n%s", text)
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
		{"seeds not integers", []string{"--config", exampleExperiment, "--seeds", "6,x", "--dry-run", "--out", dir}, `"x" is not an integer`},
		{"seeds repeated", []string{"--config", exampleExperiment, "--seeds", "6,6", "--dry-run", "--out", dir}, "seed 6 is repeated"},
		{"seeds with quick", []string{"--config", exampleExperiment, "--seeds", "6", "--quick", "--out", dir}, "a quick run has its own"},
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
			if testing.Short() || raceDetector {
				// Every quick run trains models: 407 s under the race
				// detector, a fraction of that without; .ci/run runs
				// this test again without -race, and the runner's and
				// trainer's concurrency is race-tested in their packages.
				return
			}
			stdout.Reset()
			out := t.TempDir()
			if err := runExperiment(context.Background(), []string{"--config", file, "--quick", "--out", out}, nil, &stdout, &stderr); err != nil {
				t.Fatalf("--quick: %v\n%s", err, stderr.String())
			}
			if !strings.Contains(stdout.String(), "comparison in ") {
				t.Errorf("stdout:\n%s", stdout.String())
			}
			if check, ok := quickMechanismChecks[filepath.Base(file)]; ok {
				check(t, out)
			}
		})
	}
}

// quickMechanismChecks check, per experiment file, that its quick run
// exercises the mechanism it measures, so that CI runs that code path and
// not just the configuration.
var quickMechanismChecks = map[string]func(t *testing.T, out string){
	// HET: experience retrieved, stripped from the trained samples, and
	// the off-policy loss computed with a gradient (groups that differ).
	"het.yaml": func(t *testing.T, out string) {
		for _, arm := range []string{"ei", "het"} {
			m := quickMetrics(t, out, "het-quick", arm)
			if maxOf(m, "exp/retrieval_hits") == 0 || maxOf(m, "actor/exp_token_share") == 0 {
				t.Errorf("%s: no experience retrieved or stripped: %v", arm, m)
			}
			if minOf(m, "rl/no_signal") == 1 || maxAbsOf(m, "actor/off_pg_loss") == 0 || maxOf(m, "actor/grad_norm") == 0 {
				t.Errorf("%s: the off-policy path computed no gradient (no_signal, off_pg_loss, grad_norm): %v", arm, m)
			}
		}
	},
	// The ablation: every arm trains (a gradient), questioning mixes
	// synthetic tasks in, navigating retrieves and strips experience and
	// computes the off-policy loss, attributing fuses step labels.
	"ablation.yaml": func(t *testing.T, out string) { checkAblation(t, out, "ablation-quick") },
	// The same table from one warm start per seed.
	"ablation-scratch.yaml": func(t *testing.T, out string) {
		checkStartedFromStart(t, out, "ablation-scratch-quick", "base", "q", "q-n", "q-a", "q-n-a")
		checkAblation(t, out, "ablation-scratch-quick")
	},
	// ADCA on unsolved tasks: the ADCA arm fuses step labels and has a
	// gradient (its step labels give a signal where GRPO's outcomes may
	// not).
	"adca-unsolved.yaml": func(t *testing.T, out string) {
		m := quickMetrics(t, out, "adca-unsolved-quick", "adca")
		if len(m["prm/alpha"]) == 0 || maxOf(m, "actor/grad_norm") <= 0 {
			t.Errorf("adca: no prm/ metrics or no gradient: %v", m["actor/grad_norm"])
		}
	},
	// Questioning: the arm with synthesis trains on synthetic tasks.
	"questioning.yaml": func(t *testing.T, out string) {
		m := quickMetrics(t, out, "questioning-quick", "human-20-synth")
		if maxOf(m, "tasks/synthetic_share") <= 0 || maxOf(m, "actor/grad_norm") <= 0 {
			t.Errorf("human-20-synth: synthetic share %v, gradient norm %v", m["tasks/synthetic_share"], m["actor/grad_norm"])
		}
	},
	// The fifth regime: one warm start per seed (the start run), every arm
	// starting from its policy; the synthesis arm trains on synthetic
	// tasks, the ADCA arm fuses step labels.
	"questioning-scratch.yaml": func(t *testing.T, out string) {
		checkStartedFromStart(t, out, "questioning-scratch-quick", "human-20", "human-20-synth", "human-all")
		m := quickMetrics(t, out, "questioning-scratch-quick", "human-20-synth")
		if maxOf(m, "tasks/synthetic_share") <= 0 {
			t.Errorf("human-20-synth: synthetic share %v", m["tasks/synthetic_share"])
		}
	},
	"adca-scratch.yaml": func(t *testing.T, out string) {
		checkStartedFromStart(t, out, "adca-scratch-quick", "grpo", "adca")
		m := quickMetrics(t, out, "adca-scratch-quick", "adca")
		if len(m["prm/alpha"]) == 0 {
			t.Errorf("adca: no prm/ metrics: %v", m)
		}
	},
	"adca-fewrollouts.yaml": func(t *testing.T, out string) {
		checkStartedFromStart(t, out, "adca-fewrollouts-quick", "grpo", "adca")
		m := quickMetrics(t, out, "adca-fewrollouts-quick", "adca")
		if len(m["prm/alpha"]) == 0 {
			t.Errorf("adca: no prm/ metrics: %v", m)
		}
	},
	"adca-multicall.yaml": func(t *testing.T, out string) {
		checkStartedFromStart(t, out, "adca-multicall-quick", "grpo", "adca")
		m := quickMetrics(t, out, "adca-multicall-quick", "adca")
		if len(m["prm/alpha"]) == 0 {
			t.Errorf("adca: no prm/ metrics: %v", m)
		}
	},
	// Navigating from a start that has seen experience: every experience
	// arm starts from a copy of the start's pool and retrieves from it; EI
	// and HET strip it and compute the off-policy loss.
	"navigating-scratch.yaml": func(t *testing.T, out string) {
		checkStartedFromStart(t, out, "navigating-scratch-quick", "none", "ec", "ei", "het")
		for _, arm := range []string{"ec", "ei", "het"} {
			m := quickMetrics(t, out, "navigating-scratch-quick", arm)
			if maxOf(m, "exp/retrieval_hits") <= 0 || maxOf(m, "exp/pool_size") <= 0 {
				t.Errorf("%s: no experience retrieved: %v", arm, m["exp/retrieval_hits"])
			}
			if arm != "ec" && (maxOf(m, "actor/exp_token_share") <= 0 || maxAbsOf(m, "actor/off_pg_loss") == 0) {
				t.Errorf("%s: the off-policy path did not train (stripped share %v, off-policy loss %v)", arm, m["actor/exp_token_share"], m["actor/off_pg_loss"])
			}
		}
	},
	// Navigating in a drifted world: the experience arms fill their pool
	// from the expert's demonstrations and retrieve from it; EI and HET
	// strip it and compute the off-policy loss.
	"navigating-drift.yaml": func(t *testing.T, out string) {
		for _, arm := range []string{"ec", "ei", "het"} {
			m := quickMetrics(t, out, "navigating-drift-quick", arm)
			if maxOf(m, "exp/retrieval_hits") <= 0 || maxOf(m, "exp/pool_size") <= 0 {
				t.Errorf("%s: no experience retrieved: %v", arm, m["exp/retrieval_hits"])
			}
			if arm != "ec" && (maxOf(m, "actor/exp_token_share") <= 0 || maxAbsOf(m, "actor/off_pg_loss") == 0) {
				t.Errorf("%s: the off-policy path did not train (stripped share %v, off-policy loss %v)", arm, m["actor/exp_token_share"], m["actor/off_pg_loss"])
			}
		}
		// Only ei-valexp validates with experience.
		if m := quickMetrics(t, out, "navigating-drift-quick", "ei-valexp"); maxOf(m, "val/exp_retrieval_hits") <= 0 {
			t.Errorf("ei-valexp: no experience in validation: %v", m["val/exp_retrieval_hits"])
		}
		if m := quickMetrics(t, out, "navigating-drift-quick", "ei"); maxOf(m, "val/exp_retrieval_hits") != 0 {
			t.Errorf("ei: experience in validation: %v", m["val/exp_retrieval_hits"])
		}
	},
	// Diplomacy: the reward is the power's score (a power that holds
	// keeps its three or four centres: 3/18 or more), not the sparse 0/1
	// that counts only a solo win.
	"diplomacy-seat.yaml": func(t *testing.T, out string) {
		m := quickMetrics(t, out, "diplomacy-seat-quick", "grpo")
		if minOf(m, "reward/mean") <= 0 || minOf(m, "val/avg@2") <= 0 {
			t.Errorf("grpo: reward %v, validation avg@2 %v: want the power's score, above 0", m["reward/mean"], m["val/avg@2"])
		}
	},
	// ADCA: the step judge labelled steps and the fusion replaced the
	// advantages.
	"adca.yaml": func(t *testing.T, out string) {
		m := quickMetrics(t, out, "adca-quick", "adca")
		if len(m["prm/alpha"]) == 0 || len(m["prm/parse_success_rate"]) == 0 {
			t.Errorf("adca: no prm/ metrics: %v", m)
		}
	},
}

// checkAblation checks the quick run of an ablation file: every arm trains
// (a gradient), questioning mixes synthetic tasks in, navigating retrieves
// and strips experience and computes the off-policy loss, attributing fuses
// step labels.
func checkAblation(t *testing.T, out, experimentDir string) {
	t.Helper()
	for _, arm := range []string{"base", "q", "q-n", "q-a", "q-n-a"} {
		m := quickMetrics(t, out, experimentDir, arm)
		if maxOf(m, "actor/grad_norm") <= 0 {
			t.Errorf("%s: no gradient in any step: %v", arm, m["actor/grad_norm"])
		}
		if arm != "base" && maxOf(m, "tasks/synthetic_share") <= 0 {
			t.Errorf("%s: no synthetic task trained: %v", arm, m["tasks/synthetic_share"])
		}
		if strings.Contains(arm, "n") && (maxOf(m, "exp/retrieval_hits") <= 0 || maxOf(m, "actor/exp_token_share") <= 0 || maxAbsOf(m, "actor/off_pg_loss") == 0) {
			t.Errorf("%s: the experience path did not train (retrievals, stripped share, off-policy loss)", arm)
		}
		if strings.HasSuffix(arm, "a") && len(m["prm/alpha"]) == 0 {
			t.Errorf("%s: no prm/ metrics", arm)
		}
	}
}

// checkStartedFromStart checks a quick experiment with a start layer: its
// start run left a policy, every arm's seed-1 run loaded it, and their
// first validation is the start run's.
func checkStartedFromStart(t *testing.T, out, experimentDir string, arms ...string) {
	t.Helper()
	dir := filepath.Join(out, experimentDir)
	final := filepath.Join(dir, experiment.StartDir, "seed-1", "final")
	if _, err := os.Stat(filepath.Join(final, "model.safetensors")); err != nil {
		t.Fatalf("the start run left no policy: %v", err)
	}
	c, err := experiment.ReadComparison(filepath.Join(dir, experiment.ComparisonFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Starts) != 1 || !c.Starts[0].OK() {
		t.Fatalf("start runs %+v", c.Starts)
	}
	for _, arm := range arms {
		cfg, err := os.ReadFile(filepath.Join(dir, arm, "seed-1.config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(cfg), "path: "+final+"\n") {
			t.Errorf("%s does not start from %s", arm, final)
		}
	}
	for _, a := range c.Arms {
		if len(a.Seeds) != 1 || len(a.Seeds[0].ValSuccess) == 0 || a.Seeds[0].ValSuccess[0].Value != *c.Starts[0].Final {
			t.Errorf("%s: first validation %+v, want the start run's %v", a.Name, a.Seeds, *c.Starts[0].Final)
		}
	}
}

// quickMetrics reads the RL-step metrics of arm's seed-1 run of a quick
// experiment under out, by name.
func quickMetrics(t *testing.T, out, experimentDir, arm string) map[string][]float64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, experimentDir, arm, "seed-1", "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]float64{}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var row map[string]any
		if err := json.Unmarshal(line, &row); err != nil {
			t.Fatal(err)
		}
		for k, v := range row {
			if f, ok := v.(float64); ok {
				m[k] = append(m[k], f)
			}
		}
	}
	return m
}

func maxOf(m map[string][]float64, k string) float64 {
	out := math.Inf(-1)
	for _, v := range m[k] {
		out = max(out, v)
	}
	return out
}

func minOf(m map[string][]float64, k string) float64 {
	out := math.Inf(1)
	for _, v := range m[k] {
		out = min(out, v)
	}
	return out
}

func maxAbsOf(m map[string][]float64, k string) float64 {
	out := 0.0
	for _, v := range m[k] {
		out = max(out, math.Abs(v))
	}
	return out
}
