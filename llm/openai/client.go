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
	"github.com/org/agentevolver/llm"
)

// Client is an llm.ChatModel backed by an OpenAI-compatible chat-completions
// endpoint. It is safe for concurrent use.
type Client struct {
	cfg    Config
	sdk    oai.Client
	slots  chan struct{} // nil when concurrency is unbounded
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
	c := &Client{cfg: cfg, sdk: oai.NewClient(opts...), logger: cfg.Logger, wait: sleep}
	if cfg.MaxConcurrency > 0 {
		c.slots = make(chan struct{}, cfg.MaxConcurrency)
	}
	return c, nil
}

// Chat sends the conversation and returns the model's answer. Transient
// failures are retried as Config says; the error, if any, can be classified
// with errors.Is (ErrRateLimited, ErrContentFiltered, ErrRefused,
// ErrContextLength, ErrTimeout, ErrMalformedResponse, the context's errors)
// and inspected with errors.As (*APIError, *RefusalError).
func (c *Client) Chat(ctx context.Context, messages []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
	params, err := c.buildParams(messages, opts)
	if err != nil {
		return llm.Completion{}, err
	}
	attempts := c.cfg.MaxRetries + 1
	var lastErr error
	for attempt := range attempts {
		if attempt > 0 {
			wait := backoff(attempt-1, c.cfg.RetryBaseDelay, c.cfg.RetryMaxDelay, retryAfterOf(lastErr))
			c.logger.WarnContext(ctx, "openai: retrying chat completion",
				"model", c.cfg.Model, "attempt", attempt+1, "attempts", attempts, "wait", wait, "err", lastErr)
			if err := c.wait(ctx, wait); err != nil {
				return llm.Completion{}, fmt.Errorf("openai: %w (while waiting to retry after: %w)", err, lastErr)
			}
		}
		comp, err := c.attempt(ctx, params)
		if err == nil {
			return comp, nil
		}
		if ctx.Err() != nil {
			return llm.Completion{}, fmt.Errorf("openai: %w", ctx.Err())
		}
		if !retryable(err) {
			return llm.Completion{}, err
		}
		lastErr = err
	}
	if attempts == 1 {
		return llm.Completion{}, lastErr
	}
	return llm.Completion{}, fmt.Errorf("openai: giving up after %d attempts: %w", attempts, lastErr)
}

// errAttemptTimeout is the cancellation cause of an attempt that ran past
// Config.RequestTimeout.
var errAttemptTimeout = errors.New("openai: attempt timeout")

// attempt makes one request, holding a concurrency slot while it is in
// flight.
func (c *Client) attempt(ctx context.Context, params oai.ChatCompletionNewParams) (llm.Completion, error) {
	if err := c.acquire(ctx); err != nil {
		return llm.Completion{}, err
	}
	defer c.release()

	attemptCtx := ctx
	if c.cfg.RequestTimeout > 0 {
		var cancel context.CancelFunc
		attemptCtx, cancel = context.WithTimeoutCause(ctx, c.cfg.RequestTimeout, errAttemptTimeout)
		defer cancel()
	}
	x := &exchange{maxBody: c.cfg.MaxResponseBytes}
	reqOpts := []option.RequestOption{option.WithMiddleware(x.middleware)}
	start := time.Now()

	var comp llm.Completion
	var err error
	if c.cfg.Stream {
		comp, err = readStream(c.sdk.Chat.Completions.NewStreaming(attemptCtx, params, reqOpts...))
	} else {
		var body []byte
		reqOpts = append(reqOpts, option.WithResponseBodyInto(&body))
		if _, err = c.sdk.Chat.Completions.New(attemptCtx, params, reqOpts...); err == nil {
			comp, err = decodeCompletion(body)
		}
	}
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(attemptCtx), errAttemptTimeout) {
		// The deadline is ours, not the caller's: keep the cause as text so
		// that errors.Is(err, context.DeadlineExceeded) stays about ctx.
		err = fmt.Errorf("%w after %s (%v)", ErrTimeout, c.cfg.RequestTimeout, err)
	}
	if x.requestID != "" {
		comp.RequestID = x.requestID
		var refusal *RefusalError
		if errors.As(err, &refusal) {
			refusal.Completion.RequestID = x.requestID
		}
	}
	c.logger.DebugContext(ctx, "openai: chat completion attempt",
		"model", c.cfg.Model, "stream", c.cfg.Stream, "duration", time.Since(start),
		"request_id", comp.RequestID, "finish_reason", comp.FinishReason, "err", err)
	return comp, err
}

// acquire takes a concurrency slot, waiting no longer than ctx allows.
func (c *Client) acquire(ctx context.Context) error {
	if c.slots == nil {
		return ctx.Err()
	}
	select {
	case c.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Client) release() {
	if c.slots != nil {
		<-c.slots
	}
}

// retryAfterOf returns the server's Retry-After hint carried by err, if any.
func retryAfterOf(err error) time.Duration {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.RetryAfter
	}
	return 0
}
