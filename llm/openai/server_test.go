package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver"
)

// scriptedServer is an httptest server speaking the chat-completions wire
// format. Each request is answered by the next handler of its script; the
// last handler answers all further requests.
type scriptedServer struct {
	*httptest.Server
	mu       sync.Mutex
	script   []http.HandlerFunc
	bodies   []map[string]any
	headers  []http.Header
	requests int
}

func newScriptedServer(t testing.TB, script ...http.HandlerFunc) *scriptedServer {
	t.Helper()
	s := &scriptedServer{script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *scriptedServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || (r.URL.Path != "/v1/chat/completions" && r.URL.Path != "/v1/embeddings") {
		http.Error(w, fmt.Sprintf("unexpected %s %s", r.Method, r.URL.Path), http.StatusNotFound)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, "bad request json: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	i := s.requests
	s.requests++
	s.bodies = append(s.bodies, body)
	s.headers = append(s.headers, r.Header.Clone())
	h := s.script[min(i, len(s.script)-1)]
	s.mu.Unlock()
	h(w, r)
}

func (s *scriptedServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

func (s *scriptedServer) body(i int) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

// newTestClient returns a client for s with tiny retry delays.
func newTestClient(t testing.TB, s *scriptedServer, mutate func(*Config)) *Client {
	t.Helper()
	cfg := Config{
		BaseURL:        s.URL + "/v1",
		APIKey:         "test-key",
		Model:          "qwen2.5-7b-instruct",
		RetryBaseDelay: time.Millisecond,
		RetryMaxDelay:  5 * time.Millisecond,
		RequestTimeout: 5 * time.Second,
	}
	if mutate != nil {
		mutate(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// jsonReply answers with status and a JSON body.
func jsonReply(status int, body string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// sseReply streams events as server-sent events, flushing each, and ends
// with [DONE] unless done is false.
func sseReply(done bool, events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		f, _ := w.(http.Flusher)
		for _, e := range events {
			_, _ = io.WriteString(w, "data: "+e+"\n\n")
			if f != nil {
				f.Flush()
			}
		}
		if done {
			_, _ = io.WriteString(w, "data: [DONE]\n\n")
		}
	}
}

// completionJSON is a vLLM-style non-streaming response.
func completionJSON(content, finish string) string {
	return `{"id":"chatcmpl-abc123","object":"chat.completion","created":1733000000,"model":"qwen2.5-7b-instruct",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":` + quote(content) + `,"tool_calls":[],"reasoning_content":null},` +
		`"logprobs":null,"finish_reason":"` + finish + `","stop_reason":null}],` +
		`"usage":{"prompt_tokens":21,"total_tokens":29,"completion_tokens":8},"prompt_logprobs":null}`
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// chunkJSON is one streaming chunk with a delta for choice 0.
func chunkJSON(delta, finish, logprobs string) string {
	fr := "null"
	if finish != "" {
		fr = `"` + finish + `"`
	}
	if logprobs == "" {
		logprobs = "null"
	}
	return `{"id":"chatcmpl-stream1","object":"chat.completion.chunk","created":1733000000,"model":"qwen2.5-7b-instruct",` +
		`"choices":[{"index":0,"delta":` + delta + `,"logprobs":` + logprobs + `,"finish_reason":` + fr + `}]}`
}

// usageChunkJSON is the final chunk stream_options.include_usage asks for.
const usageChunkJSON = `{"id":"chatcmpl-stream1","object":"chat.completion.chunk","created":1733000000,"model":"qwen2.5-7b-instruct","choices":[],"usage":{"prompt_tokens":12,"total_tokens":17,"completion_tokens":5}}`

// hang blocks until the request is cancelled by the client.
func hang(w http.ResponseWriter, r *http.Request) {
	<-r.Context().Done()
}

// dropConnection closes the connection without answering.
func dropConnection(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	_ = conn.Close()
}

// testContext bounds a test's calls so that a bug cannot hang the run.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

type msg = agentevolver.Message

func userMessages(text string) []msg { return []msg{{Role: agentevolver.RoleUser, Content: text}} }

func errUnexpectedEOF() error { return io.ErrUnexpectedEOF }
