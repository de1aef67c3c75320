package openai

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/org/agentevolver/internal/retry"
)

// backoff returns the wait before retry number attempt (0 for the first
// retry): exponential from base, capped at limit, with "equal jitter" (a
// uniform draw from the upper half) so that many clients rate-limited at once
// spread out while each still waits a meaningful minimum. A server's
// Retry-After hint, capped at limit too, is a floor.
func backoff(attempt int, base, limit, retryAfter time.Duration) time.Duration {
	d := retry.Backoff{Base: base, Max: limit}.Delay(attempt, nil)
	return max(d, min(retryAfter, limit))
}

// parseRetryAfter reads a server's retry hint from the headers:
// retry-after-ms (milliseconds, sent by OpenAI) or Retry-After (seconds or
// an HTTP date, RFC 9110), each bounded by retry.MaxRetryAfter. It returns
// 0 when there is no usable hint.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if d, ok := retry.ParseRetryAfterMs(h.Get("Retry-After-Ms")); ok {
		return d
	}
	d, _ := retry.ParseRetryAfter(h.Get("Retry-After"), now)
	return d
}

// parseShouldRetry reads the x-should-retry header some servers (OpenAI)
// send to override the client's judgement: +1 retry, -1 do not, 0 no opinion.
func parseShouldRetry(h http.Header) int {
	switch strings.ToLower(strings.TrimSpace(h.Get("X-Should-Retry"))) {
	case "true":
		return 1
	case "false":
		return -1
	}
	return 0
}

// retryable reports whether a failed attempt may succeed if repeated: 408,
// 409, 429 (but not an exhausted quota) and 5xx, as an HTTP status or in a
// 200 body or stream; an attempt timeout; a *TransportError (a dropped or
// refused connection, a stream cut short). Refusals, context-length errors,
// malformed or too large answers and the caller's cancellation are final.
// err is an attempt's error, already typed by transportError.
func retryable(err error) bool {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		if apiErr.contentFiltered() || apiErr.contextLength() {
			return false
		}
		switch apiErr.shouldRetry {
		case 1:
			return true
		case -1:
			return false
		}
		if apiErr.StatusCode == http.StatusTooManyRequests {
			return apiErr.Code != "insufficient_quota"
		}
		return retry.TransientStatus(apiErr.StatusCode)
	}
	return errors.Is(err, ErrTimeout) || errors.Is(err, ErrTransport)
}
