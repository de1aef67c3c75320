package experience

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// scriptedModel is a summary model that answers each request with answer(task,
// request), recording the requests.
type scriptedModel struct {
	mu       sync.Mutex
	requests [][]agentevolver.Message
	opts     []llm.ChatOptions
	answer   func(ctx context.Context, task string) (string, error)
}

func (m *scriptedModel) model() llm.ChatModel {
	return llm.ChatModelFunc(func(ctx context.Context, msgs []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
		m.mu.Lock()
		m.requests = append(m.requests, msgs)
		m.opts = append(m.opts, opts)
		m.mu.Unlock()
		answer, err := m.answer(ctx, requestTask(msgs))
		if err != nil {
			return llm.Completion{}, err
		}
		return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: answer}, FinishReason: "stop"}, nil
	})
}

func (m *scriptedModel) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.requests)
}

// requestTask reads the task line of a summary request.
func requestTask(msgs []agentevolver.Message) string {
	task, _, _ := strings.Cut(strings.TrimPrefix(msgs[len(msgs)-1].Content, "### Task\n"), "\n")
	return task
}

// fixedAnswer answers every request with s.
func fixedAnswer(s string) func(context.Context, string) (string, error) {
	return func(context.Context, string) (string, error) { return s, nil }
}

// summaryTrajectory is an episode of task id with the given query, one
// action and its observation.
func summaryTrajectory(id, query, action, obs string, outcome float64) agentevolver.Trajectory {
	return agentevolver.Trajectory{
		TaskID: id, Query: query,
		Steps: []agentevolver.Message{
			{Role: agentevolver.RoleSystem, Content: "You call tools."},
			{Role: agentevolver.RoleUser, Content: query},
			toolAction(action),
			{Role: agentevolver.RoleUser, Content: obs},
		},
		Reward: agentevolver.NewReward(outcome, "", 0),
	}
}

func newLLMSummarizer(t *testing.T, m *scriptedModel, cfg LLMSummarizerConfig) *LLMSummarizer {
	t.Helper()
	s, err := NewLLMSummarizer(m.model(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Real toolworld episodes, a success and a failure of one task, go out as
// one request showing the task, every action and observation and both
// outcomes; the lessons come back keyed by the task's query.
func TestLLMSummarizerToolworld(t *testing.T) {
	ctx := context.Background()
	env := summaryToolworld(t)
	const id = "tw-train-0002"
	good := demoEpisode(t, env, id)
	bad := playEpisode(t, env, id, []agentevolver.Message{toolAction("contacts.list"), toolAction("task.finish answer=Sam")})
	m := &scriptedModel{answer: fixedAnswer("<think>LESSON: a draft that is not the answer</think>\n" +
		"Here are the lessons:\n" +
		"LESSON: To find who you meet on a day, list that day's calendar first.\n" +
		"- LESSON: Give the phone number, not the name, to task.finish.")}
	s := newLLMSummarizer(t, m, LLMSummarizerConfig{})
	exps, err := s.Summarize(ctx, []agentevolver.Trajectory{good, bad})
	if err != nil {
		t.Fatal(err)
	}
	want := []Experience{
		{Text: "To find who you meet on a day, list that day's calendar first.", Key: good.Query, TaskID: id, Score: 0.5, Source: SourceLLM},
		{Text: "Give the phone number, not the name, to task.finish.", Key: good.Query, TaskID: id, Score: 0.5, Source: SourceLLM},
	}
	if !reflect.DeepEqual(exps, want) {
		t.Errorf("got %+v\nwant %+v", exps, want)
	}
	if m.count() != 1 {
		t.Fatalf("%d requests, want 1", m.count())
	}
	req := m.requests[0]
	if len(req) != 2 || req[0].Role != agentevolver.RoleSystem || req[1].Role != agentevolver.RoleUser {
		t.Fatalf("request roles: %+v", req)
	}
	if !strings.Contains(req[0].Content, "at most 3 lessons") || !strings.Contains(req[0].Content, "at most 300 characters") {
		t.Errorf("system message does not state the bounds:\n%s", req[0].Content)
	}
	user := req[1].Content
	for _, want := range []string{
		"### Task\nWhat is the phone number of the person I meet on Tue?",
		"### Attempt 1 (outcome 1.00, solved)\nAction 1:\n```tool\ncalendar.list day=Tue\n```\nObservation 1: 3: coffee with Sam",
		"Action 2:\n```tool\ncontacts.find name=Sam\n```\nObservation 2: Sam 555-1457",
		"### Attempt 2 (outcome 0.00, failed)\nAction 1:\n```tool\ncontacts.list\n```",
		"Action 2:\n```tool\ntask.finish answer=Sam\n```\nObservation 2: task finished",
	} {
		if !strings.Contains(user, want) {
			t.Errorf("request lacks %q:\n%s", want, user)
		}
	}
	if strings.Contains(user, "One call per turn") {
		t.Errorf("request shows the system prompt:\n%s", user)
	}
	if o := m.opts[0]; o.Temperature == nil || *o.Temperature != 0 || o.MaxTokens != DefaultSummaryMaxTokens {
		t.Errorf("options %+v, want temperature 0 and MaxTokens %d", o, DefaultSummaryMaxTokens)
	}
}

func TestLLMSummarizerAnswers(t *testing.T) {
	trajs := []agentevolver.Trajectory{
		summaryTrajectory("a", "task a", "x", "ok", 1),
		summaryTrajectory("b", "task b", "y", "error: no", 0),
		summaryTrajectory("c", "task c", "z", "ok", 1),
	}
	many := ""
	for i := range 10 {
		many += fmt.Sprintf("LESSON: lesson %d\n", i)
	}
	tests := []struct {
		name      string
		cfg       LLMSummarizerConfig
		answers   map[string]string // by task; missing: "LESSON: ok <task>"
		want      []string          // "task: text"
		malformed int
	}{
		{name: "good", want: []string{"a: ok task a", "b: ok task b", "c: ok task c"}},
		{name: "malformed answer gives none", answers: map[string]string{"task b": "I think the agent should have tried harder."},
			want: []string{"a: ok task a", "c: ok task c"}, malformed: 1},
		{name: "empty answer", answers: map[string]string{"task a": "", "task c": "<think>unfinished"},
			want: []string{"b: ok task b"}, malformed: 2},
		{name: "NONE gives none without error", answers: map[string]string{"task a": "NONE", "task b": "**None.**"},
			want: []string{"c: ok task c"}},
		{name: "too many lessons", answers: map[string]string{"task a": many},
			want: []string{"a: lesson 0", "a: lesson 1", "a: lesson 2", "b: ok task b", "c: ok task c"}},
		{name: "MaxLessons", cfg: LLMSummarizerConfig{MaxLessons: 5}, answers: map[string]string{"task a": many},
			want: []string{"a: lesson 0", "a: lesson 1", "a: lesson 2", "a: lesson 3", "a: lesson 4", "b: ok task b", "c: ok task c"}},
		{name: "long lessons cut", cfg: LLMSummarizerConfig{MaxLessonChars: 12}, answers: map[string]string{"task a": "LESSON: " + strings.Repeat("word ", 40)},
			want: []string{"a: word word…", "b: ok task b", "c: ok task c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &scriptedModel{answer: func(_ context.Context, task string) (string, error) {
				if a, ok := tt.answers[task]; ok {
					return a, nil
				}
				return "LESSON: ok " + task, nil
			}}
			s := newLLMSummarizer(t, m, tt.cfg)
			exps, err := s.Summarize(context.Background(), trajs)
			var got []string
			for _, e := range exps {
				got = append(got, e.TaskID+": "+e.Text)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
			if tt.malformed == 0 {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			var se *SummaryError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SummaryError", err)
			}
			if se.Groups != 3 || len(se.Failed) != tt.malformed || se.Count(ErrMalformedAnswer) != tt.malformed || !errors.Is(err, ErrMalformedAnswer) {
				t.Errorf("SummaryError %+v: groups %d, failed %d, malformed %d; want 3, %d, %d", se, se.Groups, len(se.Failed), se.Count(ErrMalformedAnswer), tt.malformed, tt.malformed)
			}
			if errors.Is(err, llm.ErrUnavailable) {
				t.Errorf("bad answers read as an outage: %v", err)
			}
		})
	}
}

// An outage propagates as llm.ErrUnavailable, and no request is sent
// after it.
func TestLLMSummarizerOutage(t *testing.T) {
	var trajs []agentevolver.Trajectory
	for _, id := range []string{"a", "b", "c", "d"} {
		trajs = append(trajs, summaryTrajectory(id, "task "+id, "x", "ok", 1))
	}
	m := &scriptedModel{answer: func(_ context.Context, task string) (string, error) {
		if task == "task b" {
			return "", fmt.Errorf("openai: HTTP 503 after 3 attempts: %w", llm.ErrUnavailable)
		}
		return "LESSON: ok " + task, nil
	}}
	s := newLLMSummarizer(t, m, LLMSummarizerConfig{MaxConcurrency: 1})
	exps, err := s.Summarize(context.Background(), trajs)
	if !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("error %v does not match llm.ErrUnavailable", err)
	}
	var se *SummaryError
	if !errors.As(err, &se) || se.Count(llm.ErrUnavailable) != 3 || se.Count(ErrMalformedAnswer) != 0 {
		t.Errorf("SummaryError %+v: want groups b, c, d unavailable", se)
	}
	if len(exps) != 1 || exps[0].TaskID != "a" {
		t.Errorf("experiences %+v, want task a's", exps)
	}
	if m.count() != 2 {
		t.Errorf("%d requests, want 2 (none after the outage)", m.count())
	}
	if se != nil && (se.Failed[0].TaskID != "b" || se.Failed[0].Trajectories != 1) {
		t.Errorf("first failure %+v, want task b of 1 trajectory", se.Failed[0])
	}
}

// Cancelling stops waiting requests promptly and returns ctx's error and
// no experiences; a cancelled context sends nothing.
func TestLLMSummarizerCancelled(t *testing.T) {
	var trajs []agentevolver.Trajectory
	for i := range 6 {
		id := fmt.Sprint(i)
		trajs = append(trajs, summaryTrajectory(id, "task "+id, "x", "ok", 1))
	}
	started := make(chan struct{}, len(trajs))
	m := &scriptedModel{answer: func(ctx context.Context, task string) (string, error) {
		if task == "task 0" {
			return "LESSON: fast", nil
		}
		started <- struct{}{}
		<-ctx.Done()
		return "", ctx.Err()
	}}
	s := newLLMSummarizer(t, m, LLMSummarizerConfig{MaxConcurrency: 2})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	done := make(chan struct{})
	var (
		exps []Experience
		err  error
	)
	go func() {
		defer close(done)
		exps, err = s.Summarize(ctx, trajs)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Summarize did not return after cancellation")
	}
	if !errors.Is(err, context.Canceled) || exps != nil {
		t.Errorf("got %v, %v; want nil, context.Canceled", exps, err)
	}
	if n := m.count(); n > 3 {
		t.Errorf("%d requests after cancellation, want at most 3", n)
	}

	m2 := &scriptedModel{answer: fixedAnswer("LESSON: x")}
	exps, err = newLLMSummarizer(t, m2, LLMSummarizerConfig{}).Summarize(ctx, trajs)
	if !errors.Is(err, context.Canceled) || exps != nil || m2.count() != 0 {
		t.Errorf("cancelled context: %v, %v, %d requests; want nil, context.Canceled, 0", exps, err, m2.count())
	}
}

// Requests run at most MaxConcurrency at once, one per batch of at most
// BatchSize trajectories of one task, and the output order is the task
// order whatever the order the answers come in.
func TestLLMSummarizerConcurrencyAndBatches(t *testing.T) {
	var trajs []agentevolver.Trajectory
	for i := range 10 {
		id := fmt.Sprintf("t%02d", 9-i)
		trajs = append(trajs, summaryTrajectory(id, "task "+id, "x", "ok", 1))
	}
	for range 5 { // t99 has 5 trajectories: two batches of at most 3
		trajs = append(trajs, summaryTrajectory("t99", "task t99", "x", "ok", 0))
	}
	var inFlight, peak atomic.Int32
	m := &scriptedModel{answer: func(_ context.Context, task string) (string, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		var d int
		// Later tasks answer first.
		d, _ = strconv.Atoi(task[len(task)-2:])
		time.Sleep(time.Duration(100-d) * 20 * time.Microsecond)
		return "LESSON: ok " + task, nil
	}}
	s := newLLMSummarizer(t, m, LLMSummarizerConfig{MaxConcurrency: 3, BatchSize: 3})
	exps, err := s.Summarize(context.Background(), trajs)
	if err != nil {
		t.Fatal(err)
	}
	if m.count() != 12 {
		t.Errorf("%d requests, want 12 (10 tasks, one of them in two batches)", m.count())
	}
	if p := peak.Load(); p > 3 {
		t.Errorf("%d requests in flight at once, want at most 3", p)
	}
	var got []string
	for _, e := range exps {
		got = append(got, e.TaskID)
	}
	want := []string{"t00", "t01", "t02", "t03", "t04", "t05", "t06", "t07", "t08", "t09", "t99", "t99"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
	for _, req := range m.requests {
		if n := strings.Count(req[1].Content, "### Attempt "); n > 3 {
			t.Errorf("a request shows %d attempts, want at most 3", n)
		}
	}
}

// Long actions and observations are cut, and the middle of a long episode
// left out.
func TestLLMSummarizerPromptBounds(t *testing.T) {
	tr := summaryTrajectory("a", "task a", strings.Repeat("x", 50), strings.Repeat("o", 50), 0)
	for i := range 9 {
		tr.Steps = append(tr.Steps, toolAction(fmt.Sprintf("step%d", i+2)), agentevolver.Message{Role: agentevolver.RoleUser, Content: "fine"})
	}
	m := &scriptedModel{answer: fixedAnswer("LESSON: ok")}
	s := newLLMSummarizer(t, m, LLMSummarizerConfig{MaxStepChars: 20, MaxSteps: 4})
	if _, err := s.Summarize(context.Background(), []agentevolver.Trajectory{tr}); err != nil {
		t.Fatal(err)
	}
	user := m.requests[0][1].Content
	for _, want := range []string{
		"Action 1:\n```tool\nxxxxxxxxxxx…", "Observation 1: ooooooooooooooooooo…",
		"Action 2:\n```tool\nstep2\n```", "[… 6 steps left out …]",
		"Action 9:\n```tool\nstep9\n```", "Action 10:\n```tool\nstep10\n```",
	} {
		if !strings.Contains(user, want) {
			t.Errorf("request lacks %q:\n%s", want, user)
		}
	}
	if strings.Contains(user, "step3") || strings.Contains(user, "step8") {
		t.Errorf("request shows left-out steps:\n%s", user)
	}
}

// Trajectories no summariser learns from cost no request; a panicking
// model fails its group without crashing.
func TestLLMSummarizerSkipsAndPanics(t *testing.T) {
	failed := summaryTrajectory("a", "task a", "x", "ok", 1)
	failed.Error = "env died"
	m := &scriptedModel{answer: fixedAnswer("LESSON: x")}
	s := newLLMSummarizer(t, m, LLMSummarizerConfig{})
	exps, err := s.Summarize(context.Background(), []agentevolver.Trajectory{failed, {TaskID: "empty"}})
	if err != nil || exps != nil || m.count() != 0 {
		t.Errorf("got %v, %v, %d requests; want nothing", exps, err, m.count())
	}

	p := &scriptedModel{answer: func(_ context.Context, task string) (string, error) {
		if task == "task b" {
			panic("boom")
		}
		return "LESSON: ok", nil
	}}
	s = newLLMSummarizer(t, p, LLMSummarizerConfig{})
	exps, err = s.Summarize(context.Background(), []agentevolver.Trajectory{
		summaryTrajectory("a", "task a", "x", "ok", 1), summaryTrajectory("b", "task b", "x", "ok", 1)})
	var se *SummaryError
	if !errors.As(err, &se) || len(se.Failed) != 1 || !strings.Contains(err.Error(), "panicked: boom") || len(exps) != 1 {
		t.Errorf("got %v, %v; want task a's lesson and task b failed", exps, err)
	}
}

func TestLLMSummarizerConfig(t *testing.T) {
	m := &scriptedModel{answer: fixedAnswer("NONE")}
	s, err := NewLLMSummarizer(m.model(), LLMSummarizerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	want := LLMSummarizerConfig{
		MaxLessons: DefaultMaxLessons, MaxLessonChars: DefaultMaxLessonChars, MaxStepChars: DefaultSummaryStepChars,
		MaxSteps: DefaultSummarySteps, BatchSize: DefaultSummaryBatch, MaxConcurrency: DefaultSummaryConcurrency,
		MaxTokens: DefaultSummaryMaxTokens,
	}
	if got := s.Config(); !reflect.DeepEqual(got, want) {
		t.Errorf("defaults %+v, want %+v", got, want)
	}
	for _, cfg := range []LLMSummarizerConfig{{MaxLessons: -1}, {BatchSize: -2}, {MaxConcurrency: -1}, {Temperature: -0.5}} {
		if _, err := NewLLMSummarizer(m.model(), cfg); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
	if _, err := NewLLMSummarizer(nil, LLMSummarizerConfig{}); err == nil {
		t.Error("nil model accepted")
	}
}
