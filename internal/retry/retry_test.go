package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	ctx := context.Background()
	if err := Sleep(ctx, time.Millisecond); err != nil {
		t.Fatalf("Sleep = %v", err)
	}
	if err := Sleep(ctx, 0); err != nil {
		t.Fatalf("Sleep(0) = %v", err)
	}
	if err := Sleep(ctx, -time.Second); err != nil {
		t.Fatalf("Sleep(<0) = %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, d := range []time.Duration{-1, 0, time.Hour} {
		if err := Sleep(cancelled, d); !errors.Is(err, context.Canceled) {
			t.Errorf("Sleep(cancelled, %v) = %v, want context.Canceled", d, err)
		}
	}
	short, cancel2 := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel2()
	start := time.Now()
	if err := Sleep(short, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Sleep past the deadline = %v", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Fatalf("Sleep ignored the deadline for %v", el)
	}
}

func TestCeiling(t *testing.T) {
	const s = time.Second
	tests := []struct {
		b    Backoff
		n    int
		want time.Duration
	}{
		{Backoff{Base: s, Max: 10 * s}, 0, s},
		{Backoff{Base: s, Max: 10 * s}, 1, 2 * s},
		{Backoff{Base: s, Max: 10 * s}, 3, 8 * s},
		{Backoff{Base: s, Max: 10 * s}, 4, 10 * s},
		{Backoff{Base: s, Max: 10 * s}, 1 << 40, 10 * s},
		{Backoff{Base: s, Max: 10 * s}, -3, s},
		{Backoff{Base: 500 * time.Millisecond, Max: 30 * s}, 2, 2 * s},
		{Backoff{Base: 3 * s, Max: s}, 0, s},    // Max below Base caps Base
		{Backoff{Base: s}, 10, 1024 * s},        // no cap
		{Backoff{Base: s}, 1000, math.MaxInt64}, // no cap, no overflow
		{Backoff{Base: s, Max: math.MaxInt64}, 200, math.MaxInt64},
		{Backoff{Base: math.MaxInt64 / 3, Max: math.MaxInt64}, 1, 2 * (math.MaxInt64 / 3)},
		{Backoff{Base: math.MaxInt64 / 3, Max: math.MaxInt64}, 2, math.MaxInt64},
		{Backoff{}, 5, 0},
		{Backoff{Base: -s, Max: s}, 5, 0},
	}
	for _, tt := range tests {
		if got := tt.b.Ceiling(tt.n); got != tt.want {
			t.Errorf("%+v.Ceiling(%d) = %v, want %v", tt.b, tt.n, got, tt.want)
		}
	}
}

// constSource makes rand.Float64 return a fixed value: 0 for 0, just below
// 1 for math.MaxUint64.
type constSource uint64

func (s constSource) Uint64() uint64 { return uint64(s) }

func TestDelay(t *testing.T) {
	b := Backoff{Base: time.Second, Max: 10 * time.Second}
	low, high := rand.New(constSource(0)), rand.New(constSource(math.MaxUint64))
	if got := b.Delay(0, low); got != 500*time.Millisecond {
		t.Errorf("lowest first delay = %v, want 500ms", got)
	}
	if got := b.Delay(0, high); got < 999*time.Millisecond || got >= time.Second {
		t.Errorf("highest first delay = %v, want just below 1s", got)
	}
	if got := b.Delay(9, low); got != 5*time.Second {
		t.Errorf("lowest capped delay = %v, want 5s", got)
	}
	if got := b.Delay(9, high); got < 9999*time.Millisecond || got >= 10*time.Second {
		t.Errorf("highest capped delay = %v, want just below 10s", got)
	}
	huge := Backoff{Base: time.Second, Max: math.MaxInt64}
	if got := huge.Delay(500, high); got <= 0 {
		t.Errorf("delay with an unbounded maximum overflowed: %v", got)
	}

	// A seeded source gives the same waits again, each within its range.
	draw := func() []time.Duration {
		r := rand.New(rand.NewPCG(1, 2))
		var ds []time.Duration
		for n := range 8 {
			ds = append(ds, b.Delay(n, r))
		}
		return ds
	}
	first, again := draw(), draw()
	for n := range first {
		c := b.Ceiling(n)
		if first[n] != again[n] {
			t.Errorf("seeded delay %d: %v then %v", n, first[n], again[n])
		}
		if first[n] < c/2 || first[n] >= c {
			t.Errorf("delay %d = %v, want in [%v, %v)", n, first[n], c/2, c)
		}
	}

	// The runtime's source jitters.
	seen := map[time.Duration]bool{}
	for range 50 {
		d := b.Delay(3, nil)
		if d < 4*time.Second || d >= 8*time.Second {
			t.Fatalf("delay = %v, want in [4s, 8s)", d)
		}
		seen[d] = true
	}
	if len(seen) < 10 {
		t.Errorf("only %d distinct delays in 50 draws: no jitter", len(seen))
	}
}

func TestEqualJitter(t *testing.T) {
	tests := []struct {
		c    time.Duration
		u    float64
		want time.Duration
	}{
		{10 * time.Second, 0, 5 * time.Second},
		{10 * time.Second, 0.5, 7500 * time.Millisecond},
		{10 * time.Second, 1, 10 * time.Second},
		{10 * time.Second, 7, 10 * time.Second},
		{10 * time.Second, -1, 5 * time.Second},
		{10 * time.Second, math.NaN(), 10 * time.Second},
		{1, 0.99, 0},
		{0, 0.5, 0},
		{-time.Second, 0.5, -time.Second},
		{math.MaxInt64, math.Nextafter(1, 0), math.MaxInt64 - 512},
	}
	for _, tt := range tests {
		if got := EqualJitter(tt.c, tt.u); got != tt.want {
			t.Errorf("EqualJitter(%v, %v) = %v, want %v", tt.c, tt.u, got, tt.want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		in   string
		want time.Duration
	}{
		{"empty", "", 0},
		{"blank", "   ", 0},
		{"seconds", "5", 5 * time.Second},
		{"padded", " 7 ", 7 * time.Second},
		{"fraction", "1.5", 1500 * time.Millisecond},
		{"zero", "0", 0},
		{"negative", "-3", 0},
		{"negative fraction", "-0.5", 0},
		{"below a nanosecond", "1e-12", 0},
		{"a day", "86400", MaxRetryAfter},
		{"huge", "999999999", MaxRetryAfter},
		{"huger than int64", "9999999999999999999999", MaxRetryAfter},
		{"1e300", "1e300", MaxRetryAfter},
		{"infinite", "+Inf", MaxRetryAfter},
		{"NaN", "NaN", 0},
		{"garbage", "tomorrow-ish", 0},
		{"unit", "5s", 0},
		{"HTTP date", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"RFC 850 date", now.Add(time.Hour).Format(time.RFC850), time.Hour},
		{"asctime date", now.Add(2 * time.Minute).Format(time.ANSIC), 2 * time.Minute},
		{"date now", now.Format(http.TimeFormat), 0},
		{"date in the past", now.Add(-time.Hour).Format(http.TimeFormat), 0},
		{"old date", "Wed, 21 Oct 2015 07:28:00 GMT", 0},
		{"date far ahead", now.AddDate(3, 0, 0).Format(http.TimeFormat), MaxRetryAfter},
		{"bad date", "Wed, 32 Oct 2015 07:28:00 GMT", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseRetryAfter(tt.in, now)
			if got != tt.want || ok != (tt.want > 0) {
				t.Fatalf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.want > 0)
			}
		})
	}
}

func TestParseRetryAfterMs(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"250", 250 * time.Millisecond},
		{" 0.5 ", 500 * time.Microsecond},
		{"0", 0},
		{"-20", 0},
		{"soon", 0},
		{"NaN", 0},
		{"1e300", MaxRetryAfter},
		{"Wed, 21 Oct 2015 07:28:00 GMT", 0},
	}
	for _, tt := range tests {
		got, ok := ParseRetryAfterMs(tt.in)
		if got != tt.want || ok != (tt.want > 0) {
			t.Errorf("ParseRetryAfterMs(%q) = %v, %v; want %v", tt.in, got, ok, tt.want)
		}
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"3", "0.5", "-1", "NaN", "+Inf", "1e300", "0x1p-2", "Wed, 21 Oct 2015 07:28:00 GMT", "soon", ""} {
		f.Add(s)
	}
	now := time.Date(2015, 10, 21, 7, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		for _, r := range []struct {
			d  time.Duration
			ok bool
		}{pair(ParseRetryAfter(v, now)), pair(ParseRetryAfterMs(v))} {
			if r.ok != (r.d > 0) || r.d < 0 || r.d > MaxRetryAfter {
				t.Fatalf("%q: %v, %v", v, r.d, r.ok)
			}
		}
	})
}

func pair(d time.Duration, ok bool) struct {
	d  time.Duration
	ok bool
} {
	return struct {
		d  time.Duration
		ok bool
	}{d, ok}
}

// TestTransientStatusAndTransportFailure checks which statuses and errors
// are worth retrying.
func TestTransientStatusAndTransportFailure(t *testing.T) {
	for s, want := range map[int]bool{408: true, 409: true, 429: true, 500: true, 503: true, 400: false, 401: false, 404: false, 200: false} {
		if got := TransientStatus(s); got != want {
			t.Errorf("TransientStatus(%d) = %v, want %v", s, got, want)
		}
	}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{syscall.ECONNREFUSED, true},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{io.ErrUnexpectedEOF, true},
		{&net.OpError{Op: "dial", Err: errors.New("no route")}, true},
		{context.Canceled, false},
		{fmt.Errorf("dial: %w", context.DeadlineExceeded), false},
		{errors.New("bad json"), false},
	} {
		if got := TransportFailure(tc.err); got != tc.want {
			t.Errorf("TransportFailure(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
