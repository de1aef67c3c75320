package envtest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/envservice/envtest"
)

// counterEnv is a tiny, correct environment unless a fault is set: task
// count-N asks the agent to say "inc" N times, then "done".
type counterEnv struct {
	faults
	calls atomic.Int64 // steps of every instance (for nondeterministic)
}

// faults break counterEnv in one way each.
type faults struct {
	dupIDs           bool // TaskIDs lists a task twice
	panicStep        bool // Step panics
	scoreOutOfRange  bool // Evaluate scores 1.5
	acceptUnknown    bool // New accepts any task id
	nondeterministic bool // observations count every step of every instance
	badInfo          bool // Info holds a func
	hangStep         bool // Step blocks, ignoring its context
	userOnlyInit     bool // the initial state has no system message
	badOracle        bool // JudgeSteps calls every step BAD
	closePanics      bool // a second Close panics
	plainErrors      bool // unknown tasks and splits are plain errors
	reopens          bool // a step after the end says the episode goes on
	lazyExpert       bool // the demonstration leaves out "done"
	explorerEnds     bool // RandomAction says "done"
	closedSynthesis  bool // synthesised tasks are not open queries
}

var (
	_ envservice.Environment          = (*counterEnv)(nil)
	_ envservice.Expert               = (*counterEnv)(nil)
	_ envservice.TaskMetadataProvider = (*counterEnv)(nil)
	_ envservice.StepOracle           = (*counterEnv)(nil)
	_ envservice.RandomExplorer       = (*counterEnv)(nil)
	_ envservice.TaskSynthesizer      = (*counterEnv)(nil)
)

// hang is closed when the tests end, to let hung steps go.
var hang = make(chan struct{})

func TestMain(m *testing.M) {
	code := m.Run()
	close(hang)
	os.Exit(code)
}

func (e *counterEnv) TaskIDs(ctx context.Context, split string, _ map[string]any) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch split {
	case "train":
		if e.dupIDs {
			return []string{"count-1", "count-2", "count-1"}, nil
		}
		return []string{"count-1", "count-2", "count-3", "count-4"}, nil
	case "val":
		return []string{"count-5", "count-6"}, nil
	}
	return nil, e.badRequest("unknown split %q", split)
}

func (e *counterEnv) badRequest(format string, args ...any) error {
	if e.plainErrors {
		return fmt.Errorf(format, args...)
	}
	return fmt.Errorf("counter: %w: %s", envclient.ErrBadRequest, fmt.Sprintf(format, args...))
}

// target parses a task id.
func (e *counterEnv) target(taskID string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(taskID, "count-"))
	if err != nil || n < 1 || n > 6 || taskID != "count-"+strconv.Itoa(n) {
		if e.acceptUnknown {
			return 1, nil
		}
		return 0, e.badRequest("unknown task %.40q", taskID)
	}
	return n, nil
}

func (e *counterEnv) New(ctx context.Context, taskID, _ string, _ map[string]any) (envservice.Instance, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n, err := e.target(taskID)
	if err != nil {
		return nil, err
	}
	return &counterInstance{env: e, target: n}, nil
}

func (e *counterEnv) Demonstrate(_ context.Context, taskID string) ([]agentevolver.Message, error) {
	n, err := e.target(taskID)
	if err != nil {
		return nil, err
	}
	var msgs []agentevolver.Message
	for range n {
		msgs = append(msgs, say("inc"))
	}
	if e.lazyExpert {
		return msgs, nil
	}
	return append(msgs, say("done")), nil
}

func (e *counterEnv) TaskMetadata(_ context.Context, taskID string) (envservice.TaskMetadata, error) {
	n, err := e.target(taskID)
	return envservice.TaskMetadata{Difficulty: n}, err
}

func (e *counterEnv) JudgeSteps(_ context.Context, taskID string, actions []agentevolver.Message) ([]bool, error) {
	n, err := e.target(taskID)
	if err != nil {
		return nil, err
	}
	verdicts := make([]bool, len(actions))
	count, done := 0, false
	for i, a := range actions {
		switch {
		case done || e.badOracle:
		case a.Content == "inc":
			count++
			verdicts[i] = count <= n
		case a.Content == "done":
			done = true
			verdicts[i] = count == n
		}
	}
	return verdicts, nil
}

func (e *counterEnv) RandomAction(_ context.Context, taskID string, history []agentevolver.Message, _ int64) (agentevolver.Message, error) {
	if _, err := e.target(taskID); err != nil {
		return agentevolver.Message{}, err
	}
	for _, a := range history {
		if a.Content == "done" {
			return agentevolver.Message{}, errors.New("counter: the history ended the episode")
		}
	}
	if e.explorerEnds {
		return say("done"), nil
	}
	return say("inc"), nil
}

// SynthesizeTask makes count-K of an episode that said "inc" K times.
func (e *counterEnv) SynthesizeTask(_ context.Context, seedTaskID string, actions []agentevolver.Message) (agentevolver.Task, error) {
	if _, err := e.target(seedTaskID); err != nil {
		return agentevolver.Task{}, err
	}
	k := 0
	for _, a := range actions {
		if a.Content == "done" {
			break
		}
		if a.Content == "inc" {
			k++
		}
	}
	if k == 0 || k > 6 {
		return agentevolver.Task{}, envservice.ErrNothingAchieved
	}
	return agentevolver.Task{
		TaskID:      "count-" + strconv.Itoa(k),
		Query:       fmt.Sprintf("Count to %d, then say done.", k),
		GroundTruth: strings.Repeat("inc\n", k) + "done",
		OpenQuery:   !e.closedSynthesis,
		Evaluator:   agentevolver.EvaluatorEnv,
	}, nil
}

func say(s string) agentevolver.Message {
	return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: s}
}

type counterInstance struct {
	env    *counterEnv
	target int
	count  int
	done   bool
	closed int
}

var errClosed = fmt.Errorf("counter: %w: instance closed", envclient.ErrInstanceNotFound)

func (in *counterInstance) InitState(context.Context, map[string]any) (envclient.InitState, error) {
	if in.closed > 0 {
		return envclient.InitState{}, errClosed
	}
	msgs := []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: `Answer "inc" or "done".`},
		{Role: agentevolver.RoleUser, Content: fmt.Sprintf("Count to %d, then say done.", in.target)},
	}
	if in.env.userOnlyInit {
		msgs = msgs[1:]
	}
	return envclient.InitState{State: msgs}, nil
}

func (in *counterInstance) Step(ctx context.Context, action agentevolver.Message, _ map[string]any) (envclient.StepResult, error) {
	if in.closed > 0 {
		return envclient.StepResult{}, errClosed
	}
	if in.env.hangStep {
		<-hang
	}
	call := in.env.calls.Add(1)
	var obs string
	switch {
	case in.done:
		obs = "the episode is over"
	case action.Content == "inc":
		if in.env.panicStep {
			var counts []int
			counts[in.count] = 1 // index out of range
		}
		in.count++
		obs = fmt.Sprintf("count=%d", in.count)
	case action.Content == "done":
		in.done = true
		obs = "done"
	default:
		obs = `error: say "inc" or "done"`
	}
	if in.env.nondeterministic {
		obs += fmt.Sprintf(" (step %d of the environment)", call)
	}
	ended := in.done && !(in.env.reopens && obs == "the episode is over")
	return envclient.StepResult{State: []agentevolver.Message{{Role: agentevolver.RoleUser, Content: obs}}, IsTerminated: ended}, nil
}

func (in *counterInstance) Evaluate(_ context.Context, params map[string]any) (float64, error) {
	if in.closed > 0 {
		return 0, errClosed
	}
	if in.env.scoreOutOfRange {
		return 1.5, nil
	}
	if in.done && in.count == in.target {
		return 1, nil
	}
	if params["sparse"] == true {
		return 0, nil
	}
	return float64(min(in.count, in.target)) / float64(in.target+1), nil
}

func (in *counterInstance) Info(context.Context, map[string]any) (any, error) {
	if in.closed > 0 {
		return nil, errClosed
	}
	info := map[string]any{"target": in.target, "count": in.count}
	if in.env.badInfo {
		info["callback"] = func() {}
	}
	return info, nil
}

func (in *counterInstance) Close() error {
	in.closed++
	if in.closed > 1 && in.env.closePanics {
		panic("closed twice")
	}
	return nil
}

func TestCorrectEnvPasses(t *testing.T) {
	for _, opts := range []envtest.Options{
		{},
		{Deterministic: true, Concurrency: 8, Tasks: 1},
		{Splits: []string{"val"}, Actions: func(taskID string, init envclient.InitState) []agentevolver.Message {
			return []agentevolver.Message{say("inc"), say("inc")} // does not end the episode
		}},
	} {
		if err := envtest.TestEnv(t.Context(), &counterEnv{}, opts); err != nil {
			t.Errorf("TestEnv(%+v) failed a correct environment:\n%v", opts, err)
		}
	}
}

func TestRunPasses(t *testing.T) {
	envtest.Run(t, &counterEnv{}, envtest.Options{Deterministic: true})
}

// Each broken environment fails with the failure that names its fault.
func TestBrokenEnvsFail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		faults faults
		opts   envtest.Options
		want   []string
	}{
		{"duplicate ids", faults{dupIDs: true}, envtest.Options{},
			[]string{`envtest: TaskIDs: TaskIDs("train") lists "count-1" twice, at index 0 and 2`}},
		{"panicking Step", faults{panicStep: true}, envtest.Options{},
			[]string{"envtest: Episode: task", "panicked: runtime error: index out of range", "counterInstance).Step (envtest_test.go:"}},
		{"score out of range", faults{scoreOutOfRange: true}, envtest.Options{},
			[]string{"envtest: Episode: task", "score 1.5 outside [0, 1]"}},
		{"New accepts unknown tasks", faults{acceptUnknown: true}, envtest.Options{},
			[]string{`envtest: New: New of an unknown task id ("envtest-no-such-task") succeeded`}},
		{"nondeterministic", faults{nondeterministic: true}, envtest.Options{Deterministic: true},
			[]string{"envtest: Concurrency: concurrent episode", "differs from the sequential episode", "step 1: observation message 0"}},
		{"Info not serialisable", faults{badInfo: true}, envtest.Options{},
			[]string{"envtest: Episode: task", "Info after InitState: the result (map[string]interface {}) is not JSON-serialisable"}},
		{"hanging Step", faults{hangStep: true}, envtest.Options{Timeout: 50 * time.Millisecond, Splits: []string{"val"}, Tasks: 1, Concurrency: 2},
			[]string{"envtest: Episode: task", "did not return within 75ms"}},
		{"no system message", faults{userOnlyInit: true}, envtest.Options{},
			[]string{`InitState returned messages of roles ["user"]; agentflow.Flow wants exactly [system user]`}},
		{"oracle calls expert steps bad", faults{badOracle: true}, envtest.Options{},
			[]string{"envtest: StepOracle: task", "JudgeSteps labels step 1 of the expert's"}},
		{"second Close panics", faults{closePanics: true}, envtest.Options{},
			[]string{"envtest: Close: task", "a second Close after Close: panicked: closed twice"}},
		{"a step after the end goes on", faults{reopens: true}, envtest.Options{},
			[]string{"envtest: Episode: task", "Step after the episode ended returned is_terminated false"}},
		{"the expert does not finish", faults{lazyExpert: true}, envtest.Options{},
			[]string{"envtest: Episode: task \"count-1\": the expert's 1 action did not end the episode", "the expert's demonstration scored 0.5 (sparse 0); want 1"}},
		{"the explorer ends the episode", faults{explorerEnds: true}, envtest.Options{},
			[]string{`envtest: RandomExplorer: task "count-1": the random action "done" of step 1 ended the episode`}},
		{"synthesised tasks are closed", faults{closedSynthesis: true}, envtest.Options{},
			[]string{`envtest: TaskSynthesizer: task "count-1": the task synthesised from the expert's demonstration ("count-1") has OpenQuery false`}},
		{"plain errors", faults{plainErrors: true}, envtest.Options{},
			[]string{"does not match envclient.ErrBadRequest, so the env service answers 500", `TaskIDs("envtest-no-such-split")`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := envtest.TestEnv(t.Context(), &counterEnv{faults: tc.faults}, tc.opts)
			if err == nil {
				t.Fatal("TestEnv passed a broken environment")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the failures do not say %q:\n%v", want, err)
				}
			}
		})
	}
}

// A panic in Step fails the check without crashing the test binary, and
// the loosened initial state accepts a user message alone.
func TestLooseInitState(t *testing.T) {
	err := envtest.TestEnv(t.Context(), &counterEnv{faults: faults{userOnlyInit: true}}, envtest.Options{LooseInitState: true})
	if err != nil {
		t.Errorf("LooseInitState: %v", err)
	}
}

// A negative Concurrency skips the check; Run reports it skipped.
func TestNoConcurrency(t *testing.T) {
	envtest.Run(t, &counterEnv{faults: faults{nondeterministic: true}}, envtest.Options{Deterministic: true, Concurrency: -1})
}

func TestNilEnv(t *testing.T) {
	if err := envtest.TestEnv(t.Context(), nil, envtest.Options{}); err == nil {
		t.Error("TestEnv(nil) passed")
	}
}

// TestEnv stops, saying why, when its context ends.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := envtest.TestEnv(ctx, &counterEnv{}, envtest.Options{})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "envtest: stopped before TaskIDs") {
		t.Errorf("TestEnv with a cancelled context: %v", err)
	}
}

// Run reports a broken property as a failed subtest named after its check;
// it runs in a child process, since the failure would fail this test.
func TestRunNamesTheFailedCheck(t *testing.T) {
	if os.Getenv("ENVTEST_RUN_BROKEN") == "1" {
		envtest.Run(t, &counterEnv{faults: faults{scoreOutOfRange: true}}, envtest.Options{})
		return
	}
	if testing.Short() {
		t.Skip("starts the test binary again")
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestRunNamesTheFailedCheck$", "-test.v")
	cmd.Env = append(os.Environ(), "ENVTEST_RUN_BROKEN=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the child run should fail: %v\n%s", err, out)
	}
	for _, want := range []string{
		"--- FAIL: TestRunNamesTheFailedCheck/Episode",
		"score 1.5 outside [0, 1]",
		"--- PASS: TestRunNamesTheFailedCheck/TaskIDs",
		"--- SKIP: TestRunNamesTheFailedCheck/Profile",
		"the environment is not an envservice.ProfileProvider",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the child's output does not say %q:\n%s", want, out)
		}
	}
}
