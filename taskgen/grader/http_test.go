package grader

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/openai"
)

// chatServer is an OpenAI-compatible chat-completions endpoint that
// answers every request with handler and records the request bodies.
type chatServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
}

func newChatServer(t *testing.T, handler http.HandlerFunc) *chatServer {
	t.Helper()
	s := &chatServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.mu.Unlock()
		handler(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *chatServer) requests() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.bodies...)
}

// client returns an llm/openai client for s with quick retries.
func (s *chatServer) client(t *testing.T, stream bool) *openai.Client {
	t.Helper()
	c, err := openai.New(openai.Config{
		BaseURL:        s.URL + "/v1",
		Model:          "qwen3-235b-a22b-instruct-2507",
		MaxRetries:     2,
		RetryBaseDelay: time.Millisecond,
		RetryMaxDelay:  5 * time.Millisecond,
		RequestTimeout: 5 * time.Second,
		Stream:         stream,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// completion answers with a chat.completion whose content is reply.
func completion(reply string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1733000000,"model":"qwen3-235b-a22b-instruct-2507",`+
			`"choices":[{"index":0,"message":{"role":"assistant","content":`+jsonString(reply)+`},"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":900,"completion_tokens":40,"total_tokens":940}}`)
	}
}

// streamed answers with server-sent chunks that spell reply in two parts.
func streamed(reply string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		half := len(reply) / 2
		for _, part := range []string{reply[:half], reply[half:]} {
			_, _ = io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":`+jsonString(part)+`},"finish_reason":null}]}`+"\n\n")
		}
		_, _ = io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
	}
}

// TestJudgeOverHTTP runs banded judges through llm/openai against an
// OpenAI-compatible server: the request on the wire and the score read
// back.
func TestJudgeOverHTTP(t *testing.T) {
	const reply = "Step 0 lists the orders, step 1 sends the total as the reference does.\n<reward>85</reward>"
	tests := []struct {
		name     string
		stream   bool
		handler  http.HandlerFunc
		grader   string
		requests int
	}{
		{"plain", false, completion(reply), NameLLMBinaryGT, 1},
		{"streamed", true, streamed(reply), NameLLMBinaryGTNoConstraint, 1},
		{"averaged", false, completion(reply), NameAvgLLMBinaryGT, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newChatServer(t, tt.handler)
			g, err := New(tt.grader, Config{Model: srv.client(t, tt.stream)})
			if err != nil {
				t.Fatal(err)
			}
			score, reason, err := g.CalculateReward(context.Background(), episode(tt.grader, testGroundTruth))
			if err != nil {
				t.Fatal(err)
			}
			if score < 0.85-1e-12 || score > 0.85+1e-12 {
				t.Errorf("score = %v, want 0.85", score)
			}
			if tt.requests == 1 && reason != reply {
				t.Errorf("reason = %q, want the reply", reason)
			}
			bodies := srv.requests()
			if len(bodies) != tt.requests {
				t.Fatalf("%d requests, want %d", len(bodies), tt.requests)
			}
			body := bodies[0]
			if body["temperature"] != DefaultTemperature || body["max_tokens"] != float64(DefaultBandedMaxTokens) || body["model"] != "qwen3-235b-a22b-instruct-2507" {
				t.Errorf("request %v: want temperature %v, max_tokens %d", body, DefaultTemperature, DefaultBandedMaxTokens)
			}
			msgs, _ := body["messages"].([]any)
			if len(msgs) != 1 {
				t.Fatalf("messages = %v, want one", body["messages"])
			}
			m, _ := msgs[0].(map[string]any)
			content, _ := m["content"].(string)
			if m["role"] != "user" || !strings.Contains(content, testQuery) || !strings.Contains(content, testGroundTruth) ||
				!strings.Contains(content, ">>> STEP 1 <<<\n<|ACTION|>\nmessages.send") {
				t.Errorf("request message = %v", m)
			}
		})
	}
}

// TestJudgeOverHTTPUnavailable: an endpoint that keeps answering 503 is a
// judge failure the caller can tell apart, after the client's retries.
func TestJudgeOverHTTPUnavailable(t *testing.T) {
	srv := newChatServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":{"message":"overloaded","type":"server_error","code":"503"}}`)
	})
	g, err := New(NameLLMBinaryGTNoConstraint, Config{Model: srv.client(t, false)})
	if err != nil {
		t.Fatal(err)
	}
	score, _, err := g.CalculateReward(context.Background(), episode("", testGroundTruth))
	if score != 0 || !errors.Is(err, ErrJudgeFailed) || !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("CalculateReward = %v, %v; want ErrJudgeFailed and llm.ErrUnavailable", score, err)
	}
	if n := len(srv.requests()); n != 3 {
		t.Errorf("%d requests, want 3 (the first and 2 retries)", n)
	}
}
