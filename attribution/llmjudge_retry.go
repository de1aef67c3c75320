package attribution

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/openai"
)

// failKind classifies a failed judge request.
type failKind int

const (
	// failOther: worth retrying after min(2·(attempt+1), 15) s: an endpoint
	// outage (llm.ErrUnavailable), a timeout, a malformed answer.
	failOther failKind = iota
	// failRateLimit: the server's rate limit; retried after its
	// Retry-After or the reference's exponential backoff.
	failRateLimit
	// failRefusal: the model refused or content moderation blocked the
	// prompt or the answer; retried once, as the reference does.
	failRefusal
	// failFinal: no retry can help (a prompt longer than the context
	// window, an exhausted quota, a rejected request such as a bad key or
	// an unknown model); the episode falls back at once.
	failFinal
)

// failure is what classify learns from an error.
type failure struct {
	kind failKind
	// retryAfter is the server's hint, 0 when none.
	retryAfter time.Duration
	// promptTokens and completionTokens are the usage of a refused
	// completion, which the provider may bill.
	promptTokens, completionTokens int
}

// classify tells rate limits, refusals and hopeless requests from other
// failures. The typed errors of llm/openai decide where present (they
// carry the HTTP status, the provider's error code and the Retry-After
// hint); for other chat models, the error text decides with the
// reference's rules: "data_inspection_failed" or "inappropriate content"
// is a refusal, and "429", "rate limit", "limit_requests" or "exceeded" a
// rate limit (§7.3).
//
// llm has no sentinels for rate limits and refusals; with them (and a way
// to read a Retry-After hint from any error) this function would need no
// client package.
func classify(err error) failure {
	var refusal *openai.RefusalError
	if errors.As(err, &refusal) {
		return failure{kind: failRefusal, promptTokens: refusal.Completion.PromptTokens, completionTokens: refusal.Completion.CompletionTokens}
	}
	if errors.Is(err, openai.ErrContentFiltered) || errors.Is(err, openai.ErrRefused) {
		return failure{kind: failRefusal}
	}
	if errors.Is(err, openai.ErrContextLength) || errors.Is(err, openai.ErrResponseTooLarge) {
		return failure{kind: failFinal}
	}
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		switch s := apiErr.StatusCode; {
		case s == http.StatusTooManyRequests && apiErr.Code == "insufficient_quota":
			return failure{kind: failFinal}
		case s == http.StatusTooManyRequests:
			return failure{kind: failRateLimit, retryAfter: apiErr.RetryAfter}
		case s >= 400 && s < 500 && s != http.StatusRequestTimeout && s != http.StatusConflict:
			return failure{kind: failFinal}
		}
		return failure{kind: failOther, retryAfter: apiErr.RetryAfter}
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, llm.ErrUnavailable) ||
		errors.Is(err, openai.ErrTimeout) || errors.Is(err, openai.ErrTransport) || errors.Is(err, openai.ErrMalformedResponse) {
		// Known transient failures, whose text ("context deadline
		// exceeded") the reference's words below would misread.
		return failure{kind: failOther}
	}
	msg := strings.ToLower(err.Error())
	switch {
	case strings.Contains(msg, "data_inspection_failed"), strings.Contains(msg, "inappropriate content"):
		return failure{kind: failRefusal}
	case strings.Contains(msg, "context length"), strings.Contains(msg, "context_length"):
		// Before the rate-limit words: "context length exceeded" is no
		// rate limit, although the reference's rule would take it for one.
		return failure{kind: failFinal}
	case strings.Contains(msg, "429"), strings.Contains(msg, "rate limit"),
		strings.Contains(msg, "limit_requests"), strings.Contains(msg, "exceeded"):
		return failure{kind: failRateLimit}
	}
	return failure{kind: failOther}
}

// maxRateLimitBackoff caps the reference's exponential rate-limit backoff.
const maxRateLimitBackoff = 60 * time.Second

// maxRetryAfter caps a server's Retry-After hint, so that a hostile or
// mistaken one cannot stall a training step for long.
const maxRetryAfter = 5 * time.Minute

// rateLimitWait is the wait after a rate limit on attempt (0-based): the
// server's hint when there is one, else b + u·b/4 with b = min(1.5^attempt,
// 60) seconds and u uniform in [0, 1).
func rateLimitWait(attempt int, retryAfter time.Duration, u float64) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, maxRetryAfter)
	}
	b := min(math.Pow(1.5, float64(attempt)), maxRateLimitBackoff.Seconds())
	return time.Duration((b + 0.25*b*u) * float64(time.Second))
}

// otherWait is the wait after any other failure on attempt (0-based):
// min(2·(attempt+1), 15) seconds.
func otherWait(attempt int) time.Duration {
	return time.Duration(min(2*float64(attempt+1), 15) * float64(time.Second))
}
