package openai

import (
	"log/slog"
	"maps"
	"net/http"
	"time"
)

// Defaults used for zero Config fields.
const (
	// DefaultRequestTimeout bounds one attempt: long enough for 4096 tokens
	// at 25 tokens a second (a 7B model on a busy vLLM server), short enough
	// that a hung server leaves DefaultCallTimeout room for a retry.
	DefaultRequestTimeout = 3 * time.Minute
	// DefaultCallTimeout bounds a whole call, retries and waits included:
	// one attempt of DefaultRequestTimeout and a retry, or all
	// DefaultMaxRetries retries of quick failures (their waits add up to
	// about 8 seconds), so an outage is reported within five minutes rather
	// than the fifty that five ten-minute attempts used to allow.
	DefaultCallTimeout = 5 * time.Minute
	// DefaultMaxRetries is the number of retries after the first attempt.
	DefaultMaxRetries = 4
	// DefaultRetryBaseDelay is the wait before the first retry (before jitter).
	DefaultRetryBaseDelay = 500 * time.Millisecond
	// DefaultRetryMaxDelay caps every wait between attempts, Retry-After
	// hints included.
	DefaultRetryMaxDelay = 30 * time.Second
	// DefaultMaxResponseBytes bounds a response body, streamed or not.
	DefaultMaxResponseBytes = 32 << 20
)

// Config configures a Client. The zero value of every field except Model
// means a useful default.
type Config struct {
	// BaseURL is the API root, for example "http://localhost:8000/v1" (vLLM),
	// "http://localhost:11434/v1" (ollama) or
	// "https://dashscope.aliyuncs.com/compatible-mode/v1". Empty means the
	// OPENAI_BASE_URL environment variable, else https://api.openai.com/v1/
	// (the SDK's defaults).
	BaseURL string
	// APIKey is sent as a bearer token. Empty means the OPENAI_API_KEY
	// environment variable when set (read by the SDK), else no
	// Authorization header, which local vLLM and ollama servers accept.
	APIKey string
	// Model names the served model; required.
	Model string
	// MaxConcurrency bounds the requests in flight through this client at
	// once; callers beyond it wait (honouring their context). Zero or
	// negative means no bound.
	MaxConcurrency int
	// RequestTimeout bounds one attempt, streaming included. Zero means
	// DefaultRequestTimeout; negative means no per-attempt bound (the
	// call's and the caller's still apply). An attempt that runs past it
	// fails with ErrTimeout and is retried.
	RequestTimeout time.Duration
	// CallTimeout bounds a whole Chat call: every attempt, the waits between
	// them and waits for a concurrency slot before a retry. The clock starts
	// once the first attempt holds its slot, so queueing behind this
	// client's own MaxConcurrency is not counted against the endpoint. When
	// it passes, or the next wait would end past it, Chat returns an
	// *UnavailableError that matches llm.ErrUnavailable,
	// context.DeadlineExceeded and ErrTimeout and says how many attempts
	// were made. Zero means DefaultCallTimeout; negative means no bound (the
	// caller's context still applies).
	CallTimeout time.Duration
	// MaxRetries is the number of retries after the first attempt for
	// transient failures: 408, 409, 429 and 5xx (as an HTTP status, or in an
	// error object sent with status 200 or inside a stream), attempt and
	// network timeouts, refused and dropped connections. Zero means
	// DefaultMaxRetries; negative means no retries. Once they are spent,
	// Chat returns an *UnavailableError (llm.ErrUnavailable).
	MaxRetries int
	// RetryBaseDelay is the wait before the first retry; each further retry
	// doubles it, with jitter. Zero means DefaultRetryBaseDelay.
	RetryBaseDelay time.Duration
	// RetryMaxDelay caps each wait, including a server's Retry-After hint.
	// Zero means DefaultRetryMaxDelay.
	RetryMaxDelay time.Duration
	// MaxResponseBytes bounds each response body, streamed or not; a larger
	// one fails with ErrResponseTooLarge and is not retried. One line of a
	// stream is also bounded by the SDK's decoder, at 32 MiB. Zero means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Stream asks for server-sent events and assembles the completion from
	// the chunks (content, tool calls, log-probs, usage). Some servers require
	// it (DashScope's thinking models); it also keeps idle proxies from
	// cutting long generations.
	Stream bool
	// UseMaxCompletionTokens sends ChatOptions.MaxTokens as
	// max_completion_tokens instead of max_tokens. max_tokens (the default)
	// is understood by vLLM, DashScope and ollama; OpenAI's reasoning models
	// accept only max_completion_tokens (vLLM accepts both).
	UseMaxCompletionTokens bool
	// ExtraBody holds vendor fields added to every request body, for example
	// vLLM's {"return_tokens_as_token_ids": true} (token ids in log-probs),
	// {"skip_special_tokens": false}, or DashScope's {"enable_thinking":
	// false}. A key equal to a standard field replaces it; a per-request
	// ChatOptions.TopK replaces "top_k".
	ExtraBody map[string]any
	// HTTPClient sends the requests. Nil means the SDK's default client.
	HTTPClient *http.Client
	// Logger receives retry warnings and per-attempt debug records. Nil
	// means no logging.
	Logger *slog.Logger
}

// withDefaults returns c with zero fields replaced by their defaults.
func (c Config) withDefaults() Config {
	if c.RequestTimeout == 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.CallTimeout == 0 {
		c.CallTimeout = DefaultCallTimeout
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.RetryBaseDelay <= 0 {
		c.RetryBaseDelay = DefaultRetryBaseDelay
	}
	if c.RetryMaxDelay <= 0 {
		c.RetryMaxDelay = DefaultRetryMaxDelay
	}
	if c.MaxResponseBytes <= 0 {
		c.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	c.ExtraBody = maps.Clone(c.ExtraBody)
	return c
}
