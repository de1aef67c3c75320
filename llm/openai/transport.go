package openai

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3/option"
	"github.com/org/agentevolver/internal/retry"
)

// exchange observes one HTTP attempt from inside the SDK's middleware chain:
// it bounds the response body, turns error statuses into *APIError (the SDK
// would read such bodies without limit and lose vLLM's and DashScope's error
// shapes) and records the request id.
type exchange struct {
	maxBody   int64
	requestID string
}

// middleware is an option.Middleware.
func (x *exchange) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil {
		return nil, err
	}
	x.requestID = requestIDHeader(res.Header)
	if res.StatusCode >= 400 {
		body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		_ = res.Body.Close()
		apiErr := parseErrorBody(res.StatusCode, body)
		if x.requestID != "" {
			apiErr.RequestID = x.requestID
		}
		apiErr.RetryAfter = parseRetryAfter(res.Header, time.Now())
		apiErr.shouldRetry = parseShouldRetry(res.Header)
		return nil, apiErr
	}
	res.Body = &limitedBody{ReadCloser: res.Body, remaining: x.maxBody}
	return res, nil
}

// requestIDHeader returns the request id servers put in the headers.
func requestIDHeader(h http.Header) string {
	for _, k := range []string{"X-Request-Id", "Request-Id", "X-Dashscope-Request-Id"} {
		if v := strings.TrimSpace(h.Get(k)); v != "" {
			return truncate(v, 256)
		}
	}
	return ""
}

// limitedBody fails with ErrResponseTooLarge once more than remaining bytes
// have been read, instead of silently truncating like io.LimitReader.
type limitedBody struct {
	io.ReadCloser
	remaining int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.remaining < 0 {
		return 0, ErrResponseTooLarge
	}
	// Read one byte past the limit to tell "exactly at" from "over".
	if int64(len(p)) > b.remaining+1 {
		p = p[:b.remaining+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.remaining -= int64(n)
	if b.remaining < 0 {
		return n + int(b.remaining), fmt.Errorf("%w: over the limit", ErrResponseTooLarge)
	}
	return n, err
}

// transportError types err as a *TransportError when it is a failure below
// HTTP: a refused, reset, aborted or broken connection, an unexpected EOF
// (a connection dropped mid-response), a failed dial, read or write, or a
// network timeout. Anything else, already typed errors and the context's
// errors included, is returned unchanged; so is a bad URL or a rejected
// certificate, which no retry would fix.
func transportError(err error) error {
	if err == nil || !isTransport(err) {
		return err
	}
	return &TransportError{Err: err}
}

func isTransport(err error) bool {
	var te *TransportError
	var apiErr *APIError
	if errors.As(err, &te) || errors.As(err, &apiErr) ||
		errors.Is(err, ErrResponseTooLarge) || errors.Is(err, ErrMalformedResponse) {
		return false
	}
	return retry.TransportFailure(err)
}
