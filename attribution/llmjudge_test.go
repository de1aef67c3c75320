package attribution

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/openai"
)

// chatServer is an OpenAI-compatible chat-completions endpoint. Each
// request is answered by reply, given the request's index and its decoded
// body.
type chatServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	reply  func(n int, body map[string]any, w http.ResponseWriter)
}

func newChatServer(t *testing.T, reply func(n int, body map[string]any, w http.ResponseWriter)) *chatServer {
	t.Helper()
	s := &chatServer{reply: reply}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, body)
		s.mu.Unlock()
		s.reply(n, body, w)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *chatServer) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// client returns an llm/openai client of s that makes one attempt per
// Chat, so that the judge's own retries are what the tests see.
func (s *chatServer) client(t *testing.T) *openai.Client {
	t.Helper()
	c, err := openai.New(openai.Config{BaseURL: s.URL + "/v1", APIKey: "test", Model: "judge", MaxRetries: -1, RequestTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// answer writes a completion with content, finish reason stop and usage
// 100 prompt and 10 completion tokens.
func answer(w http.ResponseWriter, content string) { completion(w, content, "stop", "") }

func completion(w http.ResponseWriter, content, finish, refusal string) {
	msg := map[string]any{"role": "assistant", "content": content}
	if refusal != "" {
		msg["refusal"] = refusal
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "cmpl-1", "object": "chat.completion", "created": 1, "model": "judge",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
	})
}

// apiError writes an OpenAI error body with status and optional headers
// (key, value, ...).
func apiError(w http.ResponseWriter, status int, code, message string, headers ...string) {
	for i := 0; i+1 < len(headers); i += 2 {
		w.Header().Set(headers[i], headers[i+1])
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": message, "type": code, "code": code}})
}

// verdicts renders the judge answer for flags in the required format.
func verdicts(flags ...bool) string {
	var b strings.Builder
	for i, g := range flags {
		label := "BAD"
		if g {
			label = "GOOD"
		}
		fmt.Fprintf(&b, "Step %d Analysis: checked.\nStep %d Judgment: %s\n\n", i, i, label)
	}
	return b.String()
}

func episode(task string, steps int, outcome float64) Episode {
	ep := Episode{TaskID: task, Query: "system\nuser: " + task, Outcome: outcome, FirstAdvantage: 1}
	for i := range steps {
		ep.Steps = append(ep.Steps, agentevolver.SampleStep{Action: fmt.Sprintf("action %d of %s", i, task), Observation: fmt.Sprintf("obs %d", i)})
	}
	return ep
}

// waits records the judge's waits between attempts without spending them.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.d)
}

func newTestJudge(t *testing.T, model llm.ChatModel, cfg LLMJudgeConfig) (*LLMJudge, *waits) {
	t.Helper()
	j, err := NewLLMJudge(model, cfg)
	if err != nil {
		t.Fatal(err)
	}
	w := &waits{}
	j.sleep = w.sleep
	j.jitter = func() float64 { return 0.5 }
	return j, w
}

func judgeOne(t *testing.T, j *LLMJudge, ep Episode) Judgment {
	t.Helper()
	out, err := j.Judge(context.Background(), []Episode{ep})
	if err != nil || len(out) != 1 {
		t.Fatalf("Judge = %v, %v", out, err)
	}
	return out[0]
}

// TestLLMJudgeRequests: one request per episode, whatever its number of
// steps, carrying the step-evaluation prompt at temperature 0 with 8192
// max tokens; labels, sources and usage come back per episode.
func TestLLMJudgeRequests(t *testing.T) {
	want := map[string][]bool{"a": {true, false, true}, "b": {false}, "c": {true, true, false, false, true}}
	s := newChatServer(t, func(_ int, body map[string]any, w http.ResponseWriter) {
		msgs := body["messages"].([]any)
		user := msgs[1].(map[string]any)["content"].(string)
		task := strings.TrimPrefix(strings.Split(user, "\n")[2], "user: ")
		answer(w, verdicts(want[task]...))
	})
	j, _ := newTestJudge(t, s.client(t), LLMJudgeConfig{})
	eps := []Episode{episode("a", 3, 1), episode("b", 1, 0), episode("c", 5, 1)}
	out, err := j.Judge(context.Background(), eps)
	if err != nil {
		t.Fatal(err)
	}
	for i, ep := range eps {
		got := out[i]
		if got.Source != SourceJudged || !slices.Equal(got.Good, want[ep.TaskID]) || got.Err != nil ||
			got.Calls != 1 || got.PromptTokens != 100 || got.CompletionTokens != 10 || got.Response != strings.TrimSpace(verdicts(want[ep.TaskID]...)) {
			t.Errorf("episode %s: %+v, want judged %v after one call", ep.TaskID, got, want[ep.TaskID])
		}
	}
	if s.requests() != len(eps) {
		t.Fatalf("%d requests for %d episodes", s.requests(), len(eps))
	}
	for _, body := range s.bodies {
		if body["temperature"] != 0.0 || body["max_tokens"] != 8192.0 || body["model"] != "judge" {
			t.Errorf("request options: temperature %v, max_tokens %v, model %v", body["temperature"], body["max_tokens"], body["model"])
		}
		msgs := body["messages"].([]any)
		user := msgs[1].(map[string]any)["content"].(string)
		task := strings.TrimPrefix(strings.Split(user, "\n")[2], "user: ")
		var ep Episode
		for _, e := range eps {
			if e.TaskID == task {
				ep = e
			}
		}
		prompt := StepEvalMessages(ep.Query, ep.Steps, RescaleScore(ep.Outcome), 0)
		if len(msgs) != 2 || msgs[0].(map[string]any)["content"] != prompt[0].Content || user != prompt[1].Content ||
			msgs[0].(map[string]any)["role"] != "system" || msgs[1].(map[string]any)["role"] != "user" {
			t.Errorf("task %s: the request is not the step-evaluation prompt", task)
		}
	}
}

// TestLLMJudgeFallbacks: answers and errors that give no labels fall back
// to the outcome's sign, after the number of requests the reference's
// rules allow, waiting as they prescribe.
func TestLLMJudgeFallbacks(t *testing.T) {
	type reply func(n int, w http.ResponseWriter)
	cases := []struct {
		name      string
		steps     int
		outcome   float64
		reply     reply
		calls     int
		waits     []time.Duration
		judged    []bool // nil: a fallback
		errIs     []error
		errTokens bool // usage of a refused completion is counted
	}{
		{name: "malformed reply is retried", steps: 2, outcome: 1,
			reply: func(int, http.ResponseWriter) {}, calls: 4, waits: []time.Duration{2 * time.Second, 4 * time.Second, 6 * time.Second},
			errIs: []error{openai.ErrMalformedResponse}},
		{name: "malformed reply, then an answer", steps: 1, outcome: 0,
			reply: func(n int, w http.ResponseWriter) {
				if n == 0 {
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write([]byte(`{"choices": [{"message": {"content": `))
					return
				}
				answer(w, verdicts(false))
			}, calls: 2, waits: []time.Duration{2 * time.Second}, judged: []bool{false}},
		{name: "unparsable answer", steps: 2, outcome: 1,
			reply: func(_ int, w http.ResponseWriter) { answer(w, "I cannot tell which steps helped.") }, calls: 1,
			errIs: []error{ErrParse, ErrTooFewJudgments}},
		{name: "too few judgments", steps: 3, outcome: 0,
			reply: func(_ int, w http.ResponseWriter) { answer(w, verdicts(true)) }, calls: 1, errIs: []error{ErrTooFewJudgments}},
		{name: "one-based numbering", steps: 2, outcome: 1,
			reply: func(_ int, w http.ResponseWriter) { answer(w, "Step 1 Judgment: GOOD\nStep 2 Judgment: BAD") }, calls: 1,
			errIs: []error{ErrStepNumbering}},
		{name: "rate limit with Retry-After, then an answer", steps: 2, outcome: 1,
			reply: func(n int, w http.ResponseWriter) {
				if n == 0 {
					apiError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "Rate limit reached", "Retry-After", "3")
					return
				}
				answer(w, verdicts(false, true))
			}, calls: 2, waits: []time.Duration{3 * time.Second}, judged: []bool{false, true}},
		{name: "rate limits without a hint back off exponentially", steps: 1, outcome: 1,
			reply: func(n int, w http.ResponseWriter) {
				if n < 3 {
					apiError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "Requests rate limit exceeded")
					return
				}
				answer(w, verdicts(true))
			}, calls: 4, judged: []bool{true},
			// b + U·b/4 with U = 0.5, b = 1.5^attempt.
			waits: []time.Duration{1125 * time.Millisecond, 1687500 * time.Microsecond, 2531250 * time.Microsecond}},
		{name: "rate limited throughout", steps: 2, outcome: 0,
			reply: func(_ int, w http.ResponseWriter) {
				apiError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "slow down", "Retry-After", "1")
			}, calls: 4, waits: []time.Duration{time.Second, time.Second, time.Second},
			errIs: []error{openai.ErrRateLimited, llm.ErrUnavailable}},
		{name: "exhausted quota is final", steps: 2, outcome: 1,
			reply: func(_ int, w http.ResponseWriter) {
				apiError(w, http.StatusTooManyRequests, "insufficient_quota", "You exceeded your current quota")
			}, calls: 1, errIs: []error{openai.ErrRateLimited}},
		{name: "server errors, then an answer", steps: 1, outcome: 0,
			reply: func(n int, w http.ResponseWriter) {
				if n < 2 {
					apiError(w, http.StatusServiceUnavailable, "server_error", "overloaded")
					return
				}
				answer(w, verdicts(true))
			}, calls: 3, waits: []time.Duration{2 * time.Second, 4 * time.Second}, judged: []bool{true}},
		{name: "server down throughout", steps: 3, outcome: 1,
			reply: func(_ int, w http.ResponseWriter) {
				apiError(w, http.StatusInternalServerError, "server_error", "boom")
			},
			calls: 4, waits: []time.Duration{2 * time.Second, 4 * time.Second, 6 * time.Second}, errIs: []error{llm.ErrUnavailable}},
		{name: "content moderation twice", steps: 2, outcome: 1,
			reply: func(_ int, w http.ResponseWriter) {
				apiError(w, http.StatusBadRequest, "data_inspection_failed", "Input data may contain inappropriate content.")
			}, calls: 2, waits: []time.Duration{2 * time.Second}, errIs: []error{ErrRefused, openai.ErrContentFiltered}},
		{name: "content moderation once, then an answer", steps: 2, outcome: 0,
			reply: func(n int, w http.ResponseWriter) {
				if n == 0 {
					apiError(w, http.StatusBadRequest, "data_inspection_failed", "Output data may contain inappropriate content.")
					return
				}
				answer(w, verdicts(true, false))
			}, calls: 2, waits: []time.Duration{2 * time.Second}, judged: []bool{true, false}},
		{name: "finish_reason content_filter twice", steps: 1, outcome: 0,
			reply: func(_ int, w http.ResponseWriter) { completion(w, "", "content_filter", "") },
			calls: 2, waits: []time.Duration{2 * time.Second}, errIs: []error{ErrRefused, openai.ErrContentFiltered}, errTokens: true},
		{name: "model refusal twice", steps: 1, outcome: 1,
			reply: func(_ int, w http.ResponseWriter) { completion(w, "", "stop", "I won't grade this.") },
			calls: 2, waits: []time.Duration{2 * time.Second}, errIs: []error{ErrRefused, openai.ErrRefused}, errTokens: true},
		{name: "prompt too long is final", steps: 2, outcome: 1,
			reply: func(_ int, w http.ResponseWriter) {
				apiError(w, http.StatusBadRequest, "context_length_exceeded", "This model's maximum context length is 8192 tokens.")
			}, calls: 1, errIs: []error{openai.ErrContextLength}},
		{name: "bad key is final", steps: 2, outcome: 0,
			reply: func(_ int, w http.ResponseWriter) {
				apiError(w, http.StatusUnauthorized, "invalid_api_key", "Incorrect API key")
			},
			calls: 1},
		{name: "thinking stripped", steps: 2, outcome: 1,
			reply: func(_ int, w http.ResponseWriter) {
				answer(w, "<think>Draft: Step 0 Judgment: BAD\nStep 1 Judgment: BAD</think>\n\n"+verdicts(true, false))
			}, calls: 1, judged: []bool{true, false}},
		{name: "thinking without its opening tag", steps: 1, outcome: 0,
			reply: func(_ int, w http.ResponseWriter) {
				answer(w, "Okay, step 0 seems GOOD... no, BAD.\n</think>\nStep 0 Judgment: GOOD")
			},
			calls: 1, judged: []bool{true}},
		{name: "thinking cut off by the token limit", steps: 2, outcome: 1,
			reply: func(_ int, w http.ResponseWriter) { answer(w, "<think>Step 0 Judgment: GOOD\nStep 1 Judgment: GOOD") },
			calls: 1, errIs: []error{ErrTooFewJudgments}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newChatServer(t, func(n int, _ map[string]any, w http.ResponseWriter) { c.reply(n, w) })
			j, w := newTestJudge(t, s.client(t), LLMJudgeConfig{})
			ep := episode("t", c.steps, c.outcome)
			got := judgeOne(t, j, ep)
			if got.Calls != c.calls || s.requests() != c.calls {
				t.Errorf("%d calls (server saw %d), want %d", got.Calls, s.requests(), c.calls)
			}
			if ws := w.all(); !slices.Equal(ws, c.waits) {
				t.Errorf("waits %v, want %v", ws, c.waits)
			}
			if c.judged != nil {
				if got.Source != SourceJudged || !slices.Equal(got.Good, c.judged) || got.Err != nil {
					t.Errorf("got %v %v (err %v), want judged %v", got.Source, got.Good, got.Err, c.judged)
				}
				return
			}
			if got.Source != SourceFallback || !slices.Equal(got.Good, OutcomeFlags(ep)) || got.Err == nil {
				t.Errorf("got %v %v (err %v), want the fallback %v with an error", got.Source, got.Good, got.Err, OutcomeFlags(ep))
			}
			for _, target := range c.errIs {
				if !errors.Is(got.Err, target) {
					t.Errorf("err %v does not match %v", got.Err, target)
				}
			}
			if c.errTokens && got.PromptTokens != 100*c.calls {
				t.Errorf("prompt tokens %d, want the refused completions' %d", got.PromptTokens, 100*c.calls)
			}
		})
	}
}

// TestLLMJudgeAttempts: MaxAttempts bounds the requests of an episode.
func TestLLMJudgeAttempts(t *testing.T) {
	for _, attempts := range []int{1, 2, 7} {
		var calls atomic.Int32
		model := llm.ChatModelFunc(func(context.Context, []agentevolver.Message, llm.ChatOptions) (llm.Completion, error) {
			calls.Add(1)
			return llm.Completion{}, fmt.Errorf("endpoint: %w", llm.ErrUnavailable)
		})
		j, w := newTestJudge(t, model, LLMJudgeConfig{MaxAttempts: attempts})
		got := judgeOne(t, j, episode("t", 2, 1))
		if int(calls.Load()) != attempts || got.Calls != attempts || len(w.all()) != attempts-1 || got.Source != SourceFallback ||
			!errors.Is(got.Err, llm.ErrUnavailable) {
			t.Errorf("MaxAttempts %d: %d calls, judgment %+v, waits %v", attempts, calls.Load(), got, w.all())
		}
	}
}

// TestLLMJudgeClassifiesOtherModels: errors of a model other than
// llm/openai are told apart by the reference's words.
func TestLLMJudgeClassifiesOtherModels(t *testing.T) {
	cases := []struct {
		err  error
		kind failKind
	}{
		{errors.New("Error code: 429 - too many requests"), failRateLimit},
		{errors.New("Requests rate limit exceeded, please retry"), failRateLimit},
		{errors.New("limit_requests"), failRateLimit},
		{errors.New("Error code: 400 - data_inspection_failed"), failRefusal},
		{errors.New("Output data may contain inappropriate content."), failRefusal},
		{errors.New("maximum context length exceeded"), failFinal},
		{fmt.Errorf("judge: %w", context.DeadlineExceeded), failOther},
		{fmt.Errorf("judge: %w", llm.ErrUnavailable), failOther},
		{errors.New("connection reset by peer"), failOther},
	}
	for _, c := range cases {
		if got := classify(c.err); got.kind != c.kind {
			t.Errorf("classify(%q) = %d, want %d", c.err, got.kind, c.kind)
		}
	}
}

// TestLLMJudgeCallTimeout: a request that outlives CallTimeout is cut off
// and retried, and reported as an outage.
func TestLLMJudgeCallTimeout(t *testing.T) {
	var calls atomic.Int32
	model := llm.ChatModelFunc(func(ctx context.Context, _ []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
		calls.Add(1)
		<-ctx.Done() // a hung endpoint: only the deadline ends the request
		return llm.Completion{}, ctx.Err()
	})
	j, w := newTestJudge(t, model, LLMJudgeConfig{CallTimeout: time.Millisecond, MaxAttempts: 2})
	got := judgeOne(t, j, episode("t", 1, 1))
	if calls.Load() != 2 || got.Source != SourceFallback || !errors.Is(got.Err, context.DeadlineExceeded) || !errors.Is(got.Err, llm.ErrUnavailable) ||
		!slices.Equal(w.all(), []time.Duration{2 * time.Second}) {
		t.Fatalf("%d calls, %+v, waits %v", calls.Load(), got, w.all())
	}
}

// TestLLMJudgeSkipRules: skipped episodes get the outcome's sign without a
// request; skip_small_adv reads FirstAdvantage.
func TestLLMJudgeSkipRules(t *testing.T) {
	eps := []Episode{
		{TaskID: "win", Outcome: 1, FirstAdvantage: 0.7},
		{TaskID: "loss", Outcome: 0, FirstAdvantage: -0.7},
		{TaskID: "flat-win", Outcome: 1, FirstAdvantage: 0},
		{TaskID: "flat-loss", Outcome: 0, FirstAdvantage: 5e-9},
		{TaskID: "no-steps", Outcome: 1, FirstAdvantage: 1},
	}
	for i := range eps[:4] {
		eps[i].Steps = episode(eps[i].TaskID, 2, 0).Steps
	}
	cases := []struct {
		rule   SkipRule
		judged []string
	}{
		{"", []string{"win", "loss", "flat-win", "flat-loss"}},
		{SkipNone, []string{"win", "loss", "flat-win", "flat-loss"}},
		{SkipSmallAdvantage, []string{"win", "loss"}},
		{SkipAllNegative, []string{"win", "flat-win"}},
	}
	for _, c := range cases {
		var asked sync.Map
		model := llm.ChatModelFunc(func(_ context.Context, msgs []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
			for _, ep := range eps {
				if strings.Contains(msgs[1].Content, "of "+ep.TaskID+"\n") {
					asked.Store(ep.TaskID, true)
				}
			}
			return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: verdicts(false, true)}}, nil
		})
		j, _ := newTestJudge(t, model, LLMJudgeConfig{Skip: c.rule})
		out, err := j.Judge(context.Background(), eps)
		if err != nil {
			t.Fatal(err)
		}
		for i, ep := range eps {
			_, wasAsked := asked.Load(ep.TaskID)
			shouldJudge := slices.Contains(c.judged, ep.TaskID)
			switch {
			case wasAsked != shouldJudge:
				t.Errorf("rule %q, %s: asked %v, want %v", c.rule, ep.TaskID, wasAsked, shouldJudge)
			case shouldJudge && (out[i].Source != SourceJudged || !slices.Equal(out[i].Good, []bool{false, true})):
				t.Errorf("rule %q, %s: %+v, want judged", c.rule, ep.TaskID, out[i])
			case !shouldJudge && (out[i].Source != SourceSkipped || !slices.Equal(out[i].Good, OutcomeFlags(ep)) || out[i].Calls != 0):
				t.Errorf("rule %q, %s: %+v, want skipped with %v", c.rule, ep.TaskID, out[i], OutcomeFlags(ep))
			}
		}
	}
}

// TestLLMJudgeConcurrencyBound: never more than MaxConcurrency requests at
// once, and that many when there is work for them.
func TestLLMJudgeConcurrencyBound(t *testing.T) {
	const limit, n = 3, 12
	var inflight, peak atomic.Int32
	reached := make(chan struct{})
	var once sync.Once
	release := make(chan struct{})
	go func() { <-reached; close(release) }()
	model := llm.ChatModelFunc(func(ctx context.Context, _ []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
		cur := inflight.Add(1)
		defer inflight.Add(-1)
		for p := peak.Load(); cur > p && !peak.CompareAndSwap(p, cur); p = peak.Load() {
		}
		if cur == limit {
			once.Do(func() { close(reached) })
		}
		select { // the first requests wait until the bound is reached
		case <-release:
		case <-ctx.Done():
			return llm.Completion{}, ctx.Err()
		}
		return llm.Completion{Message: agentevolver.Message{Content: verdicts(true)}}, nil
	})
	j, _ := newTestJudge(t, model, LLMJudgeConfig{MaxConcurrency: limit})
	eps := make([]Episode, n)
	for i := range eps {
		eps[i] = episode(fmt.Sprint(i), 1, 1)
	}
	out, err := j.Judge(context.Background(), eps)
	if err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p != limit {
		t.Fatalf("peak concurrency %d, want %d", p, limit)
	}
	for i, r := range out {
		if r.Source != SourceJudged {
			t.Fatalf("episode %d: %+v", i, r)
		}
	}
	if def, _ := NewLLMJudge(model, LLMJudgeConfig{}); def.Config().MaxConcurrency != DefaultJudgeConcurrency {
		t.Fatalf("default concurrency %d", def.Config().MaxConcurrency)
	}
}

// TestLLMJudgeCancel: cancelling the context ends Judge with the
// context's error and no judgments.
func TestLLMJudgeCancel(t *testing.T) {
	started := make(chan struct{}, 100)
	model := llm.ChatModelFunc(func(ctx context.Context, _ []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
		started <- struct{}{}
		<-ctx.Done()
		return llm.Completion{}, ctx.Err()
	})
	j, _ := newTestJudge(t, model, LLMJudgeConfig{MaxConcurrency: 2, CallTimeout: -1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	var out []Judgment
	go func() {
		var err error
		out, err = j.Judge(ctx, []Episode{episode("a", 1, 1), episode("b", 1, 1), episode("c", 1, 0)})
		done <- err
	}()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || out != nil {
		t.Fatalf("Judge after cancel = %v, %v; want nil, context.Canceled", out, err)
	}
}

// TestLLMJudgePanic: a panicking model is a fallback, not a crash.
func TestLLMJudgePanic(t *testing.T) {
	model := llm.ChatModelFunc(func(context.Context, []agentevolver.Message, llm.ChatOptions) (llm.Completion, error) {
		panic("model bug")
	})
	j, _ := newTestJudge(t, model, LLMJudgeConfig{})
	got := judgeOne(t, j, episode("t", 2, 1))
	if got.Source != SourceFallback || got.Err == nil || !strings.Contains(got.Err.Error(), "model bug") {
		t.Fatalf("%+v", got)
	}
}

// TestLLMJudgeConfig: zero values are the defaults; bad settings are
// refused.
func TestLLMJudgeConfig(t *testing.T) {
	model := llm.ChatModelFunc(func(context.Context, []agentevolver.Message, llm.ChatOptions) (llm.Completion, error) {
		return llm.Completion{}, nil
	})
	j, err := NewLLMJudge(model, LLMJudgeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	want := LLMJudgeConfig{Skip: SkipNone, MaxConcurrency: 20, MaxAttempts: 4, CallTimeout: 120 * time.Second, MaxTokens: 8192, MaxStepChars: 2000}
	if got := j.Config(); got != want {
		t.Fatalf("defaults %+v, want %+v", got, want)
	}
	for name, cfg := range map[string]LLMJudgeConfig{
		"unknown skip rule":    {Skip: "skip_everything"},
		"negative concurrency": {MaxConcurrency: -1},
		"negative attempts":    {MaxAttempts: -2},
		"negative tokens":      {MaxTokens: -1},
		"negative step chars":  {MaxStepChars: -1},
	} {
		if _, err := NewLLMJudge(model, cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := NewLLMJudge(nil, LLMJudgeConfig{}); err == nil {
		t.Error("nil model: no error")
	}
}

// TestLLMJudgeRateLimitWait: the reference's backoff, capped at 60 s, and the
// server's hint, capped at 5 minutes.
func TestLLMJudgeRateLimitWait(t *testing.T) {
	cases := []struct {
		attempt int
		hint    time.Duration
		u       float64
		want    time.Duration
	}{
		{0, 0, 0, time.Second},
		{0, 0, 0.999, time.Second + 249750*time.Microsecond},
		{2, 0, 0, 2250 * time.Millisecond},
		{20, 0, 0, 60 * time.Second},
		{20, 0, 1, 75 * time.Second},
		{3, 7 * time.Second, 0.9, 7 * time.Second},
		{0, time.Hour, 0, 5 * time.Minute},
	}
	for _, c := range cases {
		if got := rateLimitWait(c.attempt, c.hint, c.u); got != c.want {
			t.Errorf("rateLimitWait(%d, %v, %v) = %v, want %v", c.attempt, c.hint, c.u, got, c.want)
		}
	}
	for attempt, want := range []time.Duration{2, 4, 6, 8, 10, 12, 14, 15, 15} {
		if got := otherWait(attempt); got != want*time.Second {
			t.Errorf("otherWait(%d) = %v, want %v", attempt, got, want*time.Second)
		}
	}
}
