package retry

import (
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Sleep waits for d or until ctx is done, whichever comes first, and
// returns ctx's error in the second case. A d of zero or less does not
// wait: Sleep then returns ctx.Err().
func Sleep(ctx context.Context, d time.Duration) error {
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

// Backoff describes exponentially growing waits: the ceiling of retry n
// (counted from 0) is Base·2^n, capped at Max. The zero Backoff waits 0.
type Backoff struct {
	// Base is the ceiling of the first retry. Zero or negative means no
	// wait at all.
	Base time.Duration
	// Max caps every ceiling. Zero or negative means no cap short of the
	// largest time.Duration; a Max below Base caps Base too.
	Max time.Duration
}

// Ceiling returns min(Base·2^n, Max) without overflowing; n below 0 counts
// as 0.
func (b Backoff) Ceiling(n int) time.Duration {
	if b.Base <= 0 {
		return 0
	}
	limit := b.Max
	if limit <= 0 {
		limit = math.MaxInt64
	}
	c := min(b.Base, limit)
	for range max(n, 0) {
		if c > limit/2 {
			return limit
		}
		c *= 2
	}
	return c
}

// Delay returns the wait before retry n: Ceiling(n) with equal jitter
// (see EqualJitter), drawn from r. A nil r means the runtime's random
// source; a *rand.Rand is not safe for concurrent use, so a caller that
// shares one serialises its calls.
func (b Backoff) Delay(n int, r *rand.Rand) time.Duration {
	u := 0.0
	if r == nil {
		u = rand.Float64()
	} else {
		u = r.Float64()
	}
	return EqualJitter(b.Ceiling(n), u)
}

// EqualJitter spreads a wait of ceiling c over [c/2, c): c/2 plus the
// fraction u, in [0, 1), of the rest. Clients rate-limited at once spread
// out while each still waits at least half. u outside [0, 1) is clamped;
// c of zero or less gives c.
func EqualJitter(c time.Duration, u float64) time.Duration {
	if c <= 0 {
		return c
	}
	half := c / 2
	rest := float64(c - half)
	j := min(max(u, 0), 1) * rest
	if !(j < rest) { // u ≥ 1, or rounding up near the largest Duration
		return c
	}
	return half + time.Duration(j)
}

// MaxRetryAfter bounds every hint ParseRetryAfter and ParseRetryAfterMs
// return, so that a hostile or mistaken value can neither overflow a
// time.Duration nor stall a caller for ever. Callers usually cap the hint
// further (at their longest backoff, say).
const MaxRetryAfter = 24 * time.Hour

// ParseRetryAfter reads the value of a Retry-After header (RFC 9110
// §10.2.3): a number of seconds (a fraction, which some servers send, is
// honoured) or an HTTP date, taken relative to now. ok reports a hint of a
// positive wait, which is then at most MaxRetryAfter; an empty, malformed
// or NaN value, and one that names no wait (zero, negative, a date not
// after now), give 0 and false.
func ParseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return clamp(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return clamp(float64(t.Sub(now)))
	}
	return 0, false
}

// ParseRetryAfterMs reads the value of a retry-after-ms header, which
// OpenAI sends alongside Retry-After: a number of milliseconds, fraction
// allowed. Its results are those of ParseRetryAfter.
func ParseRetryAfterMs(v string) (d time.Duration, ok bool) {
	ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0, false
	}
	return clamp(ms * float64(time.Millisecond))
}

// clamp turns a wait in nanoseconds into a hint: positive and at most
// MaxRetryAfter, or none.
func clamp(ns float64) (time.Duration, bool) {
	switch {
	case math.IsNaN(ns) || ns < 1:
		return 0, false
	case ns > float64(MaxRetryAfter):
		return MaxRetryAfter, true
	}
	return time.Duration(ns), true
}

// TransientStatus reports an HTTP status worth retrying later: 408, 409,
// 429 and 5xx.
func TransientStatus(s int) bool {
	return s == http.StatusRequestTimeout || s == http.StatusConflict ||
		s == http.StatusTooManyRequests || s >= 500
}

// TransportFailure reports a failure below HTTP, worth retrying: a
// refused, reset or broken connection, a connection dropped mid-response,
// a failed dial or a network timeout. The end of a context is not one.
func TransportFailure(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var opErr *net.OpError
	var netErr net.Error
	return errors.As(err, &opErr) || (errors.As(err, &netErr) && netErr.Timeout())
}
