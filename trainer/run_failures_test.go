package trainer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/runlog"
)

// echoEnv is a one-step custom environment (not toolworld): the agent is
// asked to say a word and scores 1 when its answer contains it. Its faults
// can be switched on to test how training treats a broken environment.
type echoEnv struct {
	mu     sync.Mutex
	faults echoFaults
	// turns is the number of steps an episode lasts (0: one).
	turns int
}

// echoFaults select environment failures; failTasks limits them to task
// ids with that prefix ("" = every task).
type echoFaults struct {
	create, badInit, step, stepPanic, evaluate, nanScore bool
	failTasks                                            string
}

func (e *echoEnv) set(f echoFaults) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.faults = f
}

func (e *echoEnv) current(taskID string) echoFaults {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !strings.HasPrefix(taskID, e.faults.failTasks) {
		return echoFaults{}
	}
	return e.faults
}

func (e *echoEnv) TaskIDs(_ context.Context, split string, _ map[string]any) ([]string, error) {
	var ids []string
	n := map[string]int{"train": 6, "val": 3}[split]
	for i := range n {
		ids = append(ids, fmt.Sprintf("%s-%d", split, i))
	}
	return ids, nil
}

func (e *echoEnv) New(_ context.Context, taskID, _ string, _ map[string]any) (envservice.Instance, error) {
	f := e.current(taskID)
	if f.create {
		return nil, errors.New("echo: database locked")
	}
	return &echoInstance{env: e, task: taskID}, nil
}

type echoInstance struct {
	env    *echoEnv
	task   string
	answer string
	steps  int
}

func (in *echoInstance) InitState(context.Context, map[string]any) (envclient.InitState, error) {
	if in.env.current(in.task).badInit {
		return envclient.InitState{State: []agentevolver.Message{{Role: agentevolver.RoleSystem, Content: "Echo."}}}, nil
	}
	return envclient.InitState{State: []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: "Echo."},
		{Role: agentevolver.RoleUser, Content: "Say go."},
	}}, nil
}

func (in *echoInstance) Step(_ context.Context, action agentevolver.Message, _ map[string]any) (envclient.StepResult, error) {
	f := in.env.current(in.task)
	if f.stepPanic {
		panic("echo: index out of range")
	}
	if f.step {
		return envclient.StepResult{}, errors.New("echo: parser crashed")
	}
	in.answer = action.Content
	in.steps++
	done := in.steps >= max(in.env.turns, 1)
	return envclient.StepResult{State: []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "ok"}}, IsTerminated: done}, nil
}

func (in *echoInstance) Evaluate(context.Context, map[string]any) (float64, error) {
	f := in.env.current(in.task)
	switch {
	case f.evaluate:
		return 0, errors.New("echo: grader offline")
	case f.nanScore:
		return math.NaN(), nil
	case strings.Contains(in.answer, "go"):
		return 1, nil
	}
	return 0, nil
}

func (in *echoInstance) Info(context.Context, map[string]any) (any, error) {
	return map[string]any{}, nil
}
func (in *echoInstance) Close() error { return nil }

// echoConfig trains a tiny policy on echoEnv: no warm start, the byte
// tokenizer, no difficulty filter.
func echoConfig(t *testing.T) Config {
	t.Helper()
	cfg := tinyConfig(t)
	cfg.Env = EnvConfig{}
	cfg.Model.Tokenizer = "byte"
	cfg.WarmStart.Steps = 0
	cfg.Rollout.MaxSteps = 1
	cfg.Rollout.ResponseLength = 4
	cfg.Rollout.MaxModelLen = 256
	cfg.Trainer.RLSteps = 2
	return cfg
}

func echoManager(t *testing.T, env *echoEnv) *envservice.Manager {
	t.Helper()
	m := envservice.NewManager(envservice.ManagerConfig{})
	if err := m.Register("echo", env); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// TestFitStopsOnEnvironmentFailures checks every failure cause: when every
// episode of the first RL step fails, Fit returns a *FailureError naming
// the cause and the environment's message after saving a checkpoint, takes
// no step, and --resume finishes the run once the environment is fixed.
func TestFitStopsOnEnvironmentFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	tests := []struct {
		faults  echoFaults
		cause   agentflow.FailureCause
		message string
	}{
		{echoFaults{create: true}, agentflow.FailCreate, "database locked"},
		{echoFaults{badInit: true}, agentflow.FailInitState, "bad initial state"},
		{echoFaults{step: true}, agentflow.FailStep, "parser crashed"},
		{echoFaults{stepPanic: true}, agentflow.FailStepPanic, "index out of range"},
		{echoFaults{evaluate: true}, agentflow.FailEvaluate, "grader offline"},
		{echoFaults{nanScore: true}, agentflow.FailScore, "NaN"},
	}
	for _, tt := range tests {
		t.Run(string(tt.cause), func(t *testing.T) {
			env := &echoEnv{}
			cfg := echoConfig(t)
			cfg.Trainer.ValBeforeTrain = false
			// Only training tasks fail, so validation is unaffected.
			tt.faults.failTasks = "train"
			env.set(tt.faults)
			opts := Options{Env: echoManager(t, env)}
			_, err := mustNew(t, cfg, opts).Fit(context.Background())
			var fe *FailureError
			if !errors.As(err, &fe) || !errors.Is(err, ErrTooManyFailures) {
				t.Fatalf("err = %v, want a *FailureError", err)
			}
			if fe.Cause != tt.cause || !strings.Contains(err.Error(), tt.message) || fe.Failed != fe.Total || fe.Step != 1 {
				t.Errorf("failure %+v (%v), want cause %s with %q", fe, err, tt.cause, tt.message)
			}
			if _, err := os.Stat(filepath.Join(cfg.Trainer.OutputDir, CheckpointDir, "step_000000", checkpointState)); err != nil {
				t.Errorf("no checkpoint after the failure: %v", err)
			}
			env.set(echoFaults{})
			s, err := mustNew(t, cfg, Options{Env: opts.Env, Resume: true}).Fit(context.Background())
			if err != nil {
				t.Fatalf("resume after the fix: %v", err)
			}
			if s.RLSteps != 2 {
				t.Errorf("resumed run took %d steps, want 2", s.RLSteps)
			}
		})
	}
}

// TestFitExcludesFailedEpisodes checks that a failed share under
// max_failed_ratio trains on the survivors and counts the failures by
// cause, and that validation reports its failed share apart from the
// scores.
func TestFitExcludesFailedEpisodes(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	env := &echoEnv{}
	// One training task of six and one validation task of three fail.
	env.set(echoFaults{step: true, failTasks: "train-1"})
	cfg := echoConfig(t)
	cfg.Trainer.MaxFailedRatio = 0.5
	cfg.Data.TrainBatchSize = 6
	cfg.Data.ValTasks = 0
	cfg.Data.Shuffle = false
	cfg.Trainer.RLSteps = 1
	s, err := mustNew(t, cfg, Options{Env: echoManager(t, env)}).Fit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	records, err := runlog.ReadMetrics(filepath.Join(cfg.Trainer.OutputDir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	var step map[string]float64
	for _, r := range records {
		if _, ok := r.Values["rollout/episodes"]; ok {
			step = r.Values
		}
	}
	n := float64(cfg.Rollout.N)
	if step["rollout/failed"] != n || step["rollout/failed/step"] != n || step["rollout/episodes"] != 5*n || step["batch/rows"] != 5*n {
		t.Errorf("step metrics %v: want %v failed (step) and %v episodes trained", step, n, 5*n)
	}
	if s.RLSteps != 1 {
		t.Errorf("summary %+v", s)
	}
	checkMetricsDocumented(t, cfg.Trainer.OutputDir)
	// Validation: the val split has no failing task here; make one fail.
	env.set(echoFaults{evaluate: true, failTasks: "val-2"})
	cfg.Data.ValTasks = 0
	stats, err := Evaluate(context.Background(), cfg, Options{Env: echoManager(t, env)}, EvalOptions{Checkpoint: filepath.Join(cfg.Trainer.OutputDir, FinalModelDir)})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Failed != 1 || stats.Tasks != 2 || stats.Rollouts != 2 {
		t.Errorf("validation %+v: want 1 failed rollout and 2 scored tasks", stats)
	}
}

// TestNewReportsMissingCapabilities checks that New names, at once, every
// feature the environment cannot support, and infers env.type.
func TestNewReportsMissingCapabilities(t *testing.T) {
	cfg := FromScratchConfig()
	cfg.Trainer.OutputDir = t.TempDir()
	m := echoManager(t, &echoEnv{})
	cfg.Data.MaxDifficulty = 1
	_, err := New(cfg, Options{Env: m})
	if !errors.Is(err, ErrConfig) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"warm_start.steps", "model.tokenizer", "data.max_difficulty", `"echo"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	cfg = echoConfig(t)
	tr, err := New(cfg, Options{Env: m})
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Config().Env.Type; got != "echo" {
		t.Errorf("env.type = %q, want it inferred as echo", got)
	}
	cfg.Env.Type = "toolworld"
	if _, err := New(cfg, Options{Env: m}); err == nil || !strings.Contains(err.Error(), "serves echo") {
		t.Errorf("err = %v, want env.type not served", err)
	}
	if _, err := New(FromScratchConfig(), Options{Environments: map[string]builtin.Factory{}}); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "Options.Environments") {
		t.Errorf("err = %v, want a missing-environment error", err)
	}
	if _, err := New(FromScratchConfig(), Options{}); err != nil {
		t.Errorf("nil Options.Environments (the built-in ones): %v", err)
	}
}

// TestFitRejectsOverflowingPrompt checks that an initial prompt that alone
// overflows the context is a configuration error reported before any step,
// with the sizes.
func TestFitRejectsOverflowingPrompt(t *testing.T) {
	cfg := echoConfig(t)
	cfg.Rollout.MaxModelLen = 20
	_, err := mustNew(t, cfg, Options{Env: echoManager(t, &echoEnv{})}).Fit(context.Background())
	if !errors.Is(err, ErrConfig) || !errors.Is(err, agentflow.ErrPromptTooLong) || !strings.Contains(err.Error(), "limit 16") {
		t.Fatalf("err = %v, want ErrPromptTooLong with the sizes", err)
	}
}

// TestFitRefusesExistingRun checks the run-directory rule.
func TestFitRefusesExistingRun(t *testing.T) {
	cfg := echoConfig(t)
	if err := os.WriteFile(filepath.Join(cfg.Trainer.OutputDir, MetricsFile), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := echoManager(t, &echoEnv{})
	if _, err := mustNew(t, cfg, Options{Env: env}).Fit(context.Background()); !errors.Is(err, ErrRunExists) {
		t.Fatalf("err = %v, want ErrRunExists", err)
	}
	cfg.Trainer.RLSteps = 0
	if _, err := mustNew(t, cfg, Options{Env: env, Overwrite: true}).Fit(context.Background()); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
}
