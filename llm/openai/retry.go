package openai

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// backoff returns the wait before retry number attempt (0 for the first
// retry): exponential from base, capped at limit, with "equal jitter" (a
// uniform draw from the upper half) so that many clients rate-limited at once
// spread out while each still waits a meaningful minimum. A server's
// Retry-After hint, capped at limit too, is a floor.
func backoff(attempt int, base, limit, retryAfter time.Duration) time.Duration {
	d := limit
	if attempt < 62 {
		if exp := float64(base) * math.Pow(2, float64(attempt)); exp < float64(limit) {
			d = time.Duration(exp)
		}
	}
	if half := d / 2; half > 0 {
		d = half + rand.N(half+1)
	}
	return max(d, min(retryAfter, limit))
}

// maxRetryAfter bounds a server's Retry-After hint before any other cap, so a
// hostile value cannot overflow a time.Duration.
const maxRetryAfter = 24 * time.Hour

// parseRetryAfter reads a server's retry hint from the headers:
// retry-after-ms (milliseconds, sent by OpenAI) or Retry-After (seconds or
// an HTTP date, RFC 9110). It returns 0 when there is no usable hint.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			return clampHint(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return clampHint(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return clampHint(float64(t.Sub(now)))
	}
	return 0
}

func clampHint(d float64) time.Duration {
	if math.IsNaN(d) || d <= 0 {
		return 0
	}
	if d > float64(maxRetryAfter) {
		return maxRetryAfter
	}
	return time.Duration(d)
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
		switch s := apiErr.StatusCode; {
		case s == http.StatusTooManyRequests:
			return apiErr.Code != "insufficient_quota"
		case s == http.StatusRequestTimeout, s == http.StatusConflict, s >= 500:
			return true
		}
		return false
	}
	return errors.Is(err, ErrTimeout) || errors.Is(err, ErrTransport)
}

// sleep waits for d or until ctx is done, whichever is first.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
