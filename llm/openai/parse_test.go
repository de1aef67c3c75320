package openai

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
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
		{"huge is capped", map[string]string{"Retry-After": "1e300"}, maxRetryAfter},
		{"infinite is capped", map[string]string{"Retry-After": "+Inf"}, maxRetryAfter},
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
		{"incomplete stream", errIncompleteStream, true},
		{"malformed", ErrMalformedResponse, false},
		{"too large", ErrResponseTooLarge, false},
		{"refusal", &RefusalError{Reason: ErrRefused}, false},
		{"unexpected EOF", errors.Join(errors.New("read"), errors.New("x"), errUnexpectedEOF()), true},
		{"plain error", errors.New("unknown"), false},
		{"filtered 400 with should-retry", &APIError{StatusCode: 400, Code: "content_filter", shouldRetry: 1}, false},
	}
	for _, tt := range tests {
		if got := retryable(tt.err); got != tt.want {
			t.Errorf("%s: retryable(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
