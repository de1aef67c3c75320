package cues_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/taskgen/cues"
)

// interrupting wraps a script: hook runs before each request and may
// cancel the run or fail the request.
type interrupting struct {
	*script
	hook func(role string, n int) error
	mu   sync.Mutex
	seen map[string]int
}

func (m *interrupting) Chat(ctx context.Context, msgs []agentevolver.Message, o llm.ChatOptions) (llm.Completion, error) {
	r := role(msgs)
	m.mu.Lock()
	if m.seen == nil {
		m.seen = map[string]int{}
	}
	n := m.seen[r]
	m.seen[r]++
	m.mu.Unlock()
	if m.hook != nil {
		if err := m.hook(r, n); err != nil {
			return llm.Completion{}, err
		}
	}
	return m.script.Chat(ctx, msgs, o)
}

func resumeConfig() cues.Config {
	return cues.Config{EnvType: toolworld.Name, Session: "resume", Seed: 3, Workers: 1,
		Stage1: cues.Stage1Config{RolloutNum: 3, MaxSteps: 6},
		Stage2: cues.Stage2Config{BatchSize: 4}}
}

// TestResume interrupts a run in Stage 1, then in Stage 2 (a failing
// batch) and in Stage 3, and checks that each rerun finishes without
// repeating finished work.
func TestResume(t *testing.T) {
	env := manager(t, toolworld.Name, builtin.Config{Toolworld: toolworld.Config{TrainSize: 2}})
	st, err := cues.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := toolworldScript()
	run := func(hook func(ctx context.CancelFunc, role string, n int) error) (cues.Stats, error) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		m := &interrupting{script: s}
		if hook != nil {
			m.hook = func(r string, n int) error { return hook(cancel, r, n) }
		}
		p := &cues.Pipeline{Env: env, Model: m, Store: st, Config: resumeConfig()}
		return p.Run(ctx)
	}

	// A crash in the middle of the second rollout.
	if _, err := run(func(cancel context.CancelFunc, r string, n int) error {
		if r == "explorer" && n == 8 {
			cancel()
			return context.Canceled
		}
		return nil
	}); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v", err)
	}
	explored := s.count("explorer")

	// Stage 2's first batch fails; the run stops after Stage 2.
	_, err = run(func(_ context.CancelFunc, r string, n int) error {
		if r == "abstract" && n < 3 { // every attempt of the first batch
			return errors.New("model down")
		}
		return nil
	})
	if err == nil {
		t.Fatal("a failed batch went unreported")
	}
	t.Log(err)
	if got := s.count("explorer") - explored; got == 0 || got > 2*6 {
		t.Errorf("the resumed Stage 1 asked the explorer %d times; want only the unfinished rollouts (at most 12)", got)
	}
	abstracted, explored := s.count("abstract"), s.count("explorer")

	// A crash while judging the second task.
	_, err = run(func(cancel context.CancelFunc, r string, n int) error {
		if r == "judge" && n == 1 {
			cancel()
			return context.Canceled
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted Stage 3: %v", err)
	}
	if s.count("explorer") != explored || s.count("abstract") == abstracted {
		t.Errorf("Stage 1 repeated finished work or Stage 2 did not resume: explorer %d -> %d, abstract %d -> %d",
			explored, s.count("explorer"), abstracted, s.count("abstract"))
	}
	judged := s.count("judge")

	stats, err := run(nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.count("judge")-judged != 1 {
		t.Errorf("the resumed Stage 3 judged %d tasks, want only the unfinished one", s.count("judge")-judged)
	}
	// Every batch was answered once: the one that failed, and those after
	// it, only by the resumed run.
	if s.count("abstract") != stats.Stage2.Batches {
		t.Errorf("%d abstractions for %d batches", s.count("abstract"), stats.Stage2.Batches)
	}
	if stats.Stage1.Finished != 3 || stats.Stage3.Tasks != 2 || stats.Stage3.Accepted+stats.Stage3.Rejected != 2 {
		t.Errorf("final statistics %+v", stats)
	}
	// Triplets of the interrupted attempt stay in the file but are not
	// counted.
	var lines, counted int
	if _, err := cues.ReadLines(st, "triplets/triplets_resume.jsonl", func(cues.Triplet) error { lines++; return nil }); err != nil {
		t.Fatal(err)
	}
	counted = stats.Stage1.Triplets
	if lines <= counted {
		t.Errorf("%d triplet lines, %d counted: the interrupted rollout's partial triplets should be ignored", lines, counted)
	}
}

// TestInitFailsFast: an unreachable model or an environment without tasks
// fails before any work, saying what to fix.
func TestInitFailsFast(t *testing.T) {
	env := manager(t, toolworld.Name, builtin.Config{Toolworld: toolworld.Config{TrainSize: 2}})
	down := llm.ChatModelFunc(func(context.Context, []agentevolver.Message, llm.ChatOptions) (llm.Completion, error) {
		return llm.Completion{}, llm.ErrUnavailable
	})
	st, err := cues.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &cues.Pipeline{Env: env, Model: down, Store: st, Config: cues.Config{EnvType: toolworld.Name}}
	if _, err := p.Run(context.Background()); !errors.Is(err, cues.ErrUnreachable) {
		t.Errorf("unreachable model: %v", err)
	}
	p = &cues.Pipeline{Env: env, Model: toolworldScript(), Store: st, Config: cues.Config{EnvType: "nosuchenv"}}
	if _, err := p.Run(context.Background()); !errors.Is(err, cues.ErrUnreachable) {
		t.Errorf("unknown environment: %v", err)
	}
	p = &cues.Pipeline{Env: env, Model: toolworldScript(), Store: st,
		Config: cues.Config{EnvType: toolworld.Name, Stage3: cues.Stage3Config{Judge: cues.JudgeNone, EnvCheck: cues.CheckNone}}}
	if _, err := p.Run(context.Background()); !errors.Is(err, cues.ErrConfig) {
		t.Errorf("no judge and no check: %v", err)
	}
}

// TestRolloutsFailingAtTheStartAreRetried: a model that never answers the
// explorer fails Stage 1 with the reason, and a later run explores every
// rollout anew.
func TestRolloutsFailingAtTheStartAreRetried(t *testing.T) {
	env := manager(t, toolworld.Name, builtin.Config{Toolworld: toolworld.Config{TrainSize: 2}})
	st, err := cues.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := toolworldScript()
	down := &interrupting{script: s, hook: func(r string, _ int) error {
		if r == "explorer" {
			return errors.New("explorer down")
		}
		return nil
	}}
	p := &cues.Pipeline{Env: env, Model: down, Store: st, Config: resumeConfig()}
	if _, err := p.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "explorer down") {
		t.Fatalf("run with a failing explorer: %v", err)
	}
	p = &cues.Pipeline{Env: env, Model: s, Store: st, Config: resumeConfig()}
	stats, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if stats.Stage1.Finished != 3 || stats.Stage1.StoppedEarly != 0 || stats.Stage1.Triplets == 0 {
		t.Errorf("stage 1 after the retry: %+v", stats.Stage1)
	}
}

// TestActorWithoutAction: an actor whose replies hold nothing leaves no
// trajectory; the task is recorded as such and not tried again.
func TestActorWithoutAction(t *testing.T) {
	env := manager(t, toolworld.Name, builtin.Config{Toolworld: toolworld.Config{TrainSize: 2}})
	st, err := cues.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	base := toolworldScript()
	silent := &script{answer: func(r string, n int, msgs []agentevolver.Message) string {
		if r == "actor" {
			return "   "
		}
		return base.answer(r, n, msgs)
	}}
	cfg := resumeConfig()
	cfg.Stage3.RetryAttempts = 2
	p := &cues.Pipeline{Env: env, Model: silent, Store: st, Config: cfg}
	stats, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s3 := stats.Stage3; s3.NoTrajectory != s3.Tasks || s3.Tasks == 0 || stats.Exported != 0 {
		t.Fatalf("stage 3 = %+v, exported %d", s3, stats.Exported)
	}
	// 3 empty replies (chat attempts) per try, 2 tries per task.
	if got, want := silent.count("actor"), 3*2*stats.Stage3.Tasks; got != want {
		t.Errorf("%d actor requests, want %d", got, want)
	}
	asked := silent.count("actor")
	if _, err := p.Run(context.Background()); err != nil || silent.count("actor") != asked {
		t.Errorf("a rerun asked the actor again (%d -> %d): %v", asked, silent.count("actor"), err)
	}
}
