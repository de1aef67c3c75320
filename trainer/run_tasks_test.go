package trainer

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/runlog"
	"github.com/org/agentevolver/taskgen"
)

// toolworldOf is the toolworld a config's trainer builds (withToolworld).
func toolworldOf(t *testing.T, cfg Config) *toolworld.Env {
	t.Helper()
	tw := cfg.Env.Toolworld
	env, err := toolworld.New(toolworld.Config{
		Seed: tw.Seed, Compact: tw.Compact, SystemPrompt: tw.SystemPrompt, MaxLevel: tw.MaxLevel, MinLevel: tw.MinLevel,
		TrainSize: tw.TrainSize, ValSize: tw.ValSize, TestSize: tw.TestSize,
	})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// hindsightFile writes hindsight tasks of the split's tasks (each made
// from the expert's solution) to a task file and returns its path.
func hindsightFile(t *testing.T, cfg Config, split, name string) (string, []agentevolver.Task) {
	t.Helper()
	ctx := context.Background()
	env := toolworldOf(t, cfg)
	ids, err := env.TaskIDs(ctx, split, nil)
	if err != nil {
		t.Fatal(err)
	}
	var objs []agentevolver.TaskObjective
	var tasks []agentevolver.Task
	for _, id := range ids {
		actions, err := env.Demonstrate(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		task, err := env.SynthesizeTask(ctx, id, actions)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, agentevolver.TaskObjective{Task: task})
		tasks = append(tasks, task)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := taskgen.WriteTaskFile(path, objs); err != nil {
		t.Fatal(err)
	}
	return path, tasks
}

// TestFitWithSyntheticTasks trains on the original tasks plus hindsight
// tasks from a task file (task_manager.mixture): steps draw both, graded
// by the environment, and report the synthetic share and rewards.
func TestFitWithSyntheticTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := tinyConfig(t)
	cfg.Data.TrainBatchSize = 4
	path, _ := hindsightFile(t, cfg, "train", "synthetic.jsonl")
	cfg.Tasks.TrainDataPath = path
	cfg.Tasks.Mixture.SyntheticDataRatio = 1
	if _, err := mustNew(t, cfg, Options{}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkMetricsDocumented(t, cfg.Trainer.OutputDir)
	records, err := runlog.ReadMetrics(filepath.Join(cfg.Trainer.OutputDir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	var share float64
	steps := 0
	for _, r := range records {
		if v, ok := r.Value("tasks/synthetic_share"); ok {
			share += v
			steps++
		}
	}
	if steps != cfg.Trainer.RLSteps || share == 0 || share == float64(steps) {
		t.Errorf("synthetic share summed over %d steps: %v; want both kinds of task", steps, share)
	}
}

func TestSyntheticTaskChecks(t *testing.T) {
	cfg := tinyConfig(t)
	leak, _ := hindsightFile(t, cfg, "val", "leak.parquet")
	cfg.Tasks.TrainDataPath = leak
	cfg.Tasks.Mixture.SyntheticDataRatio = 0.5
	_, err := mustNew(t, cfg, Options{}).Fit(context.Background())
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "leak the held-out set") {
		t.Errorf("synthetic tasks of validation tasks: %v", err)
	}

	cfg = tinyConfig(t)
	cfg.Tasks.Mixture.SyntheticDataRatio = 0.5
	if err := cfg.Validate(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "train_data_path") {
		t.Errorf("ratio without a task file: %v", err)
	}
	cfg.Tasks.TrainDataPath = "x.jsonl"
	cfg.Tasks.Grader.SyntheticGrader = "psychic"
	if err := cfg.Validate(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "synthetic_grader") {
		t.Errorf("unknown grader: %v", err)
	}
	cfg.Tasks.Grader.SyntheticGrader = ""
	cfg.Tasks.Mixture = taskgen.MixtureConfig{}
	if err := cfg.Validate(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "neither") {
		t.Errorf("empty mixture: %v", err)
	}
}

// scoreJudge answers every judge request with a full score.
type scoreJudge struct{ calls atomic.Int64 }

func (j *scoreJudge) Chat(context.Context, []agentevolver.Message, llm.ChatOptions) (llm.Completion, error) {
	j.calls.Add(1)
	return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "Fine.\n<reward>100</reward>"}, FinishReason: "stop"}, nil
}

// TestFitWithJudgedTasks trains on original tasks read from a Parquet
// file (data.train_files) plus synthetic tasks with no verifiable check
// (evaluator "synthetic"): those need a judge, and are graded by the
// synthetic grader through Options.JudgeModel.
func TestFitWithJudgedTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := tinyConfig(t)
	cfg.Trainer.RLSteps = 1
	env := toolworldOf(t, cfg)
	ids, err := env.TaskIDs(context.Background(), "train", nil)
	if err != nil {
		t.Fatal(err)
	}
	var originals, synthetic []agentevolver.TaskObjective
	for _, id := range ids {
		originals = append(originals, agentevolver.TaskObjective{Task: agentevolver.Task{TaskID: id}})
		synthetic = append(synthetic, agentevolver.TaskObjective{Task: agentevolver.Task{
			TaskID: id, Query: "Look up anything useful.", GroundTruth: "bank.balance", OpenQuery: true, Evaluator: agentevolver.EvaluatorSynthetic,
		}})
	}
	dir := t.TempDir()
	cfg.Data.TrainFiles = []string{filepath.Join(dir, "original.parquet")}
	cfg.Tasks.TrainDataPath = filepath.Join(dir, "synthetic.jsonl")
	if err := taskgen.WriteTaskFile(cfg.Data.TrainFiles[0], originals); err != nil {
		t.Fatal(err)
	}
	if err := taskgen.WriteTaskFile(cfg.Tasks.TrainDataPath, synthetic); err != nil {
		t.Fatal(err)
	}
	cfg.Tasks.Mixture = taskgen.MixtureConfig{SyntheticDataRatio: 1, Shuffle: true} // synthetic only
	_, err = mustNew(t, cfg, Options{}).Fit(context.Background())
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "task_manager.grader.llm") || !strings.Contains(err.Error(), "synthetic") {
		t.Fatalf("judged tasks without a judge: %v", err)
	}
	judge := &scoreJudge{}
	cfg.Trainer.OutputDir = t.TempDir()
	if _, err := mustNew(t, cfg, Options{JudgeModel: judge}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	records, err := runlog.ReadMetrics(filepath.Join(cfg.Trainer.OutputDir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if v, ok := r.Value("reward/synthetic"); ok && v != 1 {
			t.Errorf("reward/synthetic %v, want 1 (the judge gives 100)", v)
		}
		if v, ok := r.Value("tasks/synthetic_share"); ok && v != 1 {
			t.Errorf("synthetic share %v, want 1", v)
		}
	}
	// Every training episode was judged; validation stays with the environment.
	if n := judge.calls.Load(); n != int64(cfg.Data.TrainBatchSize*cfg.Rollout.N) {
		t.Errorf("%d judge calls, want %d", n, cfg.Data.TrainBatchSize*cfg.Rollout.N)
	}
}

func TestMixtureTaskSource(t *testing.T) {
	var orig, synth []agentevolver.Task
	for i := range 4 {
		orig = append(orig, agentevolver.Task{TaskID: "o" + string(rune('0'+i))})
	}
	for i := range 8 {
		synth = append(synth, agentevolver.Task{TaskID: "s" + string(rune('0'+i)), Metadata: map[string]any{MetadataSynthetic: true}})
	}
	src := &mixtureTaskSource{strategy: taskgen.UnifiedMixtureStrategy{UseOriginal: true, SyntheticRatio: 0.5, Shuffle: true},
		synthetic: synth, original: orig, seed: 7}
	ctx := context.Background()
	ids := func(step int) string {
		ts, err := src.NextTasks(ctx, step, 3)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, t := range ts {
			b.WriteString(t.TaskID + " ")
		}
		return b.String()
	}
	first := ids(0) + ids(1) // epoch 0: 4 original + 2 synthetic = 6 tasks
	if again := ids(0) + ids(1); again != first {
		t.Errorf("steps 0-1 drew %q, then %q", first, again)
	}
	if strings.Count(first, "o") != 4 || strings.Count(first, "s") != 2 {
		t.Errorf("epoch 0 = %q, want the 4 originals and 2 synthetic tasks", first)
	}
	second := ids(2) + ids(3)
	if second == first {
		t.Errorf("epochs 0 and 1 are the same mix %q", first)
	}
}

// TestWarmStartTasksFromMixture demonstrates the first epoch's mix,
// hindsight tasks included, but never a synthetic task the environment
// does not grade (its expert knows only the seed task).
func TestWarmStartTasksFromMixture(t *testing.T) {
	cfg := tinyConfig(t)
	_, hs := hindsightFile(t, cfg, "train", "synthetic.jsonl")
	judged := filepath.Join(t.TempDir(), "judged.jsonl")
	objs := []agentevolver.TaskObjective{}
	for _, h := range hs {
		objs = append(objs, agentevolver.TaskObjective{Task: h})
	}
	objs = append(objs, agentevolver.TaskObjective{Task: agentevolver.Task{TaskID: hs[0].Metadata["seed_task_id"].(string),
		Query: "Something else.", GroundTruth: "x", Evaluator: agentevolver.EvaluatorSynthetic}})
	if err := taskgen.WriteTaskFile(judged, objs); err != nil {
		t.Fatal(err)
	}
	cfg.Tasks.TrainDataPath = judged
	cfg.Tasks.Mixture.SyntheticDataRatio = 100 // all of them
	r, err := mustNew(t, cfg, Options{JudgeModel: &scoreJudge{}}).open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	tasks, err := r.warmStartTasks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	synthetic := 0
	for _, task := range tasks {
		if task.Evaluator == agentevolver.EvaluatorSynthetic {
			t.Errorf("an LLM-graded synthetic task is demonstrated: %+v", task)
		}
		if isSynthetic(task) {
			synthetic++
		}
	}
	if want := len(r.train) + len(hs); len(tasks) != want || synthetic != len(hs) {
		t.Errorf("%d tasks to demonstrate (%d synthetic), want %d (%d)", len(tasks), synthetic, want, len(hs))
	}
}
