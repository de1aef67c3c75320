package toolworld

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
)

func newEnv(t testing.TB, cfg Config) *Env {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

// started returns a new instance of task id whose initial state has been
// read.
func started(t testing.TB, e *Env, id, instanceID string) envservice.Instance {
	t.Helper()
	in, err := e.New(context.Background(), id, instanceID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.InitState(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return in
}

func splitIDs(t testing.TB, e *Env, split string) []string {
	t.Helper()
	ids, err := e.TaskIDs(context.Background(), split, nil)
	if err != nil {
		t.Fatalf("TaskIDs(%s): %v", split, err)
	}
	return ids
}

func TestNewDefaults(t *testing.T) {
	e := newEnv(t, Config{})
	idPattern := regexp.MustCompile(`^tw-(train|val|test)-\d{4}$`)
	for split, want := range map[string]int{SplitTrain: DefaultTrainSize, SplitVal: DefaultValSize, SplitTest: DefaultTestSize} {
		ids := splitIDs(t, e, split)
		if len(ids) != want {
			t.Errorf("%s: %d tasks, want %d", split, len(ids), want)
		}
		levels := map[int]int{}
		for i, id := range ids {
			if !idPattern.MatchString(id) || !strings.Contains(id, "-"+split+"-") {
				t.Fatalf("bad id %q", id)
			}
			info, err := e.Task(id)
			if err != nil {
				t.Fatal(err)
			}
			if info.ID != id || info.Split != split || info.Level != 1+i%3 || info.Instruction == "" {
				t.Fatalf("Task(%s) = %+v", id, info)
			}
			levels[info.Level]++
		}
		t.Logf("%s: %d tasks, levels %v", split, len(ids), levels)
	}
}

func TestNewConfig(t *testing.T) {
	e := newEnv(t, Config{Seed: 7, TrainSize: 3, ValSize: 2, TestSize: 1})
	for split, want := range map[string]int{SplitTrain: 3, SplitVal: 2, SplitTest: 1} {
		if got := len(splitIDs(t, e, split)); got != want {
			t.Errorf("%s: %d tasks, want %d", split, got, want)
		}
	}
	for _, cfg := range []Config{{TrainSize: -1}, {ValSize: MaxSplitSize + 1}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted a bad size", cfg)
		}
	}
}

func TestErrors(t *testing.T) {
	e := newEnv(t, Config{TrainSize: 3, ValSize: 1, TestSize: 1})
	ctx := context.Background()
	if _, err := e.TaskIDs(ctx, "dev", nil); !errors.Is(err, ErrUnknownSplit) || !errors.Is(err, envclient.ErrBadRequest) {
		t.Errorf("TaskIDs(dev) error = %v", err)
	}
	if _, err := e.New(ctx, "tw-train-9999", "i", nil); !errors.Is(err, ErrUnknownTask) || !errors.Is(err, envclient.ErrBadRequest) {
		t.Errorf("New(unknown) error = %v", err)
	}
	if _, err := e.Solve("nope"); !errors.Is(err, ErrUnknownTask) {
		t.Errorf("Solve(unknown) error = %v", err)
	}
	if _, err := e.New(ctx, "tw-train-0000", "i", map[string]any{"sparse": 3}); !errors.Is(err, ErrBadParams) {
		t.Errorf("New(sparse: 3) error = %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.TaskIDs(cancelled, SplitTrain, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("TaskIDs(cancelled) error = %v", err)
	}
	in, err := e.New(ctx, "tw-train-0000", "i", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Step(cancelled, assistant("```tool\nbank.balance\n```"), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Step(cancelled) error = %v", err)
	}
	if _, err := in.Evaluate(ctx, map[string]any{"sparse": "maybe"}); !errors.Is(err, ErrBadParams) {
		t.Errorf("Evaluate(sparse: maybe) error = %v", err)
	}
	if _, err := in.Info(ctx, map[string]any{"format": "xml"}); !errors.Is(err, ErrBadParams) {
		t.Errorf("Info(xml) error = %v", err)
	}
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Step(ctx, assistant("```tool\nbank.balance\n```"), nil); !errors.Is(err, ErrClosed) || !errors.Is(err, envclient.ErrInstanceNotFound) {
		t.Errorf("Step after Close error = %v", err)
	}
	if _, err := in.Evaluate(ctx, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Evaluate after Close error = %v", err)
	}
}

// transcript runs the expert on every task of e and returns everything an
// agent would see, for determinism checks.
func transcript(t *testing.T, e *Env) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	for _, split := range []string{SplitTrain, SplitVal, SplitTest} {
		for _, id := range splitIDs(t, e, split) {
			in, err := e.New(ctx, id, "x", nil)
			if err != nil {
				t.Fatal(err)
			}
			init, err := in.InitState(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %q\n", id, init.State[1].Content)
			actions, err := e.Solve(id)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range actions {
				res, err := in.Step(ctx, a, nil)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "%q %q %v\n", a.Content, res.State[0].Content, res.Reward)
			}
		}
	}
	return b.String()
}

func TestDeterminism(t *testing.T) {
	cfg := Config{Seed: 42, TrainSize: 60, ValSize: 20, TestSize: 20}
	a, b := transcript(t, newEnv(t, cfg)), transcript(t, newEnv(t, cfg))
	if a != b {
		t.Fatal("two environments with the same seed differ")
	}
	cfg.Seed = 43
	if c := transcript(t, newEnv(t, cfg)); c == a {
		t.Fatal("seeds 42 and 43 give the same tasks")
	}
}

// TestSplitStability: a split's tasks do not depend on the sizes of the
// splits generated after it, and the training split grows by appending.
func TestSplitStability(t *testing.T) {
	small := newEnv(t, Config{TrainSize: 30, ValSize: 10, TestSize: 10})
	large := newEnv(t, Config{TrainSize: 90, ValSize: 20, TestSize: 10})
	for _, split := range []string{SplitTest, SplitVal, SplitTrain} {
		for _, id := range splitIDs(t, small, split) {
			a, _ := small.Task(id)
			b, _ := large.Task(id)
			sa, _ := small.Solve(id)
			sb, _ := large.Solve(id)
			if a != b || fmt.Sprint(sa) != fmt.Sprint(sb) {
				t.Fatalf("%s differs between sizes: %+v vs %+v", id, a, b)
			}
		}
	}
}

func TestSplitsDisjoint(t *testing.T) {
	e := newEnv(t, Config{})
	owner := map[string]string{}
	for _, split := range []string{SplitTrain, SplitVal, SplitTest} {
		for _, id := range splitIDs(t, e, split) {
			sig := e.tasks[id].signature()
			if prev, dup := owner[sig]; dup {
				t.Fatalf("%s repeats %s: %q", id, prev, sig)
			}
			owner[sig] = id
		}
	}
	// Instructions vary: far more distinct instructions than templates.
	// Some repeat by design ("What is my bank balance?"): their answers
	// differ, so the policy must read the observations.
	distinct := map[string]bool{}
	for _, id := range splitIDs(t, e, SplitTrain) {
		distinct[e.tasks[id].info.Instruction] = true
	}
	if len(distinct) < DefaultTrainSize*7/10 {
		t.Fatalf("only %d distinct instructions among %d train tasks", len(distinct), DefaultTrainSize)
	}
	t.Logf("%d distinct train instructions", len(distinct))
}

// TestExpertSolvesEveryTask replays the expert on every task of every split
// through the public Step interface and checks payload shapes, rewards,
// Evaluate, Expected and JudgeSteps along the way.
func TestExpertSolvesEveryTask(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	steps, maxSteps := 0, 0
	for _, split := range []string{SplitTrain, SplitVal, SplitTest} {
		for _, id := range splitIDs(t, e, split) {
			actions, err := e.Solve(id)
			if err != nil {
				t.Fatal(err)
			}
			inst, err := e.New(ctx, id, "inst-1", nil)
			if err != nil {
				t.Fatal(err)
			}
			in := inst.(*Instance)
			for i, a := range actions {
				want, ok := in.Expected()
				if !ok || want.Content != a.Content {
					t.Fatalf("%s step %d: Expected = %q, %v; want %q", id, i, want.Content, ok, a.Content)
				}
				res, err := in.Step(ctx, a, map[string]any{"sparse": true})
				if err != nil {
					t.Fatal(err)
				}
				checkStepShape(t, res)
				last := i == len(actions)-1
				if strings.HasPrefix(res.State[0].Content, "error") || res.IsTerminated != last {
					t.Fatalf("%s step %d %q: %+v", id, i, a.Content, res)
				}
				if last && res.Reward != 1 || !last && res.Reward != 0 {
					t.Fatalf("%s step %d: reward %v", id, i, res.Reward)
				}
			}
			if _, ok := in.Expected(); ok {
				t.Fatalf("%s: Expected after the end", id)
			}
			for _, sparse := range []bool{true, false} {
				if s, err := in.Evaluate(ctx, map[string]any{"sparse": sparse}); err != nil || s != 1 {
					t.Fatalf("%s: Evaluate(sparse=%v) = %v, %v", id, sparse, s, err)
				}
			}
			verdicts, err := e.JudgeSteps(ctx, id, actions)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range verdicts {
				if !v {
					t.Fatalf("%s: JudgeSteps marks expert step %d as not useful", id, i)
				}
			}
			steps += len(actions)
			maxSteps = max(maxSteps, len(actions))
		}
	}
	t.Logf("expert: %d steps over %d tasks, at most %d per task", steps, len(e.tasks), maxSteps)
}

func checkStepShape(t *testing.T, res envclient.StepResult) {
	t.Helper()
	if len(res.State) != 1 || res.State[0].Role != agentevolver.RoleUser || res.State[0].Content == "" || res.Info == nil {
		t.Fatalf("bad step result shape: %+v", res)
	}
}

func TestInitState(t *testing.T) {
	for _, compact := range []bool{false, true} {
		e := newEnv(t, Config{Compact: compact, TrainSize: 3, ValSize: 1, TestSize: 1})
		in, err := e.New(context.Background(), "tw-train-0001", "inst-7", nil)
		if err != nil {
			t.Fatal(err)
		}
		init, err := in.InitState(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		info, _ := e.Task("tw-train-0001")
		if len(init.State) != 2 || init.State[0].Role != agentevolver.RoleSystem || init.State[1].Role != agentevolver.RoleUser ||
			init.State[1].Content != info.Instruction || !strings.Contains(init.State[0].Content, "```tool") {
			t.Fatalf("bad init state: %+v", init)
		}
		if len(init.Info) != 2 || init.Info["instance_id"] != "inst-7" || init.Info["task_id"] != "tw-train-0001" || init.InstanceID() != "inst-7" {
			t.Fatalf("bad init info: %v", init.Info)
		}
	}
}

// TestCompactPromptSize: the compact system prompt plus any instruction
// fits in about 400 bytes, and level-1 expert episodes are two calls.
func TestCompactPromptSize(t *testing.T) {
	e := newEnv(t, Config{Compact: true})
	longest, longestEpisode := 0, 0
	for _, id := range splitIDs(t, e, SplitTrain) {
		info, _ := e.Task(id)
		actions, _ := e.Solve(id)
		if n := len(e.system) + len(info.Instruction); n > longest {
			longest = n
		}
		if info.Level == 1 && len(actions) != 2 {
			t.Errorf("%s: level 1 takes %d calls", id, len(actions))
		}
		in, _ := e.newInstance(context.Background(), id, "", nil)
		n := len(e.system) + len(info.Instruction)
		for _, a := range actions {
			n += len(a.Content) + len(in.apply(a).observation)
		}
		longestEpisode = max(longestEpisode, n)
	}
	if longest > 400 {
		t.Errorf("compact prompt + instruction up to %d bytes, want <= 400", longest)
	}
	t.Logf("compact: system %d bytes, system+instruction <= %d bytes, expert episode text <= %d bytes", len(e.system), longest, longestEpisode)
}

// TestConcurrentInstances runs expert episodes on one Env from several
// goroutines; run with -race it checks that the Env is safe to share.
func TestConcurrentInstances(t *testing.T) {
	e := newEnv(t, Config{TrainSize: 24, ValSize: 1, TestSize: 1})
	ids := splitIDs(t, e, SplitTrain)
	ctx := context.Background()
	errs := make(chan error, len(ids))
	for _, id := range ids {
		go func() {
			inst, err := e.New(ctx, id, id, nil)
			if err != nil {
				errs <- err
				return
			}
			defer inst.Close()
			actions, err := e.Solve(id)
			if err != nil {
				errs <- err
				return
			}
			var last envclient.StepResult
			for _, a := range actions {
				if last, err = inst.Step(ctx, a, map[string]any{"sparse": true}); err != nil {
					errs <- err
					return
				}
			}
			if last.Reward != 1 {
				err = fmt.Errorf("%s: final reward %v", id, last.Reward)
			}
			errs <- err
		}()
	}
	for range ids {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestCustomSystemPrompt: Config.SystemPrompt replaces the built-in prompt
// in the initial state; tasks and scoring are unchanged.
func TestCustomSystemPrompt(t *testing.T) {
	const prompt = "Call one tool per turn."
	custom := newEnv(t, Config{SystemPrompt: prompt, Compact: true, TrainSize: 3, ValSize: 1, TestSize: 1})
	plain := newEnv(t, Config{TrainSize: 3, ValSize: 1, TestSize: 1})
	ctx := context.Background()
	for _, id := range splitIDs(t, custom, SplitTrain) {
		inst, err := custom.New(ctx, id, "i", nil)
		if err != nil {
			t.Fatal(err)
		}
		st, err := inst.InitState(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.State[0].Content != prompt {
			t.Fatalf("system prompt %q", st.State[0].Content)
		}
		a, _ := custom.Task(id)
		b, _ := plain.Task(id)
		if a != b {
			t.Fatalf("task %s changed with the prompt: %+v vs %+v", id, a, b)
		}
	}
}
