package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
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
	// (or a server's 408/504, or a network timeout) and persisted through all
	// retries, or a call that ran past Config.CallTimeout. Cancellation or a
	// deadline of the caller's context is reported as the context's error
	// instead.
	ErrTimeout = errors.New("openai: request timed out")
	// ErrMalformedResponse reports a response that could not be understood:
	// invalid JSON, no choices, bad log-probs, a stream that ended early.
	ErrMalformedResponse = errors.New("openai: malformed response")
	// ErrResponseTooLarge reports a response body larger than
	// Config.MaxResponseBytes, or a server-sent-events line longer than the
	// SDK's stream decoder accepts (32 MiB). It is never retried: the same
	// request would most likely produce the same answer.
	ErrResponseTooLarge = errors.New("openai: response too large")
	// ErrTransport reports a failure below HTTP: a connection refused, reset
	// or dropped mid-response (an unexpected EOF), a network timeout, a
	// stream that ended before a finish reason. Such failures are retried.
	// The error is a *TransportError.
	ErrTransport = errors.New("openai: transport failure")
	// ErrConnectionRefused reports that nothing accepted the connection at
	// Config.BaseURL: the server is down, restarting or not yet listening.
	// It is retried, and a refused connection matches ErrTransport too.
	ErrConnectionRefused = errors.New("openai: connection refused")
)

// maxErrorMessage bounds the server message kept in an APIError, since error
// bodies (an HTML page from a proxy, say) can be long.
const maxErrorMessage = 2048

// APIError is an error answer of the server: an HTTP status of 400 or more,
// or an error object delivered with status 200, in the body
// ({"error": {...}}, vLLM's {"object": "error", ...}) or as an event inside
// a stream (InBody true). Use errors.As to inspect it and errors.Is with the
// package's sentinels to classify it. It is retried like the status it
// carries: 408, 409, 429 (but not an exhausted quota) and 5xx are.
type APIError struct {
	// StatusCode is the HTTP status. For an error delivered in a 200 body or
	// a stream (InBody), it is the status the error's code names (vLLM's
	// "code": 500, or "503" as text; codes outside 400-599 name none) or, failing
	// that, its type or code ("server_error" 500, "rate_limit_exceeded" 429,
	// "BadRequestError" 400, ...); 0 when it names none.
	StatusCode int
	// InBody reports an error delivered inside a response with HTTP status
	// 200: as the body of a plain response, or as an event of a stream.
	InBody bool
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
	switch {
	case e.StatusCode != 0:
		fmt.Fprintf(&b, "%d %s", e.StatusCode, http.StatusText(e.StatusCode))
		if e.InBody {
			b.WriteString(" in a 200 response")
		}
	case e.InBody:
		b.WriteString("error in a 200 response")
	default:
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
// in-body error naming no status (0), which are the statuses that carry
// refusals and context-length complaints.
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

// TransportError reports a failure below HTTP (see ErrTransport). errors.Is
// matches ErrTransport for every TransportError, ErrConnectionRefused for a
// refused connection and ErrTimeout for a network timeout; Unwrap gives the
// underlying error (a *url.Error around a *net.OpError, io.ErrUnexpectedEOF,
// syscall.ECONNRESET, ...), so errors.Is and errors.As see those too.
type TransportError struct {
	// Err is the failure as the HTTP client or the stream decoder reported
	// it. Never nil.
	Err error
}

// Error says whether the connection was refused or failed otherwise, and
// how.
func (e *TransportError) Error() string {
	if e.refused() {
		return "openai: connection refused: " + e.Err.Error()
	}
	return "openai: transport failure: " + e.Err.Error()
}

// Unwrap returns Err.
func (e *TransportError) Unwrap() error { return e.Err }

// Is reports whether target is ErrTransport, ErrConnectionRefused for a
// refused connection, or ErrTimeout for a network timeout.
func (e *TransportError) Is(target error) bool {
	switch target {
	case ErrTransport:
		return true
	case ErrConnectionRefused:
		return e.refused()
	case ErrTimeout:
		var netErr net.Error
		return errors.As(e.Err, &netErr) && netErr.Timeout()
	}
	return false
}

func (e *TransportError) refused() bool { return errors.Is(e.Err, syscall.ECONNREFUSED) }

// UnavailableError reports a call that Chat gave up on while the endpoint
// kept failing transiently: a 5xx, 408, 409 or 429 (as an HTTP status or in
// a 200 body or stream), a *TransportError or an attempt timeout, until
// either the retries were spent (CallTimeout 0) or Config.CallTimeout passed.
// It matches llm.ErrUnavailable under errors.Is, so callers can tell an
// outage from a request that will never work; when the call timeout ended
// it, it also matches context.DeadlineExceeded and ErrTimeout. errors.Is and
// errors.As see through it to the last attempt's error (an *APIError, a
// *TransportError, ErrTimeout, ...).
//
// When the caller's context is cancelled or passes its deadline, Chat
// returns the context's error instead: that is the caller's decision, not
// the endpoint's failure.
type UnavailableError struct {
	// Attempts is the number of requests made, the first included.
	Attempts int
	// CallTimeout is the Config.CallTimeout that ended the call, or 0 when
	// the retries ran out first. Chat also gives up under it when the next
	// wait between attempts would end past the deadline.
	CallTimeout time.Duration
	// Err is the last attempt's error. Never nil.
	Err error
}

// Error says why the call ended, after how many attempts, and the last
// failure.
func (e *UnavailableError) Error() string {
	plural := "s"
	if e.Attempts == 1 {
		plural = ""
	}
	if e.CallTimeout > 0 {
		return fmt.Sprintf("openai: endpoint unavailable: call timeout of %s reached after %d attempt%s: %v",
			e.CallTimeout, e.Attempts, plural, e.Err)
	}
	return fmt.Sprintf("openai: endpoint unavailable: giving up after %d attempt%s: %v", e.Attempts, plural, e.Err)
}

// Unwrap returns Err.
func (e *UnavailableError) Unwrap() error { return e.Err }

// Is reports whether target is llm.ErrUnavailable, or context.DeadlineExceeded
// or ErrTimeout for a call ended by Config.CallTimeout.
func (e *UnavailableError) Is(target error) bool {
	switch target {
	case llm.ErrUnavailable:
		return true
	case context.DeadlineExceeded, ErrTimeout:
		return e.CallTimeout > 0
	}
	return false
}
