package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// fakeServer is a scripted vLLM: chat completions with token ids and
// log-probs for the base model and loaded adapters, the runtime LoRA
// endpoints and /models, and knobs to make it fail.
type fakeServer struct {
	t    *testing.T
	srv  *httptest.Server
	base string

	mu       sync.Mutex
	adapters []string
	loads    []string
	unloads  []string
	chats    []string // the model each chat request named
	failChat int      // the next failChat chat requests answer 503
	failLoad int      // the next failLoad loads answer 500
	down     bool     // every endpoint answers 503
	staleAs  string   // chat replies name this model instead
	body     string   // a chat reply body replacing the scripted one
	status   int      // with body: its status (0: 200)
	block    chan struct{}
}

func newFakeServer(t *testing.T) *fakeServer {
	t.Helper()
	f := &fakeServer{t: t, base: "base-model"}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) url() string { return f.srv.URL + "/v1" }

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	down := f.down
	f.mu.Unlock()
	if down {
		http.Error(w, `{"error": "down"}`, http.StatusServiceUnavailable)
		return
	}
	switch r.URL.Path {
	case "/v1/models":
		f.mu.Lock()
		data := []map[string]any{{"id": f.base, "object": "model"}}
		for _, a := range f.adapters {
			data = append(data, map[string]any{"id": a, "object": "model", "parent": f.base})
		}
		f.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	case "/v1/load_lora_adapter":
		var req struct {
			LoraName string `json:"lora_name"`
			LoraPath string `json:"lora_path"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.LoraName == "" || req.LoraPath == "" {
			http.Error(w, "bad load request", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.failLoad > 0 {
			f.failLoad--
			http.Error(w, "load failed", http.StatusInternalServerError)
			return
		}
		if slices.Contains(f.adapters, req.LoraName) {
			http.Error(w, "The lora adapter has already been loaded.", http.StatusBadRequest)
			return
		}
		f.adapters = append(f.adapters, req.LoraName)
		f.loads = append(f.loads, req.LoraName)
		fmt.Fprintf(w, "Success: LoRA adapter '%s' added successfully.", req.LoraName)
	case "/v1/unload_lora_adapter":
		var req struct {
			LoraName string `json:"lora_name"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.mu.Lock()
		defer f.mu.Unlock()
		i := slices.Index(f.adapters, req.LoraName)
		if i < 0 {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		f.adapters = slices.Delete(f.adapters, i, i+1)
		f.unloads = append(f.unloads, req.LoraName)
	case "/v1/chat/completions":
		f.chat(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeServer) chat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if !req.LogProbs || !req.ReturnTokensAsTokenIDs {
		f.t.Errorf("request without logprobs or token ids: %+v", req)
	}
	f.mu.Lock()
	f.chats = append(f.chats, req.Model)
	block := f.block
	fail := f.failChat > 0
	if fail {
		f.failChat--
	}
	known := req.Model == f.base || slices.Contains(f.adapters, req.Model)
	model := req.Model
	if f.staleAs != "" {
		model = f.staleAs
	}
	body, status := f.body, f.status
	f.mu.Unlock()
	if block != nil {
		<-block
	}
	switch {
	case fail:
		http.Error(w, `{"error": "overloaded"}`, http.StatusServiceUnavailable)
	case body != "":
		w.WriteHeader(max(status, http.StatusOK))
		_, _ = w.Write([]byte(body))
	case !known:
		http.Error(w, `{"object": "error", "message": "The model does not exist."}`, http.StatusNotFound)
	default:
		fmt.Fprintf(w, `{"id": "cmpl-1", "object": "chat.completion", "model": %q, "choices": [{"index": 0,
			"message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop",
			"logprobs": {"content": [{"token": "token_id:5", "logprob": -0.5}, {"token": "token_id:7", "logprob": -1.25}]}}],
			"usage": {"prompt_tokens": 3, "completion_tokens": 2}}`, model)
	}
}

func (f *fakeServer) counts() (chats, loads, unloads int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.chats), len(f.loads), len(f.unloads)
}

var hello = []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "hello"}}

func newTestFleet(t *testing.T, cfg Config, servers ...*fakeServer) *Fleet {
	t.Helper()
	for _, s := range servers {
		cfg.BaseURLs = append(cfg.BaseURLs, s.url())
	}
	if cfg.Model == "" {
		cfg.Model = "base-model"
	}
	if cfg.RetryMin == 0 {
		cfg.RetryMin, cfg.RetryMax = 5*time.Millisecond, 20*time.Millisecond
	}
	f, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestChatReturnsTokensAndLogProbs(t *testing.T) {
	s := newFakeServer(t)
	f := newTestFleet(t, Config{VocabSize: 10}, s)
	c, err := f.Chat(context.Background(), hello, llm.ChatOptions{Temperature: llm.Float(0), MaxTokens: 4})
	if err != nil {
		t.Fatal(err)
	}
	if c.Message.Content != "hi" || !slices.Equal(c.TokenIDs, []int{5, 7}) || !slices.Equal(c.LogProbs, []float64{-0.5, -1.25}) ||
		c.FinishReason != "stop" || c.CompletionTokens != 2 {
		t.Fatalf("completion %+v", c)
	}
}

func TestBalancing(t *testing.T) {
	t.Run("round robin", func(t *testing.T) {
		a, b := newFakeServer(t), newFakeServer(t)
		f := newTestFleet(t, Config{Balance: RoundRobin}, a, b)
		for range 6 {
			if _, err := f.Chat(context.Background(), hello, llm.ChatOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if na, _, _ := a.counts(); na != 3 {
			t.Errorf("server a got %d of 6 requests, want 3", na)
		}
	})
	t.Run("least outstanding", func(t *testing.T) {
		a, b := newFakeServer(t), newFakeServer(t)
		a.block = make(chan struct{})
		f := newTestFleet(t, Config{}, a, b)
		done := make(chan error)
		go func() { _, err := f.Chat(context.Background(), hello, llm.ChatOptions{}); done <- err }()
		for { // wait until a holds the first request
			if n, _, _ := a.counts(); n == 1 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		for range 3 { // a is busy: they all go to b
			if _, err := f.Chat(context.Background(), hello, llm.ChatOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		close(a.block)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if na, _, _ := a.counts(); na != 1 {
			t.Errorf("the busy server got %d requests, want 1", na)
		}
		if nb, _, _ := b.counts(); nb != 3 {
			t.Errorf("the idle server got %d requests, want 3", nb)
		}
	})
}

func TestFailingServerLeavesTheRotationAndRejoins(t *testing.T) {
	a, b := newFakeServer(t), newFakeServer(t)
	a.failChat = 1
	f := newTestFleet(t, Config{Balance: RoundRobin}, a, b)
	if err := f.Publish(context.Background(), "step-1", "/adapters/1"); err != nil {
		t.Fatal(err)
	}
	// The failed request is answered by b.
	if _, err := f.Chat(context.Background(), hello, llm.ChatOptions{}); err != nil {
		t.Fatal(err)
	}
	if st := f.Stats(); st.Evictions != 1 || st.InRotation != 1 || st.Failed != 1 {
		t.Fatalf("after a's failure: %+v", st)
	}
	// a restarts and loses its adapters; after the backoff its health
	// check loads the current one and it takes requests again.
	a.mu.Lock()
	a.adapters = nil
	a.mu.Unlock()
	time.Sleep(30 * time.Millisecond)
	for range 4 {
		if _, err := f.Chat(context.Background(), hello, llm.ChatOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if st := f.Stats(); st.Rejoins != 1 || st.InRotation != 2 {
		t.Fatalf("after the backoff: %+v", st)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !slices.Equal(a.adapters, []string{"step-1"}) || !slices.Equal(a.chats[len(a.chats)-2:], []string{"step-1", "step-1"}) {
		t.Fatalf("a holds %v and was asked for %v", a.adapters, a.chats)
	}
}

func TestStaleAdapterIsAnError(t *testing.T) {
	a := newFakeServer(t)
	f := newTestFleet(t, Config{}, a)
	if err := f.Publish(context.Background(), "step-2", "/adapters/2"); err != nil {
		t.Fatal(err)
	}
	a.staleAs = "step-1"
	_, err := f.Chat(context.Background(), hello, llm.ChatOptions{})
	var stale *StaleAdapterError
	if !errors.Is(err, ErrStaleAdapter) || !errors.Is(err, llm.ErrStaleModel) || !errors.As(err, &stale) || stale.Want != "step-2" || stale.Got != "step-1" {
		t.Fatalf("err = %v, want a stale adapter error", err)
	}
	if st := f.Stats(); st.Stale != 1 || st.InRotation != 0 {
		t.Fatalf("stats %+v: the stale server should leave the rotation", st)
	}
	// Until its health check is due, nothing is left.
	if _, err := f.Chat(context.Background(), hello, llm.ChatOptions{}); !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("err = %v, want llm.ErrUnavailable", err)
	}
}

func TestAllServersDown(t *testing.T) {
	a, b := newFakeServer(t), newFakeServer(t)
	a.down, b.down = true, true
	f := newTestFleet(t, Config{}, a, b)
	_, err := f.Chat(context.Background(), hello, llm.ChatOptions{})
	var se *StatusError
	if !errors.Is(err, llm.ErrUnavailable) || !errors.As(err, &se) || se.Status != http.StatusServiceUnavailable {
		t.Fatalf("err = %v, want llm.ErrUnavailable with the 503", err)
	}
	// Publishing with nothing up fails alike and keeps the old model.
	time.Sleep(30 * time.Millisecond)
	if err := f.Publish(context.Background(), "step-1", "/a"); !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("publish: err = %v, want llm.ErrUnavailable", err)
	}
	if f.Model() != "base-model" {
		t.Fatalf("model %q after a failed publish", f.Model())
	}
	// Back up: the next request's health checks readmit them.
	a.mu.Lock()
	a.down = false
	a.mu.Unlock()
	time.Sleep(50 * time.Millisecond)
	if _, err := f.Chat(context.Background(), hello, llm.ChatOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestMalformedReplies(t *testing.T) {
	tests := []struct {
		name, body string
		status     int
		want       error
	}{
		{"not json", "<html>", 200, ErrMalformedResponse},
		{"no model", `{"choices": [{"message": {"content": "x"}, "logprobs": {"content": []}}]}`, 200, ErrMalformedResponse},
		{"no choices", `{"model": "base-model", "choices": []}`, 200, ErrMalformedResponse},
		{"no logprobs", `{"model": "base-model", "choices": [{"message": {"content": "x"}}]}`, 200, ErrMalformedResponse},
		{"token text", `{"model": "base-model", "choices": [{"message": {"content": "x"}, "logprobs": {"content": [{"token": "x", "logprob": -1}]}}]}`, 200, ErrMalformedResponse},
		{"null logprob", `{"model": "base-model", "choices": [{"message": {"content": "x"}, "logprobs": {"content": [{"token": "token_id:1", "logprob": null}]}}]}`, 200, ErrMalformedResponse},
		{"positive logprob", `{"model": "base-model", "choices": [{"message": {"content": "x"}, "logprobs": {"content": [{"token": "token_id:1", "logprob": 3}]}}]}`, 200, ErrMalformedResponse},
		{"outside vocab", `{"model": "base-model", "choices": [{"message": {"content": "x"}, "logprobs": {"content": [{"token": "token_id:99", "logprob": -1}]}}]}`, 200, ErrMalformedResponse},
		{"too large", `{"model": "base-model", "pad": "` + strings.Repeat("x", 4096) + `"}`, 200, ErrMalformedResponse},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newFakeServer(t)
			s.body, s.status = tc.body, tc.status
			f := newTestFleet(t, Config{VocabSize: 10, MaxResponseBytes: 1024}, s)
			_, err := f.Chat(context.Background(), hello, llm.ChatOptions{})
			if !errors.Is(err, tc.want) || !errors.Is(err, llm.ErrUnavailable) {
				t.Fatalf("err = %v, want %v from the only server, now out of the rotation", err, tc.want)
			}
		})
	}
}

func TestRequestFaultKeepsTheServer(t *testing.T) {
	s := newFakeServer(t)
	s.body, s.status = `{"object": "error", "message": "This model's maximum context length is 16 tokens."}`, http.StatusBadRequest
	f := newTestFleet(t, Config{}, s)
	_, err := f.Chat(context.Background(), hello, llm.ChatOptions{})
	var se *StatusError
	if !errors.As(err, &se) || se.Status != http.StatusBadRequest || errors.Is(err, llm.ErrUnavailable) || !strings.Contains(err.Error(), "context length") {
		t.Fatalf("err = %v, want the 400 as it is", err)
	}
	if st := f.Stats(); st.InRotation != 1 {
		t.Fatalf("a refused request evicted the server: %+v", st)
	}
}

func TestPublish(t *testing.T) {
	a, b := newFakeServer(t), newFakeServer(t)
	f := newTestFleet(t, Config{}, a, b)
	ctx := context.Background()
	if err := f.Publish(ctx, "step-1", "/adapters/1"); err != nil {
		t.Fatal(err)
	}
	b.failLoad = 1
	if err := f.Publish(ctx, "step-2", "/adapters/2"); err != nil {
		t.Fatal(err)
	}
	if f.Model() != "step-2" {
		t.Fatalf("model %q", f.Model())
	}
	if st := f.Stats(); st.InRotation != 1 || st.LoadFailures != 1 {
		t.Fatalf("after b failed to load: %+v", st)
	}
	// a swapped adapters; b still holds step-1 and is out until it rejoins.
	if !slices.Equal(a.adapters, []string{"step-2"}) || !slices.Equal(a.unloads, []string{"step-1"}) {
		t.Fatalf("a holds %v, unloaded %v", a.adapters, a.unloads)
	}
	time.Sleep(30 * time.Millisecond)
	for range 2 {
		if _, err := f.Chat(ctx, hello, llm.ChatOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.Equal(b.adapters, []string{"step-2"}) {
		t.Fatalf("b rejoined holding %v, want only step-2 (its stale step-1 unloaded)", b.adapters)
	}
	for _, m := range append(slices.Clone(a.chats), b.chats...) {
		if m != "step-2" {
			t.Fatalf("a request named %q after step-2 was published", m)
		}
	}
	if err := f.Publish(ctx, "step-2", "/adapters/2"); !errors.Is(err, ErrConfig) {
		t.Fatalf("republishing the current name: err = %v, want ErrConfig", err)
	}
}

// TestPublishRejoiningServerPrunes has a server miss a publish and rejoin
// through the next one: it must end holding only the new adapter (the one
// it kept from before the publish it missed unloaded), with no unload of
// an adapter it never had.
func TestPublishRejoiningServerPrunes(t *testing.T) {
	a, b := newFakeServer(t), newFakeServer(t)
	f := newTestFleet(t, Config{}, a, b)
	ctx := context.Background()
	if err := f.Publish(ctx, "step-1", "/adapters/1"); err != nil {
		t.Fatal(err)
	}
	b.failLoad = 1
	if err := f.Publish(ctx, "step-2", "/adapters/2"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond) // b's health check is due
	if err := f.Publish(ctx, "step-3", "/adapters/3"); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.Equal(b.adapters, []string{"step-3"}) || !slices.Equal(b.unloads, []string{"step-1"}) {
		t.Errorf("b rejoined through a publish holding %v, unloaded %v; want [step-3], [step-1]", b.adapters, b.unloads)
	}
	if st := f.Stats(); st.InRotation != 2 || st.UnloadFailures != 0 || st.Rejoins != 1 {
		t.Errorf("after b rejoined: %+v", st)
	}
}

// TestPublishSweepsOwnedLeftovers: adapters an earlier process left on a
// server (it crashed before unloading them) are unloaded by the first
// publish when their names have Config.OwnedPrefix; others' adapters stay,
// and without a prefix nothing but the fleet's own is unloaded.
func TestPublishSweepsOwnedLeftovers(t *testing.T) {
	ctx := context.Background()
	for _, prefix := range []string{"exp-step_", ""} {
		a := newFakeServer(t)
		a.adapters = []string{"exp-step_000003-dead-1", "other-step_000001-cafe-1", "exp-step_000002-dead-1"}
		f := newTestFleet(t, Config{OwnedPrefix: prefix}, a)
		if err := f.Publish(ctx, "exp-step_000004-beef-1", "/adapters/4"); err != nil {
			t.Fatal(err)
		}
		if err := f.Publish(ctx, "exp-step_000005-beef-2", "/adapters/5"); err != nil {
			t.Fatal(err)
		}
		a.mu.Lock()
		held, unloaded := slices.Clone(a.adapters), slices.Clone(a.unloads)
		a.mu.Unlock()
		want, wantUnloads := []string{"other-step_000001-cafe-1", "exp-step_000005-beef-2"},
			[]string{"exp-step_000003-dead-1", "exp-step_000002-dead-1", "exp-step_000004-beef-1"}
		if prefix == "" {
			want = []string{"exp-step_000003-dead-1", "other-step_000001-cafe-1", "exp-step_000002-dead-1", "exp-step_000005-beef-2"}
			wantUnloads = []string{"exp-step_000004-beef-1"}
		}
		if !slices.Equal(held, want) || !slices.Equal(unloaded, wantUnloads) {
			t.Errorf("prefix %q: server holds %v, unloaded %v; want %v, %v", prefix, held, unloaded, want, wantUnloads)
		}
	}
}

func TestNewRejects(t *testing.T) {
	for _, cfg := range []Config{
		{},
		{BaseURLs: []string{"ftp://x"}},
		{BaseURLs: []string{"http://a/v1", "http://a/v1/"}},
		{BaseURLs: []string{"http://a/v1"}, Balance: "random"},
	} {
		if _, err := New(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v): err = %v, want ErrConfig", cfg, err)
		}
	}
}
