package openai

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/org/agentevolver/llm"
)

// Errors callers can test with errors.Is. An *APIError matches the sentinel
// that describes it, so errors.Is and errors.As both work on the same error.
var (
	// ErrRateLimited reports HTTP 429, the server's rate limit, which
	// persisted through all retries; or an exhausted quota (code
	// insufficient_quota), which is not retried.
	ErrRateLimited = errors.New("openai: rate limited")
	// ErrContentFiltered reports that the provider's content moderation
	// blocked the prompt or the completion: finish_reason "content_filter",
	// OpenAI's and Azure's content_filter errors, DashScope's
	// data_inspection_failed ("Input/Output data may contain inappropriate
	// content"). It is never retried: the same request would be blocked again.
	ErrContentFiltered = errors.New("openai: content filtered")
	// ErrRefused reports that the model declined to answer and said why in
	// the message's refusal field (see RefusalError.Refusal).
	ErrRefused = errors.New("openai: model refused")
	// ErrContextLength reports a prompt (plus max tokens) longer than the
	// model's context window: OpenAI's context_length_exceeded, vLLM's
	// "maximum context length" 400, DashScope's input length range error.
	ErrContextLength = errors.New("openai: context length exceeded")
	// ErrTimeout reports a request attempt that ran past Config.RequestTimeout
	// (or a server's 408/504) and persisted through all retries. Cancellation
	// or a deadline of the caller's context is reported as the context's
	// error instead.
	ErrTimeout = errors.New("openai: request timed out")
	// ErrMalformedResponse reports a response that could not be understood:
	// invalid JSON, no choices, bad log-probs, a stream that ended early.
	ErrMalformedResponse = errors.New("openai: malformed response")
	// ErrResponseTooLarge reports a response body larger than
	// Config.MaxResponseBytes.
	ErrResponseTooLarge = errors.New("openai: response too large")
)

// maxErrorMessage bounds the server message kept in an APIError, since error
// bodies (an HTML page from a proxy, say) can be long.
const maxErrorMessage = 2048

// APIError is an error answer of the server: an HTTP status of 400 or more, or
// an error event inside a stream (StatusCode 0). Use errors.As to inspect it
// and errors.Is with the package's sentinels to classify it.
type APIError struct {
	// StatusCode is the HTTP status, or 0 for an error sent inside a stream.
	StatusCode int
	// Type is the error type ("invalid_request_error", "BadRequestError",
	// "data_inspection_failed", ...), when the server sent one.
	Type string
	// Code is the machine-readable error code ("rate_limit_exceeded",
	// "context_length_exceeded", "data_inspection_failed", "400", ...), when
	// the server sent one. Numeric codes are kept as their decimal text.
	Code string
	// Message is the server's explanation, truncated to a few KiB.
	Message string
	// Param names the offending request parameter, when the server said.
	Param string
	// RequestID identifies the request at the server, when known.
	RequestID string
	// RetryAfter is the server's Retry-After hint, 0 if none.
	RetryAfter time.Duration
	// shouldRetry is the server's x-should-retry header: +1 true, -1 false,
	// 0 absent.
	shouldRetry int
}

// Error formats the status, code and message.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("openai: ")
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, "%d %s", e.StatusCode, http.StatusText(e.StatusCode))
	} else {
		b.WriteString("stream error")
	}
	if e.Code != "" {
		b.WriteString(" (")
		b.WriteString(e.Code)
		b.WriteString(")")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Is reports whether e is described by target, one of ErrRateLimited,
// ErrContentFiltered, ErrContextLength or ErrTimeout.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	case ErrContentFiltered:
		return e.contentFiltered()
	case ErrContextLength:
		return e.contextLength()
	case ErrTimeout:
		return e.StatusCode == http.StatusRequestTimeout || e.StatusCode == http.StatusGatewayTimeout
	}
	return false
}

// clientSide reports a status a server uses for rejected requests, or an
// in-stream error (status 0), which are the statuses that carry refusals and
// context-length complaints.
func (e *APIError) clientSide() bool {
	return e.StatusCode == 0 || (e.StatusCode >= 400 && e.StatusCode < 500)
}

var (
	contentFilterCodes = []string{"content_filter", "data_inspection_failed", "datainspectionfailed", "content_policy_violation"}
	contentFilterTexts = []string{"data_inspection_failed", "inappropriate content", "content management policy", "content_filter"}
	contextLengthCodes = []string{"context_length_exceeded"}
	contextLengthTexts = []string{"maximum context length", "maximum model length", "context length exceeded", "context_length_exceeded", "range of input length", "longer than the model's context length"}
)

func (e *APIError) contentFiltered() bool {
	if !e.clientSide() {
		return false
	}
	return matchAny(e.Code, contentFilterCodes, true) || matchAny(e.Type, contentFilterCodes, true) ||
		matchAny(e.Message, contentFilterTexts, false)
}

func (e *APIError) contextLength() bool {
	if !e.clientSide() {
		return false
	}
	return matchAny(e.Code, contextLengthCodes, true) || matchAny(e.Message, contextLengthTexts, false)
}

// matchAny compares s case-insensitively with each candidate, as a whole or
// as a substring.
func matchAny(s string, candidates []string, whole bool) bool {
	if s == "" {
		return false
	}
	s = strings.ToLower(s)
	for _, c := range candidates {
		if (whole && s == c) || (!whole && strings.Contains(s, c)) {
			return true
		}
	}
	return false
}

// RefusalError reports a well-formed completion that the model or the
// provider's moderation declined: finish_reason "content_filter" (Reason
// ErrContentFiltered) or a non-empty message.refusal (Reason ErrRefused).
// errors.Is(err, ErrContentFiltered) and errors.Is(err, ErrRefused) see
// through it.
type RefusalError struct {
	// Reason is ErrContentFiltered or ErrRefused.
	Reason error
	// Refusal is the model's refusal text, when it gave one.
	Refusal string
	// Completion is what the server returned, possibly partial; its
	// FinishReason says why it stopped.
	Completion llm.Completion
}

// Error describes the refusal.
func (e *RefusalError) Error() string {
	msg := e.Reason.Error()
	if e.Completion.FinishReason != "" {
		msg += " (finish_reason " + e.Completion.FinishReason + ")"
	}
	if e.Refusal != "" {
		msg += ": " + truncate(e.Refusal, maxErrorMessage)
	}
	return msg
}

// Unwrap returns Reason.
func (e *RefusalError) Unwrap() error { return e.Reason }

// truncate cuts s to at most n bytes without splitting a UTF-8 sequence.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
