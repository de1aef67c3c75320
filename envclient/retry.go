package envclient

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/org/agentevolver/internal/retry"
)

// do sends one logical request, retrying transient failures, and returns
// the body of a 2xx answer. idempotent says whether repeating a request that
// may already have been processed is harmless; when it is not (create,
// step), such a request is retried only with Config.RetryNonIdempotent.
// Failures that certainly did not reach the server (connection refused,
// 408, 429) are retried for every route.
func (c *Client) do(ctx context.Context, method, route string, body []byte, idempotent bool) ([]byte, error) {
	for attempt := 1; ; attempt++ {
		data, f := c.attempt(ctx, method, route, body)
		if f == nil {
			return data, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("envclient: %s: %w", route, err)
		}
		switch {
		case !f.transient,
			attempt > c.cfg.MaxRetries,
			f.mayHaveReached && !idempotent && !c.cfg.RetryNonIdempotent:
			return nil, f.err(route, attempt)
		}
		delay := c.backoff(attempt, f.retryAfter)
		c.log.DebugContext(ctx, "envclient: retrying", "route", route, "attempt", attempt,
			"delay", delay, "err", f.err(route, attempt))
		if err := retry.Sleep(ctx, delay); err != nil {
			return nil, fmt.Errorf("envclient: %s: %w", route, err)
		}
	}
}

// failure is why one attempt did not produce a usable answer.
type failure struct {
	// status and detail describe an HTTP error answer (status != 0).
	status int
	detail string
	// transport is the error of a request that got no complete answer.
	transport error
	// other is any other error (a malformed or oversized body), already
	// wrapping its sentinel.
	other error
	// transient says a retry may succeed.
	transient bool
	// mayHaveReached says the server may have processed the request.
	mayHaveReached bool
	// retryAfter is the server's Retry-After, if any.
	retryAfter time.Duration
}

// err is the error a call returns for f after attempts requests.
func (f *failure) err(route string, attempts int) error {
	switch {
	case f.status != 0:
		return &StatusError{Route: route, StatusCode: f.status, Detail: f.detail, Attempts: attempts}
	case f.transport != nil:
		return &TransportError{Route: route, Attempts: attempts, MayHaveReachedServer: f.mayHaveReached, Err: f.transport}
	default:
		return fmt.Errorf("envclient: %s: %w", route, f.other)
	}
}

// attempt makes one request under its own timeout and reads the whole
// answer.
func (c *Client) attempt(ctx context.Context, method, route string, body []byte) ([]byte, *failure) {
	actx := ctx
	timeout := c.attemptTimeout()
	if timeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var trace sendTrace
	actx = httptrace.WithClientTrace(actx, trace.clientTrace())

	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(actx, method, c.base+route, rd)
	if err != nil {
		return nil, &failure{other: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	}

	resp, err := c.hc.Do(req)
	if err != nil {
		if isTLSMismatch(err) {
			// The handshake failed, so nothing was sent, and a retry
			// would fail alike.
			return nil, &failure{transport: err}
		}
		return nil, &failure{
			transport:      attemptError(actx, err, timeout),
			transient:      true,
			mayHaveReached: !isDialError(err) && !trace.unsent(),
		}
	}
	defer resp.Body.Close()

	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	limit := c.cfg.MaxResponseBytes
	if !ok {
		limit = min(limit, maxDetailBytes)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		// The server answered, so it has seen the request.
		return nil, &failure{transport: attemptError(actx, err, timeout), transient: true, mayHaveReached: true}
	}
	if int64(len(data)) > limit {
		if ok {
			return nil, &failure{other: fmt.Errorf("%w: response body exceeds %d bytes", ErrBadResponse, limit)}
		}
		data = data[:limit]
	}
	if ok {
		return data, nil
	}

	f := &failure{status: resp.StatusCode, detail: decodeDetail(data)}
	switch resp.StatusCode {
	case http.StatusRequestTimeout, http.StatusTooManyRequests:
		// Rejected before any work was done.
		f.transient = true
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		// A proxy may have forwarded the request before failing.
		f.transient, f.mayHaveReached = true, true
	}
	if f.transient {
		f.retryAfter, _ = retry.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return nil, f
}

// attemptError replaces the error of an attempt whose own timeout expired
// (while the caller's context is still live) by errAttemptTimeout.
func attemptError(actx context.Context, err error, timeout time.Duration) error {
	if timeout > 0 && errors.Is(actx.Err(), context.DeadlineExceeded) && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w after %v", errAttemptTimeout, timeout)
	}
	return err
}

// isDialError reports an error raised while connecting, before any byte of
// the request was sent (connection refused, unknown host, proxy refused).
func isDialError(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Op == "dial" || op.Op == "proxyconnect"
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// isTLSMismatch reports a TLS failure that no retry can fix: the server's
// certificate is not trusted (a self-signed one needs Config.CAFile or
// TLSConfig) or the server does not speak TLS at all.
func isTLSMismatch(err error) bool {
	var verify *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	return errors.As(err, &verify) || errors.As(err, &record) || errors.Is(err, http.ErrSchemeMismatch)
}

// sendTrace records, through httptrace, whether a request was completely
// handed to a connection. It can only prove that a request was not sent:
// a RoundTripper that ignores httptrace reports nothing, and then every
// failure counts as possibly sent.
type sendTrace struct {
	mu      sync.Mutex
	gotConn bool
	wrote   bool
}

func (t *sendTrace) clientTrace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) {
			t.mu.Lock()
			t.gotConn = true
			t.mu.Unlock()
		},
		// net/http reports the write after flushing it; an error means
		// the request did not get through whole, so the server cannot have
		// decoded it.
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err == nil {
				t.mu.Lock()
				t.wrote = true
				t.mu.Unlock()
			}
		},
	}
}

// unsent reports that a connection was obtained but the request was never
// completely written, so the server cannot have acted on it. (When a
// round trip fails, net/http has finished writing before it returns.)
func (t *sendTrace) unsent() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gotConn && !t.wrote
}

// attemptTimeout draws one attempt's time limit; 0 means none.
func (c *Client) attemptTimeout() time.Duration {
	if c.cfg.Timeout < 0 {
		return 0
	}
	d := c.cfg.Timeout
	if c.cfg.TimeoutJitter > 0 {
		d += time.Duration(c.float64() * float64(c.cfg.TimeoutJitter))
	}
	return d
}

// backoff is the wait before retry n (n >= 1): equal jitter over an
// exponentially growing ceiling, or the server's Retry-After.
func (c *Client) backoff(n int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, c.cfg.BackoffMax)
	}
	b := retry.Backoff{Base: c.cfg.BackoffMin, Max: c.cfg.BackoffMax}
	return retry.EqualJitter(b.Ceiling(n-1), c.float64())
}

// float64 draws from [0, 1).
func (c *Client) float64() float64 {
	if c.cfg.Rand == nil {
		return rand.Float64()
	}
	c.randMu.Lock()
	defer c.randMu.Unlock()
	return c.cfg.Rand.Float64()
}
