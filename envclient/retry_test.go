package envclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/org/agentevolver"
)

// injectTransport fails chosen attempts with an error before they reach the
// network, and counts attempts.
type injectTransport struct {
	base   http.RoundTripper
	inject func(n int) error // n counts attempts from 1; nil error passes through
	n      atomic.Int64
}

func (t *injectTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	n := int(t.n.Add(1))
	if t.inject != nil {
		if err := t.inject(n); err != nil {
			if r.Body != nil {
				r.Body.Close()
			}
			return nil, err
		}
	}
	return t.base.RoundTrip(r)
}

var (
	errRefused = &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	errReset   = &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
)

// holdUntilClientLeaves blocks a handler until the client disconnects. The
// body is drained first: net/http notices a closed connection only once the
// handler has read the whole request.
func holdUntilClientLeaves(r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(30 * time.Second): // a broken test must not hang the suite
	}
}

// callRoute calls the method behind route.
func callRoute(ctx context.Context, c *Client, route string) error {
	var err error
	switch route {
	case RouteEnvProfile:
		_, err = c.TaskIDs(ctx, "e", "train")
	case RouteCreate:
		_, err = c.Create(ctx, "e", "t", "i", nil)
	case RouteStep:
		_, err = c.Step(ctx, "i", agentevolver.Message{Content: "act"}, nil)
	case RouteEvaluate:
		_, err = c.Evaluate(ctx, "i", nil)
	case RouteInfo:
		_, err = c.Info(ctx, "i", nil)
	case RouteRelease:
		_, err = c.Release(ctx, "i")
	case RouteHealth:
		err = c.Health(ctx)
	default:
		panic("unknown route " + route)
	}
	return err
}

// okAnswer is a valid answer for every route.
const okAnswer = `{"success": true, "data": {"state": [], "info": {"instance_id": "i"}}}`

func okFor(route string) string {
	switch route {
	case RouteEnvProfile:
		return `{"success": true, "data": ["t"]}`
	case RouteEvaluate:
		return `{"success": true, "data": 1}`
	}
	return okAnswer
}

// TestRetryPolicy checks which failures are retried on which routes, and how
// often.
func TestRetryPolicy(t *testing.T) {
	status := func(code int, times int) func(n int, w http.ResponseWriter, r *http.Request) {
		return func(n int, w http.ResponseWriter, r *http.Request) {
			if n <= times {
				writeBody(w, code, `{"detail": "transient"}`)
				return
			}
			writeBody(w, 200, okFor(r.URL.Path))
		}
	}
	hang := func(n int, w http.ResponseWriter, r *http.Request) { holdUntilClientLeaves(r) }
	slowBody := func(n int, w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"success": true, "da`)
		w.(http.Flusher).Flush()
		holdUntilClientLeaves(r)
	}
	hangup := func(n int, w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}
	inject := func(err error, times int) func(int) error {
		return func(n int) error {
			if n <= times {
				return err
			}
			return nil
		}
	}
	tests := []struct {
		name          string
		route         string
		server        func(n int, w http.ResponseWriter, r *http.Request)
		inject        func(n int) error
		timeout       time.Duration
		nonIdempotent bool
		maxRetries    int
		wantAttempts  int
		wantErr       error // nil: success
		wantReached   bool  // for TransportErrors
	}{
		{name: "step refused always", route: RouteStep, inject: inject(errRefused, 99), wantAttempts: 3, wantErr: ErrUnavailable},
		{name: "step refused once", route: RouteStep, inject: inject(errRefused, 1), wantAttempts: 2},
		{name: "create refused twice", route: RouteCreate, inject: inject(errRefused, 2), wantAttempts: 3},
		{name: "step reset", route: RouteStep, inject: inject(errReset, 99), wantAttempts: 1, wantErr: ErrUnavailable, wantReached: true},
		{name: "create reset", route: RouteCreate, inject: inject(errReset, 99), wantAttempts: 1, wantErr: ErrUnavailable, wantReached: true},
		{name: "step reset opted in", route: RouteStep, inject: inject(errReset, 1), nonIdempotent: true, wantAttempts: 2},
		{name: "evaluate reset", route: RouteEvaluate, inject: inject(errReset, 2), wantAttempts: 3},
		{name: "step 503", route: RouteStep, server: status(503, 99), wantAttempts: 1, wantErr: ErrUnavailable},
		{name: "create 502", route: RouteCreate, server: status(502, 99), wantAttempts: 1, wantErr: ErrUnavailable},
		{name: "step 503 opted in", route: RouteStep, server: status(503, 99), nonIdempotent: true, wantAttempts: 3, wantErr: ErrUnavailable},
		{name: "step 503 opted in recovers", route: RouteStep, server: status(503, 1), nonIdempotent: true, wantAttempts: 2},
		{name: "step 500", route: RouteStep, server: status(500, 99), nonIdempotent: true, wantAttempts: 1, wantErr: ErrServer},
		{name: "evaluate 500", route: RouteEvaluate, server: status(500, 99), wantAttempts: 1, wantErr: ErrServer},
		{name: "evaluate 503 recovers", route: RouteEvaluate, server: status(503, 2), wantAttempts: 3},
		{name: "task ids 504", route: RouteEnvProfile, server: status(504, 99), wantAttempts: 3, wantErr: ErrUnavailable},
		{name: "info 502", route: RouteInfo, server: status(502, 1), wantAttempts: 2},
		{name: "release 503", route: RouteRelease, server: status(503, 99), wantAttempts: 3, wantErr: ErrUnavailable},
		{name: "health 503", route: RouteHealth, server: status(503, 99), wantAttempts: 3, wantErr: ErrUnavailable},
		{name: "create 429 recovers", route: RouteCreate, server: status(429, 2), wantAttempts: 3},
		{name: "create 429", route: RouteCreate, server: status(429, 99), wantAttempts: 3, wantErr: ErrTooManyInstances},
		{name: "step 400", route: RouteStep, server: status(400, 99), wantAttempts: 1, wantErr: ErrBadRequest},
		{name: "evaluate 422", route: RouteEvaluate, server: status(422, 99), wantAttempts: 1, wantErr: ErrBadRequest},
		{name: "no retries", route: RouteEvaluate, server: status(503, 99), maxRetries: -1, wantAttempts: 1, wantErr: ErrUnavailable},
		{name: "five retries", route: RouteEvaluate, server: status(503, 99), maxRetries: 5, wantAttempts: 6, wantErr: ErrUnavailable},
		{name: "step timeout", route: RouteStep, server: hang, timeout: 20 * time.Millisecond, wantAttempts: 1, wantErr: ErrUnavailable, wantReached: true},
		{name: "evaluate timeout", route: RouteEvaluate, server: hang, timeout: 20 * time.Millisecond, wantAttempts: 3, wantErr: ErrUnavailable, wantReached: true},
		{name: "evaluate slow body", route: RouteEvaluate, server: slowBody, timeout: 20 * time.Millisecond, wantAttempts: 3, wantErr: ErrUnavailable, wantReached: true},
		{name: "step slow body", route: RouteStep, server: slowBody, timeout: 20 * time.Millisecond, wantAttempts: 1, wantErr: ErrUnavailable, wantReached: true},
		{name: "step hang-up", route: RouteStep, server: hangup, wantAttempts: 1, wantErr: ErrUnavailable, wantReached: true},
		{name: "release hang-up", route: RouteRelease, server: hangup, wantAttempts: 3, wantErr: ErrUnavailable, wantReached: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(hits.Add(1))
				if tt.server != nil {
					tt.server(n, w, r)
					return
				}
				writeBody(w, 200, okFor(r.URL.Path))
			}))
			t.Cleanup(srv.Close)
			transport := &injectTransport{base: srv.Client().Transport, inject: tt.inject}
			cfg := testConfig(srv.URL)
			cfg.HTTPClient = &http.Client{Transport: transport}
			cfg.RetryNonIdempotent = tt.nonIdempotent
			cfg.MaxRetries = tt.maxRetries
			if tt.timeout > 0 {
				cfg.Timeout, cfg.TimeoutJitter = tt.timeout, -1
			}
			c := newTestClient(t, cfg)

			err := callRoute(t.Context(), c, tt.route)
			t.Logf("err: %v", err)
			if got := int(transport.n.Load()); got != tt.wantAttempts {
				t.Errorf("attempts = %d, want %d", got, tt.wantAttempts)
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("err = %v, want success", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
				t.Errorf("err = %v matches a context error although ctx is live", err)
			}
			var te *TransportError
			if errors.As(err, &te) {
				if te.MayHaveReachedServer != tt.wantReached {
					t.Errorf("MayHaveReachedServer = %v, want %v", te.MayHaveReachedServer, tt.wantReached)
				}
				if te.Attempts != tt.wantAttempts || te.Route != tt.route {
					t.Errorf("TransportError = %+v, want %d attempts on %s", te, tt.wantAttempts, tt.route)
				}
			}
			var se *StatusError
			if errors.As(err, &se) && se.Attempts != tt.wantAttempts {
				t.Errorf("StatusError.Attempts = %d, want %d", se.Attempts, tt.wantAttempts)
			}
		})
	}
}

// TestUnsentStepIsRetried has the server drop the connection before reading
// a large step request: the request never got through whole, so the client
// retries it although a connection was made.
func TestUnsentStepIsRetried(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close() // unread data makes this a reset
			}
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		writeBody(w, 200, okAnswer)
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, testConfig(srv.URL))
	big := strings.Repeat("x", 16<<20) // far more than the socket buffers hold
	if _, err := c.Step(t.Context(), "i", agentevolver.Message{Content: big}, nil); err != nil {
		t.Fatalf("Step: %v", err)
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

// TestConnectionRefused uses a real closed port: a failed dial never reaches
// a server, so even Step is retried.
func TestConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()

	c := newTestClient(t, testConfig(url))
	_, err := c.Step(t.Context(), "i", agentevolver.Message{Content: "x"}, nil)
	var te *TransportError
	if !errors.As(err, &te) || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want a TransportError wrapping ErrUnavailable", err)
	}
	if te.Attempts != 3 || te.MayHaveReachedServer {
		t.Errorf("TransportError = %+v, want 3 attempts that never reached the server", te)
	}
}

func TestRetryAfterCappedByBackoffMax(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) < 3 {
			w.Header().Set("Retry-After", "3600")
			writeBody(w, http.StatusTooManyRequests, `{"detail": "full"}`)
			return
		}
		writeBody(w, 200, okAnswer)
	}))
	t.Cleanup(srv.Close)
	if _, err := newTestClient(t, testConfig(srv.URL)).Create(t.Context(), "e", "t", "", nil); err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 3 {
		t.Errorf("hits = %d, want 3", hits.Load())
	}
}

// TestCancelDuringBackoff cancels the context while the client waits an
// hour before its first retry.
func TestCancelDuringBackoff(t *testing.T) {
	first := make(chan struct{}, 1)
	srv, rec := serve(t, func(w http.ResponseWriter, r recordedRequest) {
		writeBody(w, http.StatusServiceUnavailable, `{"detail": "busy"}`)
		select {
		case first <- struct{}{}:
		default:
		}
	})
	cfg := testConfig(srv.URL)
	cfg.BackoffMin, cfg.BackoffMax = time.Hour, time.Hour
	cfg.Fallback = true // cancellation must win over the fallback
	c := newTestClient(t, cfg)

	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-first
		cancel()
	}()
	_, err := c.Evaluate(ctx, "i", nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if errors.Is(err, ErrUnavailable) {
		t.Errorf("err = %v also matches ErrUnavailable", err)
	}
	if n := rec.count(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

// TestCancelDuringRequest cancels the context while the server holds the
// request.
func TestCancelDuringRequest(t *testing.T) {
	started := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		holdUntilClientLeaves(r)
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, testConfig(srv.URL))

	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	_, err := c.Step(ctx, "i", agentevolver.Message{Content: "x"}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestCallerDeadline checks that the caller's own deadline surfaces as
// context.DeadlineExceeded (and an attempt's timeout does not; see
// TestRetryPolicy).
func TestCallerDeadline(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		holdUntilClientLeaves(r)
	}))
	t.Cleanup(srv.Close)
	c := newTestClient(t, testConfig(srv.URL))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	_, err := c.Evaluate(ctx, "i", nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
}

// constSource makes rand.Float64 return a fixed value: 0 for 0, just below
// 1 for math.MaxUint64.
type constSource uint64

func (s constSource) Uint64() uint64 { return uint64(s) }

func TestBackoff(t *testing.T) {
	const low, high = constSource(0), constSource(math.MaxUint64)
	tests := []struct {
		n          int
		retryAfter time.Duration
		src        constSource
		min, max   time.Duration
		want       time.Duration // when min == 0
	}{
		{n: 1, src: low, want: 500 * time.Millisecond},
		{n: 1, src: high, min: 999 * time.Millisecond, max: time.Second},
		{n: 2, src: low, want: time.Second},
		{n: 3, src: low, want: 2 * time.Second},
		{n: 4, src: low, want: 4 * time.Second},
		{n: 5, src: low, want: 5 * time.Second},
		{n: 5, src: high, min: 9999 * time.Millisecond, max: 10 * time.Second},
		{n: 1000, src: low, want: 5 * time.Second},
		{n: 1, retryAfter: 3 * time.Second, src: high, want: 3 * time.Second},
		{n: 1, retryAfter: time.Hour, src: low, want: 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("n=%d,after=%v,src=%d", tt.n, tt.retryAfter, tt.src), func(t *testing.T) {
			c := newTestClient(t, Config{BaseURL: "http://h", BackoffMin: time.Second, BackoffMax: 10 * time.Second, Rand: rand.New(tt.src)})
			got := c.backoff(tt.n, tt.retryAfter)
			if tt.min == 0 && got != tt.want {
				t.Errorf("backoff = %v, want %v", got, tt.want)
			}
			if tt.min != 0 && (got < tt.min || got > tt.max) {
				t.Errorf("backoff = %v, want in [%v, %v]", got, tt.min, tt.max)
			}
		})
	}
	huge := newTestClient(t, Config{BaseURL: "http://h", BackoffMin: time.Second, BackoffMax: math.MaxInt64, Rand: rand.New(high)})
	if got := huge.backoff(200, 0); got <= 0 {
		t.Errorf("backoff with an unbounded maximum overflowed: %v", got)
	}
}

func TestAttemptTimeout(t *testing.T) {
	tests := []struct {
		name            string
		timeout, jitter time.Duration
		src             constSource
		min, max        time.Duration
	}{
		{"low draw", 10 * time.Second, 5 * time.Second, 0, 10 * time.Second, 10 * time.Second},
		{"high draw", 10 * time.Second, 5 * time.Second, math.MaxUint64, 14999 * time.Millisecond, 15 * time.Second},
		{"no jitter", 10 * time.Second, -1, math.MaxUint64, 10 * time.Second, 10 * time.Second},
		{"no timeout", -1, 5 * time.Second, math.MaxUint64, 0, 0},
		{"defaults", 0, 0, math.MaxUint64, 349 * time.Second, 350 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, Config{BaseURL: "http://h", Timeout: tt.timeout, TimeoutJitter: tt.jitter, Rand: rand.New(tt.src)})
			if got := c.attemptTimeout(); got < tt.min || got > tt.max {
				t.Errorf("attemptTimeout = %v, want in [%v, %v]", got, tt.min, tt.max)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	c := newTestClient(t, Config{BaseURL: "http://h/"})
	got := c.cfg
	if got.EnvType != "default" || got.Timeout != 200*time.Second || got.TimeoutJitter != 150*time.Second ||
		got.MaxRetries != 2 || got.BackoffMin != time.Second || got.BackoffMax != 30*time.Second ||
		got.MaxResponseBytes != 64<<20 || got.HTTPClient == nil || got.Logger == nil ||
		got.Fallback || got.RetryNonIdempotent {
		t.Errorf("defaults = %+v", got)
	}
	if c.base != "http://h" {
		t.Errorf("base = %q", c.base)
	}
}

// TestAttemptReadsRetryAfter: a transient answer's Retry-After, in
// seconds or as an HTTP date, becomes the failure's hint (the parsing
// itself is internal/retry's, tested there); a final answer's is ignored.
func TestAttemptReadsRetryAfter(t *testing.T) {
	tests := []struct {
		name   string
		status int
		header string
		lo, hi time.Duration
	}{
		{"seconds", http.StatusTooManyRequests, "7", 7 * time.Second, 7 * time.Second},
		{"HTTP date", http.StatusServiceUnavailable, time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), 58 * time.Minute, time.Hour},
		{"past date", http.StatusServiceUnavailable, "Wed, 21 Oct 2015 07:28:00 GMT", 0, 0},
		{"negative", http.StatusTooManyRequests, "-3", 0, 0},
		{"garbage", http.StatusTooManyRequests, "soon", 0, 0},
		{"final status", http.StatusBadRequest, "7", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", tt.header)
				writeBody(w, tt.status, `{"detail": "busy"}`)
			}))
			t.Cleanup(srv.Close)
			c := newTestClient(t, testConfig(srv.URL))
			_, f := c.attempt(t.Context(), http.MethodPost, "/create", []byte("{}"))
			if f == nil || f.status != tt.status {
				t.Fatalf("failure = %+v, want status %d", f, tt.status)
			}
			if f.retryAfter < tt.lo || f.retryAfter > tt.hi {
				t.Errorf("retryAfter = %v, want in [%v, %v]", f.retryAfter, tt.lo, tt.hi)
			}
		})
	}
}

// TestConcurrentUse shares one client, and its random source, between
// goroutines; run with -race.
func TestConcurrentUse(t *testing.T) {
	srv, rec := serve(t, func(w http.ResponseWriter, r recordedRequest) {
		writeBody(w, 200, `{"success": true, "data": 0.5}`)
	})
	cfg := testConfig(srv.URL)
	cfg.Timeout, cfg.TimeoutJitter = time.Minute, time.Second
	c := newTestClient(t, cfg)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for range 5 {
				if _, err := c.Evaluate(t.Context(), fmt.Sprint("i", g), nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if n := rec.count(); n != 40 {
		t.Errorf("server saw %d requests, want 40", n)
	}
}
