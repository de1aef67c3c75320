package trainer

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/runlog"
)

func TestSilenceObserve(t *testing.T) {
	mask := [][]float32{{1, 1, 0}, {1, 1, 0}}
	zeroAdv := [][]float32{{0, 0, 0}, {0, 0, 0}}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	s := silence{limit: 3}
	alike := map[string][]float64{"0": {1, 1}}
	zero := map[string][]float64{"0": {0, 0}}
	// Advantage outside the mask is no signal; inside it is.
	if !s.observe(log, 1, zero, [][]float32{{0, 0, 5}, {0, 0, 0}}, mask) {
		t.Fatal("advantage under a zero mask counted as signal")
	}
	if s.observe(log, 2, zero, [][]float32{{0, 0.5, 0}, {0, 0, 0}}, mask) {
		t.Fatal("a non-zero advantage is signal")
	}
	for step := 3; step <= 4; step++ {
		s.observe(log, step, alike, zeroAdv, mask)
	}
	if logs.Len() != 0 {
		t.Fatalf("warned before the limit: %s", logs.String())
	}
	s.observe(log, 5, zero, zeroAdv, mask)
	out := logs.String()
	if !strings.Contains(out, "nothing is being learned") || !strings.Contains(out, "steps 3 to 5") || !strings.Contains(out, "same score") {
		t.Fatalf("warning: %s", out)
	}
	logs.Reset()
	for step := 6; step <= 20; step++ {
		s.observe(log, step, zero, zeroAdv, mask)
	}
	if logs.Len() != 0 {
		t.Fatalf("warned twice: %s", logs.String())
	}
}

// TestFitWarnsWhenNothingIsLearned: a run whose episodes all score 0 warns
// once after trainer.silent_steps steps, and marks each silent step.
func TestFitWarnsWhenNothingIsLearned(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := tinyConfig(t)
	cfg.Trainer.RLSteps = 3
	cfg.Trainer.SilentSteps = 2
	cfg.Trainer.TestFreq, cfg.Trainer.SaveFreq = 0, 0
	cfg.WarmStart.Steps = 0 // the expert too would score 0
	var logs bytes.Buffer
	opts := withToolworld(Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	opts.Reward = agentflow.RewardFunc(func(context.Context, agentflow.RewardInput) (float64, string, error) { return 0, "never", nil })
	tr, err := New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(logs.String(), "nothing is being learned"); n != 1 {
		t.Fatalf("%d warnings, want 1:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "every episode scored 0") || !strings.Contains(logs.String(), "steps 1 to 2") {
		t.Fatalf("warning does not say why:\n%s", logs.String())
	}
	records, err := runlog.ReadMetrics(filepath.Join(cfg.Trainer.OutputDir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	silent := 0
	for _, r := range records {
		if v, ok := r.Value(MetricNoSignal); ok && v == 1 {
			silent++
		}
	}
	if silent != 3 {
		t.Fatalf("%d steps marked silent, want 3", silent)
	}
}
