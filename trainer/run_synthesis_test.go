package trainer

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/runlog"
	"github.com/org/agentevolver/taskgen"
)

// TestFitSynthesisesTasks: with task_manager.n the trainer explores the
// training split's worlds, makes hindsight tasks, mixes them in, and a
// second run with the same seed makes the same tasks; a resumed run reads
// its round back instead of exploring again.
func TestFitSynthesisesTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	synth := func(dir, cache string) (Config, []byte) {
		t.Helper()
		cfg := tinyConfig(t)
		cfg.Tasks.TrainDataPath = cache
		cfg.Trainer.OutputDir = dir
		cfg.Trainer.RLSteps = 2
		cfg.Trainer.TestFreq, cfg.Trainer.SaveFreq = 0, 1
		cfg.WarmStart.Steps = 0
		cfg.Env.Toolworld.Worlds = 3
		cfg.Tasks.N = 2
		cfg.Tasks.MaxExploreSeeds = 6
		cfg.Tasks.Mixture = taskgen.MixtureConfig{UseOriginalTasks: true, SyntheticDataRatio: 1, Shuffle: true}
		tr, err := New(cfg, withToolworld(Options{}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Fit(context.Background()); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, SynthesisDir, "round_0000.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		return cfg, data
	}
	cfg, first := synth(filepath.Join(t.TempDir(), "a"), "")
	objs, err := taskgen.ReadTaskFile(filepath.Join(cfg.Trainer.OutputDir, SynthesisDir, "round_0000.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) == 0 {
		t.Fatal("no synthetic task")
	}
	for _, o := range objs {
		if o.Task.Query == "" || o.Task.GroundTruth == "" || o.Task.Metadata["synthesis"] != "hindsight" {
			t.Fatalf("synthetic task %+v", o.Task)
		}
	}
	records, err := runlog.ReadMetrics(filepath.Join(cfg.Trainer.OutputDir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	share := 0.0
	for _, r := range records {
		if v, ok := r.Value("tasks/synthetic_share"); ok {
			share += v
		}
	}
	if share == 0 {
		t.Fatal("no RL step trained on a synthetic task")
	}
	// With task_manager.train_data_path (the original's task cache) the
	// round is also written there.
	cache := filepath.Join(t.TempDir(), "tasks_explored.train.jsonl")
	if _, second := synth(filepath.Join(t.TempDir(), "b"), cache); !bytes.Equal(first, second) {
		t.Fatal("the same seed synthesised other tasks")
	}
	if cached, err := taskgen.ReadTaskFile(cache); err != nil || len(cached) != len(objs) {
		t.Fatalf("the task cache holds %d tasks (%v), the round %d", len(cached), err, len(objs))
	}
	// A resumed run reads the round back.
	cfg.Trainer.RLSteps = 3
	tr, err := New(cfg, withToolworld(Options{Resume: true}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(filepath.Join(cfg.Trainer.OutputDir, SynthesisDir, "round_0000.jsonl")); !bytes.Equal(first, again) {
		t.Fatal("the resumed run rewrote its round")
	}
}

// TestSynthesisTaskCache: an existing task_manager.train_data_path is read
// in place of the first synthesis round (the original's task cache), and
// an unreadable one is a configuration error.
func TestSynthesisTaskCache(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "tasks_explored.train.jsonl")
	want := []agentevolver.TaskObjective{{Task: agentevolver.Task{TaskID: "c1", Query: "cached query", GroundTruth: "gt"}}}
	if err := taskgen.WriteTaskFile(cache, want); err != nil {
		t.Fatal(err)
	}
	s := &synthesizer{cfg: taskgen.Config{N: 1, TrainDataPath: cache}, dir: t.TempDir(),
		log: slog.New(slog.DiscardHandler), check: func([]agentevolver.Task) error { return nil }}
	got, err := s.round(context.Background(), 0)
	if err != nil || len(got) != 1 || got[0].Query != "cached query" {
		t.Fatalf("round 0 with a task cache: %+v, %v", got, err)
	}
	if err := os.WriteFile(cache, []byte("{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.round(context.Background(), 0); !errors.Is(err, ErrConfig) {
		t.Fatalf("an unreadable task cache: %v", err)
	}
}

func TestSynthesisConfigErrors(t *testing.T) {
	cfg := FromScratchConfig()
	cfg.Tasks.N = 1
	// As in the original: n without a synthetic ratio synthesises nothing
	// (setupTasks warns), and n with train_data_path uses it as a cache.
	if err := cfg.Validate(); err != nil {
		t.Errorf("n without a synthetic ratio: %v", err)
	}
	cfg.Tasks.Mixture.SyntheticDataRatio = 1
	cfg.Tasks.TrainDataPath = "x.jsonl"
	if err := cfg.Validate(); err != nil {
		t.Errorf("n with train_data_path: %v", err)
	}
	cfg.Tasks.TrainDataPath = ""
	cfg.Tasks.Explorer = "magic"
	if err := cfg.Validate(); err == nil {
		t.Error("an unknown explorer is valid")
	}
}
