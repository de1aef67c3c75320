package openai

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/org/agentevolver"
	"github.com/org/agentevolver/internal/parallel"
	"github.com/org/agentevolver/internal/retry"
	"github.com/org/agentevolver/llm"
)

// Client is an llm.ChatModel backed by an OpenAI-compatible chat-completions
// endpoint. It is safe for concurrent use.
type Client struct {
	cfg    Config
	sdk    oai.Client
	slots  *parallel.Limiter // nil when concurrency is unbounded
	logger *slog.Logger
	// wait sleeps between attempts; tests replace it to observe the waits.
	wait func(ctx context.Context, d time.Duration) error
}

var _ llm.ChatModel = (*Client)(nil)

// New returns a client for cfg. It does not contact the server.
func New(cfg Config) (*Client, error) {
	if cfg.Model == "" {
		return nil, errors.New("openai: Config.Model is required")
	}
	cfg = cfg.withDefaults()
	// Retries live in Chat, where they have jitter, honour the caller's
	// policy and classify refusals; the SDK's own are switched off.
	opts := []option.RequestOption{option.WithMaxRetries(0)}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	c := &Client{cfg: cfg, sdk: oai.NewClient(opts...), logger: cfg.Logger, wait: retry.Sleep}
	if cfg.MaxConcurrency > 0 {
		c.slots = parallel.NewLimiter(cfg.MaxConcurrency)
	}
	return c, nil
}

// Chat sends the conversation and returns the model's answer. Transient
// failures are retried as Config says, within Config.CallTimeout.
//
// The error, if any, can be classified with errors.Is and inspected with
// errors.As:
//
//   - llm.ErrUnavailable (an *UnavailableError): the endpoint kept failing
//     transiently until the retries were spent or the call timeout passed
//     (then context.DeadlineExceeded and ErrTimeout match too); the last
//     attempt's error is inside.
//   - ErrTransport, ErrConnectionRefused (a *TransportError): a connection
//     dropped, reset or refused, a network timeout; retried.
//   - *APIError: an error status, or an error object sent with status 200
//     in the body or stream, typed by the status it carries; 408, 409, 429
//     and 5xx are retried. ErrRateLimited, ErrContextLength,
//     ErrContentFiltered and ErrTimeout classify it.
//   - ErrTimeout: an attempt ran past Config.RequestTimeout; retried.
//   - ErrResponseTooLarge, ErrMalformedResponse, ErrContentFiltered and
//     ErrRefused (a *RefusalError): final, never retried.
//   - the context's errors, when the caller's context ends the call.
func (c *Client) Chat(ctx context.Context, messages []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
	params, err := c.buildParams(messages, opts)
	if err != nil {
		return llm.Completion{}, err
	}
	return retrying(ctx, c, "chat completion", func(ctx context.Context) (llm.Completion, error) {
		return c.attempt(ctx, params)
	})
}

// retrying runs attempt until it succeeds, fails for good, or the retries
// or the call's time run out, as Chat documents, holding a concurrency
// slot for each attempt. what names the call in log records.
func retrying[T any](ctx context.Context, c *Client, what string, attempt func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	// The call's clock starts once the first slot is held: queueing behind
	// this client's own concurrency bound says nothing about the endpoint.
	if err := c.acquire(ctx); err != nil {
		return zero, fmt.Errorf("openai: %w", err)
	}
	callCtx, deadline, cancel := c.callContext(ctx)
	defer cancel()
	maxAttempts := c.cfg.MaxRetries + 1
	for attempts := 1; ; attempts++ {
		v, err := attempt(callCtx)
		c.release()
		if err == nil {
			return v, nil
		}
		if ctx.Err() != nil {
			return zero, fmt.Errorf("openai: %w", ctx.Err())
		}
		if callCtx.Err() != nil {
			return zero, c.callTimedOut(attempts, err)
		}
		if !retryable(err) {
			return zero, err
		}
		if attempts >= maxAttempts {
			return zero, &UnavailableError{Attempts: attempts, Err: err}
		}
		wait := backoff(attempts-1, c.cfg.RetryBaseDelay, c.cfg.RetryMaxDelay, retryAfterOf(err))
		if !deadline.IsZero() && time.Until(deadline) < wait {
			// Waiting could only end in the timeout; report it now.
			return zero, c.callTimedOut(attempts, err)
		}
		c.logger.WarnContext(ctx, "openai: retrying "+what,
			"model", c.cfg.Model, "attempt", attempts+1, "attempts", maxAttempts, "wait", wait, "err", err)
		waitErr := c.wait(callCtx, wait)
		if waitErr == nil {
			waitErr = c.acquire(callCtx)
		}
		switch {
		case ctx.Err() != nil:
			return zero, fmt.Errorf("openai: %w (while waiting to retry after: %w)", ctx.Err(), err)
		case waitErr != nil:
			return zero, c.callTimedOut(attempts, err)
		}
	}
}

// errCallTimeout is the cancellation cause of a call that ran past
// Config.CallTimeout.
var errCallTimeout = errors.New("openai: call timeout")

// callContext returns the context of a whole call, bounded by
// Config.CallTimeout, and its deadline (zero when there is none).
func (c *Client) callContext(ctx context.Context) (context.Context, time.Time, context.CancelFunc) {
	if c.cfg.CallTimeout <= 0 {
		return ctx, time.Time{}, func() {}
	}
	deadline := time.Now().Add(c.cfg.CallTimeout)
	callCtx, cancel := context.WithDeadlineCause(ctx, deadline, errCallTimeout)
	return callCtx, deadline, cancel
}

// callTimedOut returns the error of a call that Config.CallTimeout ended
// after attempts requests, the last of which failed with last.
func (c *Client) callTimedOut(attempts int, last error) error {
	return &UnavailableError{Attempts: attempts, CallTimeout: c.cfg.CallTimeout, Err: last}
}

// errAttemptTimeout is the cancellation cause of an attempt that ran past
// Config.RequestTimeout.
var errAttemptTimeout = errors.New("openai: attempt timeout")

// attempt makes one chat-completions request; the caller holds a
// concurrency slot for it. Its error is typed as send's.
func (c *Client) attempt(ctx context.Context, params oai.ChatCompletionNewParams) (llm.Completion, error) {
	start := time.Now()
	var comp llm.Completion
	requestID, err := c.send(ctx, func(ctx context.Context, reqOpts []option.RequestOption) error {
		var err error
		if c.cfg.Stream {
			comp, err = readStream(c.sdk.Chat.Completions.NewStreaming(ctx, params, reqOpts...))
			return err
		}
		var body []byte
		reqOpts = append(reqOpts, option.WithResponseBodyInto(&body))
		if _, err = c.sdk.Chat.Completions.New(ctx, params, reqOpts...); err == nil {
			comp, err = decodeCompletion(body)
		}
		return err
	})
	if requestID != "" {
		comp.RequestID = requestID
		var refusal *RefusalError
		if errors.As(err, &refusal) {
			refusal.Completion.RequestID = requestID
		}
	}
	c.logger.DebugContext(ctx, "openai: chat completion attempt",
		"model", c.cfg.Model, "stream", c.cfg.Stream, "duration", time.Since(start),
		"request_id", comp.RequestID, "finish_reason", comp.FinishReason, "err", err)
	return comp, err
}

// send makes one HTTP attempt: request sends it through the SDK with
// reqOpts (the middleware that bounds the body and types error statuses)
// and decodes the answer, all under Config.RequestTimeout. The error is
// typed: a transport failure is a *TransportError and a run past
// Config.RequestTimeout is ErrTimeout, while the end of ctx is left for
// the caller to report; an *APIError gets the request id. requestID is
// the one the server sent, if any.
func (c *Client) send(ctx context.Context, request func(ctx context.Context, reqOpts []option.RequestOption) error) (requestID string, err error) {
	attemptCtx := ctx
	if c.cfg.RequestTimeout > 0 {
		var cancel context.CancelFunc
		attemptCtx, cancel = context.WithTimeoutCause(ctx, c.cfg.RequestTimeout, errAttemptTimeout)
		defer cancel()
	}
	x := &exchange{maxBody: c.cfg.MaxResponseBytes}
	err = request(attemptCtx, []option.RequestOption{option.WithMiddleware(x.middleware)})
	switch {
	case err == nil, ctx.Err() != nil:
	case errors.Is(context.Cause(attemptCtx), errAttemptTimeout):
		// The deadline is ours, not the caller's: keep the cause as text so
		// that errors.Is(err, context.DeadlineExceeded) stays about ctx.
		err = fmt.Errorf("%w after %s (%v)", ErrTimeout, c.cfg.RequestTimeout, err)
	default:
		err = transportError(err)
	}
	var apiErr *APIError
	if x.requestID != "" && errors.As(err, &apiErr) && apiErr.RequestID == "" {
		apiErr.RequestID = x.requestID
	}
	return x.requestID, err
}

// acquire takes a concurrency slot, waiting no longer than ctx allows.
func (c *Client) acquire(ctx context.Context) error { return c.slots.Acquire(ctx) }

func (c *Client) release() { c.slots.Release() }

// retryAfterOf returns the server's Retry-After hint carried by err, if any.
func retryAfterOf(err error) time.Duration {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.RetryAfter
	}
	return 0
}
