package openai

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/org/agentevolver/llm"
)

// countingTransport counts the requests the client sends, also those that
// never reach a server (a refused connection).
type countingTransport struct {
	base http.RoundTripper
	n    atomic.Int64
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.n.Add(1)
	return t.base.RoundTrip(req)
}

// dropMidStream sends the first chunk of a stream, then closes the
// connection without ending the chunked body: the client reads an unexpected
// EOF.
func dropMidStream(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "data: "+chunkJSON(`{"role":"assistant","content":"par"}`, "", "")+"\n\n")
	w.(http.Flusher).Flush()
	hijackAndClose(w, false)
}

// dropMidBody promises a body longer than it sends, then closes the
// connection.
func dropMidBody(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", "4096")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, `{"id":"chatcmpl-cut","choices":[`)
	w.(http.Flusher).Flush()
	hijackAndClose(w, false)
}

// resetMidStream sends a chunk, then resets the connection (SO_LINGER 0):
// the client sees a reset or an unexpected EOF, whichever its read meets.
func resetMidStream(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "data: "+chunkJSON(`{"role":"assistant","content":"par"}`, "", "")+"\n\n")
	w.(http.Flusher).Flush()
	hijackAndClose(w, true)
}

func hijackAndClose(w http.ResponseWriter, reset bool) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	if tcp, ok := conn.(*net.TCPConn); ok && reset {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

// longLine is one server-sent-events line longer than the SDK's decoder
// accepts, built once.
var longLine = sync.OnceValue(func() []byte {
	b := bytes.Repeat([]byte("x"), sseMaxLine+len("data: ")+1)
	copy(b, "data: ")
	return append(b, "\n\n"...)
})

func sseLongLine(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(longLine())
}

// refusedURL returns the address of a listener closed before use, where
// connections are refused.
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr + "/v1"
}

// TestChatTypedErrors runs one row per failure kind against real sockets and
// checks how the error classifies and how many attempts were made. Nothing
// depends on how long a step takes: timeouts either end a hanging request or
// are known in advance to be shorter than the next wait.
func TestChatTypedErrors(t *testing.T) {
	ok := jsonReply(http.StatusOK, completionJSON("fine", "stop"))
	okStream := sseReply(true, chunkJSON(`{"role":"assistant","content":"fine"}`, "stop", ""))
	unavailable := []error{llm.ErrUnavailable}
	final := []error{llm.ErrUnavailable, ErrTransport, context.DeadlineExceeded}
	tests := []struct {
		name    string
		script  []http.HandlerFunc // nil: a refused connection
		cfg     func(*Config)
		stream  bool
		wantOK  bool // the call succeeds in the end
		attempt int  // requests made
		is, not []error
		// status is the StatusCode of the *APIError inside, 0 for none.
		status int
		inBody bool
		// transport: a *TransportError is inside.
		transport bool
		// callTimeout: an *UnavailableError ended by Config.CallTimeout.
		callTimeout bool
	}{
		{
			name:    "too large SSE line",
			script:  []http.HandlerFunc{sseLongLine, okStream},
			cfg:     func(c *Config) { c.MaxResponseBytes = 2 * sseMaxLine },
			stream:  true,
			attempt: 1,
			is:      []error{ErrResponseTooLarge}, not: final,
		},
		{
			name:    "too large body",
			script:  []http.HandlerFunc{jsonReply(200, completionJSON(strings.Repeat("x", 4096), "stop")), ok},
			cfg:     func(c *Config) { c.MaxResponseBytes = 1024 },
			attempt: 1,
			is:      []error{ErrResponseTooLarge}, not: final,
		},
		{
			name:    "too large stream of small lines",
			script:  []http.HandlerFunc{sseReply(true, slicesRepeat(chunkJSON(`{"content":"x"}`, "", ""), 64)...), okStream},
			cfg:     func(c *Config) { c.MaxResponseBytes = 4096 },
			stream:  true,
			attempt: 1,
			is:      []error{ErrResponseTooLarge}, not: final,
		},
		{
			name:    "dropped connection mid-stream, then success",
			script:  []http.HandlerFunc{dropMidStream, okStream},
			stream:  true,
			wantOK:  true,
			attempt: 2,
		},
		{
			name:      "dropped connection mid-stream, exhausted",
			script:    []http.HandlerFunc{dropMidStream},
			stream:    true,
			attempt:   3,
			is:        []error{llm.ErrUnavailable, ErrTransport, io.ErrUnexpectedEOF},
			not:       []error{ErrConnectionRefused, ErrMalformedResponse, context.DeadlineExceeded},
			transport: true,
		},
		{
			name:      "dropped connection mid-body, exhausted",
			script:    []http.HandlerFunc{dropMidBody},
			attempt:   3,
			is:        []error{llm.ErrUnavailable, ErrTransport, io.ErrUnexpectedEOF},
			not:       []error{ErrConnectionRefused, ErrMalformedResponse},
			transport: true,
		},
		{
			name:      "connection reset mid-stream, exhausted",
			script:    []http.HandlerFunc{resetMidStream},
			stream:    true,
			attempt:   3,
			is:        []error{llm.ErrUnavailable, ErrTransport},
			not:       []error{ErrConnectionRefused},
			transport: true,
		},
		{
			name:      "stream ended without a finish reason, exhausted",
			script:    []http.HandlerFunc{sseReply(true, chunkJSON(`{"content":"par"}`, "", ""))},
			stream:    true,
			attempt:   3,
			is:        []error{llm.ErrUnavailable, ErrTransport, ErrMalformedResponse},
			transport: true,
		},
		{
			name:      "connection refused, exhausted",
			attempt:   3,
			is:        []error{llm.ErrUnavailable, ErrConnectionRefused, ErrTransport, syscall.ECONNREFUSED},
			not:       []error{context.DeadlineExceeded, ErrTimeout},
			transport: true,
		},
		{
			name:    "200 with error body code 500, then success",
			script:  []http.HandlerFunc{jsonReply(200, `{"error":{"message":"internal error","type":"InternalServerError","code":500}}`), ok},
			wantOK:  true,
			attempt: 2,
		},
		{
			name:    "200 with error body code 500, exhausted",
			script:  []http.HandlerFunc{jsonReply(200, `{"error":{"message":"internal error","code":500}}`)},
			attempt: 3,
			is:      unavailable, not: []error{ErrTransport},
			status: 500, inBody: true,
		},
		{
			name:    "200 with error body code as a string, exhausted",
			script:  []http.HandlerFunc{jsonReply(200, `{"error":{"message":"overloaded","type":"server_error","code":"503"}}`)},
			attempt: 3,
			is:      unavailable,
			status:  503, inBody: true,
		},
		{
			name:    "200 with error body type server_error and no code, then success",
			script:  []http.HandlerFunc{jsonReply(200, `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`), ok},
			wantOK:  true,
			attempt: 2,
		},
		{
			name:    "200 with vLLM error object code 503, then success",
			script:  []http.HandlerFunc{jsonReply(200, `{"object":"error","message":"busy","type":"ServiceUnavailableError","param":null,"code":503}`), ok},
			wantOK:  true,
			attempt: 2,
		},
		{
			name:    "200 with error body code 429 is rate limiting",
			script:  []http.HandlerFunc{jsonReply(200, `{"error":{"message":"slow down","code":429}}`)},
			attempt: 3,
			is:      []error{llm.ErrUnavailable, ErrRateLimited},
			status:  429, inBody: true,
		},
		{
			name:    "200 with error body code 400 is final",
			script:  []http.HandlerFunc{jsonReply(200, `{"error":{"message":"Invalid value for 'temperature'","type":"invalid_request_error","code":400}}`), ok},
			attempt: 1,
			not:     final,
			status:  400, inBody: true,
		},
		{
			name:    "200 with a vendor code that names no status is final",
			script:  []http.HandlerFunc{jsonReply(200, `{"error":{"message":"odd","code":1301}}`), ok},
			attempt: 1,
			not:     final,
			inBody:  true,
		},
		{
			name: "SSE error event code 503, then success",
			script: []http.HandlerFunc{sseReply(false,
				chunkJSON(`{"role":"assistant","content":"Once"}`, "", ""),
				`{"error":{"message":"overloaded","type":"server_error","code":503}}`), okStream},
			stream:  true,
			wantOK:  true,
			attempt: 2,
		},
		{
			name:    "SSE error event code 500, exhausted",
			script:  []http.HandlerFunc{sseReply(false, `{"error":{"message":"engine dead","code":"500"}}`)},
			stream:  true,
			attempt: 3,
			is:      unavailable, not: []error{ErrTransport},
			status: 500, inBody: true,
		},
		{
			name:    "SSE vLLM error chunk code 500, exhausted",
			script:  []http.HandlerFunc{sseReply(true, `{"object":"error","message":"engine dead","type":"InternalServerError","param":null,"code":500}`)},
			stream:  true,
			attempt: 3,
			is:      unavailable,
			status:  500, inBody: true,
		},
		{
			name:    "SSE error event code 400 is final",
			script:  []http.HandlerFunc{sseReply(false, `{"error":{"message":"bad request","type":"BadRequestError","code":400}}`), okStream},
			stream:  true,
			attempt: 1,
			not:     final,
			status:  400, inBody: true,
		},
		{
			name:    "HTTP 503, exhausted",
			script:  []http.HandlerFunc{jsonReply(503, `{"error":{"message":"overloaded"}}`)},
			attempt: 3,
			is:      unavailable, not: []error{ErrTransport, context.DeadlineExceeded},
			status: 503,
		},
		{
			name:    "HTTP 503 before the stream, then success",
			script:  []http.HandlerFunc{jsonReply(503, `{"error":{"message":"busy"}}`), okStream},
			stream:  true,
			wantOK:  true,
			attempt: 2,
		},
		{
			name:    "HTTP 400 is final",
			script:  []http.HandlerFunc{jsonReply(400, `{"error":{"message":"bad","type":"invalid_request_error"}}`), ok},
			attempt: 1,
			not:     final,
			status:  400,
		},
		{
			name:    "no retries: one transient failure is already unavailable",
			script:  []http.HandlerFunc{jsonReply(502, `{}`), ok},
			cfg:     func(c *Config) { c.MaxRetries = -1 },
			attempt: 1,
			is:      unavailable,
			status:  502,
		},
		{
			name:    "attempt timeout, exhausted",
			script:  []http.HandlerFunc{hang},
			cfg:     func(c *Config) { c.RequestTimeout = 20 * time.Millisecond },
			attempt: 3,
			is:      []error{llm.ErrUnavailable, ErrTimeout},
			not:     []error{context.DeadlineExceeded, ErrTransport},
		},
		{
			name:        "call timeout cuts a hanging attempt",
			script:      []http.HandlerFunc{hang},
			cfg:         func(c *Config) { c.CallTimeout = 50 * time.Millisecond },
			attempt:     1,
			is:          []error{llm.ErrUnavailable, context.DeadlineExceeded, ErrTimeout},
			callTimeout: true,
		},
		{
			name:   "call timeout before a wait that would pass it",
			script: []http.HandlerFunc{jsonReply(503, `{"error":{"message":"busy"}}`, "Retry-After", "600"), ok},
			cfg: func(c *Config) {
				c.CallTimeout = time.Minute
				c.RetryMaxDelay = time.Hour
			},
			attempt:     1,
			is:          []error{llm.ErrUnavailable, context.DeadlineExceeded, ErrTimeout},
			status:      503,
			callTimeout: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			baseURL := ""
			var s *scriptedServer
			if tt.script == nil {
				baseURL = refusedURL(t)
			} else {
				s = newScriptedServer(t, tt.script...)
				baseURL = s.URL + "/v1"
			}
			base := http.DefaultTransport.(*http.Transport).Clone()
			t.Cleanup(base.CloseIdleConnections)
			rt := &countingTransport{base: base}
			cfg := Config{
				BaseURL:        baseURL,
				Model:          "qwen2.5-7b-instruct",
				MaxRetries:     2,
				RetryBaseDelay: time.Millisecond,
				RetryMaxDelay:  2 * time.Millisecond,
				RequestTimeout: 10 * time.Second,
				Stream:         tt.stream,
				HTTPClient:     &http.Client{Transport: rt},
			}
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			c, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Chat(testContext(t), userMessages("hi"), llm.ChatOptions{})
			t.Logf("err: %.300v", err)

			if n := int(rt.n.Load()); n != tt.attempt {
				t.Errorf("%d requests sent, want %d", n, tt.attempt)
			}
			if s != nil && s.count() != tt.attempt {
				t.Errorf("%d requests served, want %d", s.count(), tt.attempt)
			}
			if tt.wantOK {
				if err != nil || got.Message.Content != "fine" {
					t.Fatalf("got %+v, %v; want success", got, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Chat succeeded with %+v", got)
			}
			for _, target := range tt.is {
				if !errors.Is(err, target) {
					t.Errorf("errors.Is(err, %v) = false; err = %v", target, err)
				}
			}
			for _, target := range tt.not {
				if errors.Is(err, target) {
					t.Errorf("errors.Is(err, %v) = true; err = %v", target, err)
				}
			}
			var apiErr *APIError
			if hasAPI := errors.As(err, &apiErr); hasAPI != (tt.status != 0 || tt.inBody) {
				t.Errorf("errors.As(*APIError) = %v; err = %v", hasAPI, err)
			} else if hasAPI && (apiErr.StatusCode != tt.status || apiErr.InBody != tt.inBody) {
				t.Errorf("APIError status %d, in body %v; want %d, %v", apiErr.StatusCode, apiErr.InBody, tt.status, tt.inBody)
			}
			var te *TransportError
			if hasTransport := errors.As(err, &te); hasTransport != tt.transport {
				t.Errorf("errors.As(*TransportError) = %v, want %v; err = %v", hasTransport, tt.transport, err)
			}
			var ue *UnavailableError
			isUnavailable := errors.Is(err, llm.ErrUnavailable)
			if hasUE := errors.As(err, &ue); hasUE != isUnavailable {
				t.Errorf("errors.As(*UnavailableError) = %v but errors.Is(llm.ErrUnavailable) = %v", hasUE, isUnavailable)
			}
			if ue != nil {
				if ue.Attempts != tt.attempt {
					t.Errorf("UnavailableError.Attempts = %d, want %d", ue.Attempts, tt.attempt)
				}
				if (ue.CallTimeout != 0) != tt.callTimeout || (tt.callTimeout && ue.CallTimeout != cfg.CallTimeout) {
					t.Errorf("UnavailableError.CallTimeout = %v, want the call timeout: %v", ue.CallTimeout, tt.callTimeout)
				}
				if ue.Err == nil {
					t.Error("UnavailableError without the last error")
				}
				if want := "after " + strconv.Itoa(tt.attempt) + " attempt"; !strings.Contains(err.Error(), want) {
					t.Errorf("err %q does not say %q", err, want)
				}
			} else if tt.callTimeout {
				t.Errorf("err = %v, want an *UnavailableError for the call timeout", err)
			}
		})
	}
}

func slicesRepeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestChatCallerDeadlineIsNotUnavailable checks that the caller's own
// deadline is reported as the context's error, not as an outage, even when
// it passes during retries of a failing endpoint.
func TestChatCallerDeadlineIsNotUnavailable(t *testing.T) {
	s := newScriptedServer(t, jsonReply(503, `{"error":{"message":"busy"}}`), hang)
	c := newTestClient(t, s, func(c *Config) { c.CallTimeout = time.Hour })
	ctx, cancel := context.WithTimeout(testContext(t), 50*time.Millisecond)
	defer cancel()
	_, err := c.Chat(ctx, userMessages("hi"), llm.ChatOptions{})
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("err = %v, want the caller's deadline and not llm.ErrUnavailable", err)
	}
}

// TestChatCallTimeoutSkipsSlotQueue checks that waiting for a concurrency
// slot before the first attempt does not count against Config.CallTimeout:
// the call queues for longer than its timeout and still succeeds. (It could
// fail only if one local attempt took over a second.)
func TestChatCallTimeoutSkipsSlotQueue(t *testing.T) {
	s := newScriptedServer(t, ok200)
	c := newTestClient(t, s, func(c *Config) { c.MaxConcurrency = 1; c.CallTimeout = time.Second })
	if err := c.acquire(testContext(t)); err != nil { // another caller holds the only slot
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Chat(testContext(t), userMessages("hi"), llm.ChatOptions{})
		done <- err
	}()
	time.Sleep(1200 * time.Millisecond)
	c.release()
	if err := <-done; err != nil {
		t.Fatalf("err = %v, want success: queueing counted against the call timeout", err)
	}
}

var ok200 = jsonReply(http.StatusOK, completionJSON("fine", "stop"))
