package openai

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/org/agentevolver/internal/retry"
	"github.com/org/agentevolver/llm"
)

func TestParseErrorBody(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   APIError
	}{
		{
			name: "OpenAI", status: 429,
			body: `{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			want: APIError{StatusCode: 429, Message: "Rate limit reached", Type: "requests", Code: "rate_limit_exceeded"},
		},
		{
			name: "vLLM top level with numeric code", status: 400,
			body: `{"object":"error","message":"bad","type":"BadRequestError","param":"temperature","code":400}`,
			want: APIError{StatusCode: 400, Message: "bad", Type: "BadRequestError", Code: "400", Param: "temperature"},
		},
		{
			name: "DashScope with request id", status: 400,
			body: `{"error":{"code":"data_inspection_failed","param":null,"message":"Input data may contain inappropriate content.","type":"data_inspection_failed"},"id":"chatcmpl-1","request_id":"abc"}`,
			want: APIError{StatusCode: 400, Message: "Input data may contain inappropriate content.", Type: "data_inspection_failed", Code: "data_inspection_failed", RequestID: "abc"},
		},
		{
			name: "ollama native string error", status: 404,
			body: `{"error":"model \"llama3\" not found, try pulling it first"}`,
			want: APIError{StatusCode: 404, Message: `model "llama3" not found, try pulling it first`},
		},
		{
			name: "FastAPI detail", status: 422,
			body: `{"detail":[{"loc":["body","messages"],"msg":"field required","type":"value_error.missing"}]}`,
			want: APIError{StatusCode: 422, Message: `[{"loc":["body","messages"],"msg":"field required","type":"value_error.missing"}]`},
		},
		{
			name: "HTML", status: 502,
			body: "  <html><body>502 Bad Gateway</body></html>\n",
			want: APIError{StatusCode: 502, Message: "<html><body>502 Bad Gateway</body></html>"},
		},
		{name: "empty", status: 500, want: APIError{StatusCode: 500}},
		{
			name: "invalid UTF-8 is cleaned", status: 500, body: "oops \xff\xfe",
			want: APIError{StatusCode: 500, Message: "oops \uFFFD"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseErrorBody(tt.status, []byte(tt.body))
			if *got != tt.want {
				t.Fatalf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

func TestParseErrorBodyBoundsMessage(t *testing.T) {
	got := parseErrorBody(500, []byte(`{"error":{"message":"`+strings.Repeat("é", 10000)+`"}}`))
	if len(got.Message) > maxErrorMessage+len("…") {
		t.Fatalf("message of %d bytes kept", len(got.Message))
	}
	if !strings.HasSuffix(got.Message, "é…") {
		t.Fatalf("message cut inside a rune: %q", got.Message[len(got.Message)-8:])
	}
}

func TestAPIErrorClassification(t *testing.T) {
	tests := []struct {
		name string
		err  APIError
		is   []error
		not  []error
	}{
		{"429", APIError{StatusCode: 429}, []error{ErrRateLimited}, []error{ErrContentFiltered, ErrTimeout, ErrContextLength}},
		{"408", APIError{StatusCode: 408}, []error{ErrTimeout}, []error{ErrRateLimited}},
		{"504", APIError{StatusCode: 504}, []error{ErrTimeout}, nil},
		{"stream moderation", APIError{Message: "Output data may contain inappropriate content."}, []error{ErrContentFiltered}, []error{ErrContextLength}},
		{"content filter code", APIError{StatusCode: 400, Code: "content_filter"}, []error{ErrContentFiltered}, nil},
		{"5xx text mentioning filters is not a refusal", APIError{StatusCode: 500, Message: "content_filter service down"}, nil, []error{ErrContentFiltered}},
		{"context length code", APIError{StatusCode: 400, Code: "context_length_exceeded"}, []error{ErrContextLength}, []error{ErrContentFiltered}},
		{"other 400", APIError{StatusCode: 400, Message: "bad temperature"}, nil, []error{ErrContentFiltered, ErrContextLength, ErrRateLimited, ErrTimeout}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := error(&tt.err)
			for _, target := range tt.is {
				if !errors.Is(err, target) {
					t.Errorf("errors.Is(%v, %v) = false", err, target)
				}
			}
			for _, target := range tt.not {
				if errors.Is(err, target) {
					t.Errorf("errors.Is(%v, %v) = true", err, target)
				}
			}
		})
	}
}

func TestAPIErrorMessage(t *testing.T) {
	tests := []struct {
		err  APIError
		want string
	}{
		{APIError{StatusCode: 429, Code: "rate_limit_exceeded", Message: "slow down"}, "openai: 429 Too Many Requests (rate_limit_exceeded): slow down"},
		{APIError{Message: "boom"}, "openai: stream error: boom"},
		{APIError{StatusCode: 500}, "openai: 500 Internal Server Error"},
		{APIError{StatusCode: 503, InBody: true, Code: "503", Message: "busy"}, "openai: 503 Service Unavailable in a 200 response (503): busy"},
		{APIError{InBody: true, Code: "1301", Message: "odd"}, "openai: error in a 200 response (1301): odd"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		headers map[string]string
		want    time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"milliseconds win", map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond},
		{"bad milliseconds fall back", map[string]string{"Retry-After-Ms": "soon", "Retry-After": "2"}, 2 * time.Second},
		{"HTTP date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{"negative", map[string]string{"Retry-After": "-5"}, 0},
		{"garbage", map[string]string{"Retry-After": "tomorrow-ish"}, 0},
		{"NaN", map[string]string{"Retry-After": "NaN"}, 0},
		{"huge is capped", map[string]string{"Retry-After": "1e300"}, retry.MaxRetryAfter},
		{"infinite is capped", map[string]string{"Retry-After": "+Inf"}, retry.MaxRetryAfter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.headers {
				h.Set(k, v)
			}
			if got := parseRetryAfter(h, now); got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	const base, limit = 100 * time.Millisecond, 2 * time.Second
	tests := []struct {
		name       string
		attempt    int
		retryAfter time.Duration
		lo, hi     time.Duration
	}{
		{"first", 0, 0, 50 * time.Millisecond, 100 * time.Millisecond},
		{"third", 2, 0, 200 * time.Millisecond, 400 * time.Millisecond},
		{"capped", 10, 0, time.Second, limit},
		{"overflowing attempt", 1000, 0, time.Second, limit},
		{"Retry-After is a floor", 0, 700 * time.Millisecond, 700 * time.Millisecond, 700 * time.Millisecond},
		{"Retry-After is capped", 0, time.Hour, limit, limit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 200 {
				if d := backoff(tt.attempt, base, limit, tt.retryAfter); d < tt.lo || d > tt.hi {
					t.Fatalf("backoff = %v, want within [%v, %v]", d, tt.lo, tt.hi)
				}
			}
		})
	}
}

func TestBackoffJitters(t *testing.T) {
	seen := map[time.Duration]bool{}
	for range 50 {
		seen[backoff(3, 100*time.Millisecond, time.Minute, 0)] = true
	}
	if len(seen) < 10 {
		t.Fatalf("only %d distinct waits in 50 draws: no jitter", len(seen))
	}
}

func TestParseTokenID(t *testing.T) {
	tests := []struct {
		in     string
		want   int
		wantOK bool
	}{
		{"token_id:0", 0, true},
		{"token_id:151645", 151645, true},
		{"token_id:2147483647", 2147483647, true},
		{"token_id:2147483648", 0, false},
		{"token_id:99999999999", 0, false},
		{"token_id:", 0, false},
		{"token_id:-1", 0, false},
		{"token_id:+1", 0, false},
		{"token_id:12a", 0, false},
		{"token_id: 12", 0, false},
		{"TOKEN_ID:12", 0, false},
		{"Hello", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseTokenID(tt.in)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("ParseTokenID(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestRetryable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"timeout", ErrTimeout, true},
		{"incomplete stream", incompleteStream(), true},
		{"malformed", ErrMalformedResponse, false},
		{"too large", ErrResponseTooLarge, false},
		{"refusal", &RefusalError{Reason: ErrRefused}, false},
		{"unexpected EOF", transportError(errors.Join(errors.New("read"), errors.New("x"), errUnexpectedEOF())), true},
		{"raw unexpected EOF is typed by the attempt, not here", errUnexpectedEOF(), false},
		{"in-body 500", inBodyError([]byte(`{"error":{"message":"boom","code":500}}`)), true},
		{"in-body 400", inBodyError([]byte(`{"error":{"message":"bad","code":"400"}}`)), false},
		{"plain error", errors.New("unknown"), false},
		{"filtered 400 with should-retry", &APIError{StatusCode: 400, Code: "content_filter", shouldRetry: 1}, false},
	}
	for _, tt := range tests {
		if got := retryable(tt.err); got != tt.want {
			t.Errorf("%s: retryable(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

func TestInBodyError(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		wantStatus int
		wantCode   string
		retried    bool
	}{
		{"numeric code", `{"error":{"message":"boom","code":500}}`, 500, "500", true},
		{"code as text", `{"error":{"message":"busy","code":"503"}}`, 503, "503", true},
		{"code as a float literal", `{"error":{"message":"busy","code":503.0}}`, 503, "503", true},
		{"vLLM error object", `{"object":"error","message":"bad","type":"BadRequestError","param":null,"code":400}`, 400, "400", false},
		{"OpenAI server_error type, null code", `{"error":{"message":"The server had an error","type":"server_error","param":null,"code":null}}`, 500, "", true},
		{"vLLM exception name", `{"object":"error","message":"engine dead","type":"InternalServerError","code":null}`, 500, "", true},
		{"rate limit code", `{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}`, 429, "rate_limit_exceeded", true},
		{"numeric code wins over type", `{"error":{"message":"x","type":"server_error","code":400}}`, 400, "400", false},
		{"vendor code names no status", `{"error":{"message":"x","type":"server_error","code":1301}}`, 0, "1301", false},
		{"success code names no status", `{"error":{"message":"x","code":200}}`, 0, "200", false},
		{"no code, unknown type", `{"error":{"message":"x","type":"mystery"}}`, 0, "", false},
		{"moderation stays a refusal", `{"error":{"code":"data_inspection_failed","message":"Output data may contain inappropriate content.","type":"data_inspection_failed"}}`, 0, "data_inspection_failed", false},
		{"plain text error", `{"error":"model not found"}`, 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := inBodyError([]byte(tt.body))
			if !e.InBody || e.StatusCode != tt.wantStatus || e.Code != tt.wantCode {
				t.Fatalf("got status %d, code %q, in body %v; want %d, %q, true", e.StatusCode, e.Code, e.InBody, tt.wantStatus, tt.wantCode)
			}
			if got := retryable(e); got != tt.retried {
				t.Errorf("retryable = %v, want %v", got, tt.retried)
			}
		})
	}
}

func TestTransportErrorClassification(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	timeout := &net.OpError{Op: "dial", Net: "tcp", Err: timeoutErr{}}
	tests := []struct {
		name    string
		err     error
		typed   bool // transportError wraps it
		is, not []error
	}{
		{"refused dial", &url.Error{Op: "Post", URL: "http://x", Err: refused}, true,
			[]error{ErrTransport, ErrConnectionRefused, syscall.ECONNREFUSED}, []error{ErrTimeout, llm.ErrUnavailable}},
		{"reset", reset, true, []error{ErrTransport, syscall.ECONNRESET}, []error{ErrConnectionRefused}},
		{"unexpected EOF", fmt.Errorf("read body: %w", io.ErrUnexpectedEOF), true, []error{ErrTransport, io.ErrUnexpectedEOF}, []error{ErrConnectionRefused}},
		{"EOF before a response", &url.Error{Op: "Post", URL: "http://x", Err: io.EOF}, true, []error{ErrTransport}, nil},
		{"network timeout", timeout, true, []error{ErrTransport, ErrTimeout}, []error{ErrConnectionRefused}},
		{"caller's deadline", context.DeadlineExceeded, false, nil, []error{ErrTransport, ErrTimeout}},
		{"too large", fmt.Errorf("read: %w", ErrResponseTooLarge), false, []error{ErrResponseTooLarge}, []error{ErrTransport}},
		{"API error", &APIError{StatusCode: 503}, false, nil, []error{ErrTransport}},
		{"bad scheme", &url.Error{Op: "Post", URL: "gopher://x", Err: errors.New(`unsupported protocol scheme "gopher"`)}, false, nil, []error{ErrTransport}},
		{"already typed", incompleteStream(), true, []error{ErrTransport, ErrMalformedResponse}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := transportError(tt.err)
			var te *TransportError
			if got := errors.As(err, &te); got != tt.typed {
				t.Fatalf("transportError(%v) typed = %v, want %v", tt.err, got, tt.typed)
			}
			if te != nil && errors.As(te.Err, new(*TransportError)) {
				t.Errorf("TransportError wraps another: %v", err)
			}
			for _, target := range tt.is {
				if !errors.Is(err, target) {
					t.Errorf("errors.Is(%v, %v) = false", err, target)
				}
			}
			for _, target := range tt.not {
				if errors.Is(err, target) {
					t.Errorf("errors.Is(%v, %v) = true", err, target)
				}
			}
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestUnavailableError(t *testing.T) {
	last := &APIError{StatusCode: 503, Message: "busy"}
	tests := []struct {
		err     UnavailableError
		want    string
		is, not []error
	}{
		{UnavailableError{Attempts: 5, Err: last},
			"openai: endpoint unavailable: giving up after 5 attempts: openai: 503 Service Unavailable: busy",
			[]error{llm.ErrUnavailable}, []error{context.DeadlineExceeded, ErrTimeout}},
		{UnavailableError{Attempts: 1, CallTimeout: 5 * time.Minute, Err: last},
			"openai: endpoint unavailable: call timeout of 5m0s reached after 1 attempt: openai: 503 Service Unavailable: busy",
			[]error{llm.ErrUnavailable, context.DeadlineExceeded, ErrTimeout}, []error{context.Canceled, ErrTransport}},
	}
	for _, tt := range tests {
		err := error(&tt.err)
		if got := err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr != last {
			t.Errorf("errors.As does not reach the last error of %v", err)
		}
		for _, target := range tt.is {
			if !errors.Is(err, target) {
				t.Errorf("errors.Is(%v, %v) = false", err, target)
			}
		}
		for _, target := range tt.not {
			if errors.Is(err, target) {
				t.Errorf("errors.Is(%v, %v) = true", err, target)
			}
		}
	}
}

func TestStreamErrorTooLongLine(t *testing.T) {
	err := streamError(fmt.Errorf("scan: %w", bufio.ErrTooLong))
	if !errors.Is(err, ErrResponseTooLarge) || retryable(transportError(err)) {
		t.Fatalf("err = %v, want a final ErrResponseTooLarge", err)
	}
}
