package envclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/org/agentevolver"
)

// Routes of the env-service protocol (reference §1.1). Every route but
// RouteHealth is a POST of the same five-field JSON body.
const (
	// RouteEnvProfile lists task ids (TaskIDs).
	RouteEnvProfile = "/get_env_profile"
	// RouteCreate starts an instance (Create).
	RouteCreate = "/create"
	// RouteStep applies an action (Step).
	RouteStep = "/step"
	// RouteEvaluate scores an instance (Evaluate).
	RouteEvaluate = "/evaluate"
	// RouteInfo describes an instance (Info).
	RouteInfo = "/get_info"
	// RouteRelease frees an instance (Release).
	RouteRelease = "/release"
	// RouteHealth is the liveness check, a GET answered with "OK" (Health).
	RouteHealth = "/healthz"
)

// DefaultSplit is the split TaskIDs asks for when given none, the server's
// own default.
const DefaultSplit = "train"

// Client is an Env that talks to an env service over HTTP. It is safe for
// concurrent use.
type Client struct {
	cfg    Config
	base   string
	hc     *http.Client
	log    *slog.Logger
	randMu sync.Mutex // serialises cfg.Rand
}

var _ Env = (*Client)(nil)

// New returns a Client for cfg. It fails when cfg.BaseURL is not an
// absolute http or https URL without query or fragment, when cfg.Token
// cannot be sent in a header, when cfg.CAFile cannot be read, and when
// TLSConfig or CAFile is combined with HTTPClient.
func New(cfg Config) (*Client, error) {
	base, err := normaliseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	cfg, err = cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if cfg.Token != "" && cleartextToNetwork(base) {
		cfg.Logger.Warn("envclient: the env service token will cross the network in clear text; use an https BaseURL",
			"base_url", base)
	}
	return &Client{cfg: cfg, base: base, hc: cfg.HTTPClient, log: cfg.Logger}, nil
}

// normaliseBaseURL validates a base URL and strips its trailing slashes, so
// that base + "/route" has exactly one slash between them.
func normaliseBaseURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return "", fmt.Errorf("envclient: invalid BaseURL %q: %w", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("envclient: invalid BaseURL %q: scheme must be http or https", raw)
	case u.Host == "":
		return "", fmt.Errorf("envclient: invalid BaseURL %q: no host", raw)
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return "", fmt.Errorf("envclient: invalid BaseURL %q: query and fragment are not allowed", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// request is the body of every POST route (the reference's ServiceRequest).
// All five fields are always sent; empty ids go as null and empty messages
// and params as {}, as the Python trainer client sends them.
type request struct {
	EnvType    string         `json:"env_type"`
	TaskID     *string        `json:"task_id"`
	InstanceID *string        `json:"instance_id"`
	Messages   any            `json:"messages"`
	Params     map[string]any `json:"params"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// post sends a request to route and decodes the envelope of the answer.
func (c *Client) post(ctx context.Context, route string, r request, idempotent bool) (envelope, error) {
	if r.Messages == nil {
		r.Messages = struct{}{}
	}
	if r.Params == nil {
		r.Params = map[string]any{}
	}
	body, err := json.Marshal(r)
	if err != nil {
		return envelope{}, fmt.Errorf("envclient: %s: encode request: %w", route, err)
	}
	data, err := c.do(ctx, http.MethodPost, route, body, idempotent)
	if err != nil {
		return envelope{}, err
	}
	env, err := decodeEnvelope(data)
	if err != nil {
		return envelope{}, fmt.Errorf("envclient: %s: %w", route, err)
	}
	return env, nil
}

// envType returns the env type a call names, or the configured one.
func (c *Client) envType(t string) string {
	if t == "" {
		return c.cfg.EnvType
	}
	return t
}

// useFallback reports whether a failed call should return its placeholder
// (Config.Fallback, and the caller has not given up), logging the
// substitution.
func (c *Client) useFallback(ctx context.Context, route string, err error) bool {
	if !c.cfg.Fallback || ctx.Err() != nil || errors.Is(err, ErrUnauthorized) {
		return false
	}
	c.log.WarnContext(ctx, "envclient: returning fallback result", "route", route, "err", err)
	return true
}

// TaskIDs lists the task ids of envType for a split (empty means
// DefaultSplit) through /get_env_profile. It sends params {"split": split}
// and reads the list from data or, failing that, task_ids. Numeric ids are
// returned as their decimal text.
func (c *Client) TaskIDs(ctx context.Context, envType, split string) ([]string, error) {
	if split == "" {
		split = DefaultSplit
	}
	ids, err := c.taskIDs(ctx, envType, split)
	if err != nil {
		if c.useFallback(ctx, RouteEnvProfile, err) {
			return fallbackTaskIDs(), nil
		}
		return nil, err
	}
	return ids, nil
}

func (c *Client) taskIDs(ctx context.Context, envType, split string) ([]string, error) {
	env, err := c.post(ctx, RouteEnvProfile, request{
		EnvType: c.envType(envType),
		Params:  map[string]any{"split": split},
	}, true)
	if err != nil {
		return nil, err
	}
	if err := requireSuccess(env); err != nil {
		return nil, fmt.Errorf("envclient: %s: %w", RouteEnvProfile, err)
	}
	ids, err := decodeTaskIDs(env)
	if err != nil {
		return nil, fmt.Errorf("envclient: %s: %w", RouteEnvProfile, err)
	}
	return ids, nil
}

// Create starts an instance of envType (empty means Config.EnvType) on
// taskID. An empty instanceID lets the server choose one. The returned
// state's Info["instance_id"] always holds the instance's id: the server's
// if it reported one, else the requested one. Use that id, not the
// requested one, for the instance's other calls: a Go env service mints its
// own id for a caller it does not trust (one without the token, unless it
// runs with TrustClientIDs) whatever instanceID asked for. A server that
// chose an id but did not report it is ErrBadResponse (the instance is then
// unreachable and left to the server's idle reaper).
//
// Create is not retried once the request may have reached the server (see
// Config.RetryNonIdempotent): a second create would start a second instance.
//
// A Create cancelled through ctx returns at once; if the server starts the
// instance all the same, the client releases it in the background.
func (c *Client) Create(ctx context.Context, envType, taskID, instanceID string, params map[string]any) (InitState, error) {
	s, err := c.create(ctx, envType, taskID, instanceID, params)
	if err != nil {
		if c.useFallback(ctx, RouteCreate, err) {
			return fallbackInitState(taskID, instanceID), nil
		}
		return InitState{}, err
	}
	return s, nil
}

// create sends the create under a context that the caller's cancellation
// does not reach. A caller who gives up gets ctx's error at once, but the
// request goes on in the background: if the server started an instance
// anyway, its answer is read and the instance released, instead of living
// unreachable (the caller never learnt its id) until the server's idle
// reaper. The background work stops after reclaimWindow.
func (c *Client) create(ctx context.Context, envType, taskID, instanceID string, params map[string]any) (InitState, error) {
	type result struct {
		s   InitState
		err error
	}
	if err := ctx.Err(); err != nil {
		return InitState{}, fmt.Errorf("envclient: %s: %w", RouteCreate, err)
	}
	dctx, dcancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan result, 1)
	go func() {
		s, err := c.createOnce(dctx, envType, taskID, instanceID, params)
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		dcancel()
		return r.s, r.err
	case <-ctx.Done():
		stop := time.AfterFunc(reclaimWindow, dcancel)
		go func() {
			defer dcancel()
			defer stop.Stop()
			r := <-done
			if r.err != nil || r.s.InstanceID() == "" {
				return
			}
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reclaimWindow)
			defer cancel()
			released, err := c.release(rctx, r.s.InstanceID())
			c.log.InfoContext(rctx, "envclient: released an instance whose create the caller abandoned",
				"instance_id", r.s.InstanceID(), "released", released, "err", err)
		}()
		return InitState{}, fmt.Errorf("envclient: %s: %w", RouteCreate, ctx.Err())
	}
}

// reclaimWindow bounds the background work for an abandoned create: waiting
// for its answer, then releasing the instance it started.
const reclaimWindow = 30 * time.Second

func (c *Client) createOnce(ctx context.Context, envType, taskID, instanceID string, params map[string]any) (InitState, error) {
	env, err := c.post(ctx, RouteCreate, request{
		EnvType:    c.envType(envType),
		TaskID:     optional(taskID),
		InstanceID: optional(instanceID),
		Params:     params,
	}, false)
	if err != nil {
		return InitState{}, err
	}
	if err := requireSuccess(env); err != nil {
		return InitState{}, fmt.Errorf("envclient: %s: %w", RouteCreate, err)
	}
	s, err := decodeInitState(env)
	if err != nil {
		return InitState{}, fmt.Errorf("envclient: %s: %w", RouteCreate, err)
	}
	if s.InstanceID() == "" {
		if instanceID == "" {
			return InitState{}, fmt.Errorf("envclient: %s: %w: the server chose an instance id but did not report it in info.instance_id", RouteCreate, ErrBadResponse)
		}
		if s.Info == nil {
			s.Info = map[string]any{}
		}
		s.Info["instance_id"] = instanceID
	}
	return s, nil
}

// Step sends the agent's action to an instance as the request's messages.
// An action without a role is sent as an assistant message.
//
// Step is not retried once the request may have reached the server (see
// Config.RetryNonIdempotent): the environment would act twice.
func (c *Client) Step(ctx context.Context, instanceID string, action agentevolver.Message, params map[string]any) (StepResult, error) {
	r, err := c.step(ctx, instanceID, action, params)
	if err != nil {
		if c.useFallback(ctx, RouteStep, err) {
			return fallbackStepResult(instanceID), nil
		}
		return StepResult{}, err
	}
	return r, nil
}

func (c *Client) step(ctx context.Context, instanceID string, action agentevolver.Message, params map[string]any) (StepResult, error) {
	if action.Role == "" {
		action.Role = agentevolver.RoleAssistant
	}
	env, err := c.post(ctx, RouteStep, request{
		EnvType:    c.cfg.EnvType,
		InstanceID: optional(instanceID),
		Messages:   action,
		Params:     params,
	}, false)
	if err != nil {
		return StepResult{}, err
	}
	if err := requireSuccess(env); err != nil {
		return StepResult{}, fmt.Errorf("envclient: %s: %w", RouteStep, err)
	}
	r, err := decodeStepResult(env)
	if err != nil {
		return StepResult{}, fmt.Errorf("envclient: %s: %w", RouteStep, err)
	}
	return r, nil
}

// Evaluate scores an instance's current state. params["sparse"] == true
// asks for 0/1. The answer's data may be a number, a boolean (1 or 0) or a
// string holding a finite number; anything else is ErrBadResponse.
func (c *Client) Evaluate(ctx context.Context, instanceID string, params map[string]any) (float64, error) {
	score, err := c.evaluate(ctx, instanceID, params)
	if err != nil {
		if c.useFallback(ctx, RouteEvaluate, err) {
			return fallbackScore, nil
		}
		return 0, err
	}
	return score, nil
}

func (c *Client) evaluate(ctx context.Context, instanceID string, params map[string]any) (float64, error) {
	env, err := c.post(ctx, RouteEvaluate, request{
		EnvType:    c.cfg.EnvType,
		InstanceID: optional(instanceID),
		Params:     params,
	}, true)
	if err != nil {
		return 0, err
	}
	if err := requireSuccess(env); err != nil {
		return 0, fmt.Errorf("envclient: %s: %w", RouteEvaluate, err)
	}
	score, err := decodeScore(env)
	if err != nil {
		return 0, fmt.Errorf("envclient: %s: %w", RouteEvaluate, err)
	}
	return score, nil
}

// Info returns the raw JSON of the answer's data from /get_info (JSON null
// when the server sent none).
func (c *Client) Info(ctx context.Context, instanceID string, params map[string]any) (json.RawMessage, error) {
	env, err := c.post(ctx, RouteInfo, request{
		EnvType:    c.cfg.EnvType,
		InstanceID: optional(instanceID),
		Params:     params,
	}, true)
	if err == nil {
		err = requireSuccess(env)
		if err != nil {
			err = fmt.Errorf("envclient: %s: %w", RouteInfo, err)
		}
	}
	if err != nil {
		if c.useFallback(ctx, RouteInfo, err) {
			return fallbackInfo(), nil
		}
		return nil, err
	}
	if env.Data == nil {
		return json.RawMessage("null"), nil
	}
	return env.Data, nil
}

// Release frees an instance and returns the answer's success: false for an
// unknown instance. Release is retried like a read: the instance ends up
// released either way, but a retry after a lost answer reports false.
func (c *Client) Release(ctx context.Context, instanceID string) (bool, error) {
	released, err := c.release(ctx, instanceID)
	if err != nil {
		if c.useFallback(ctx, RouteRelease, err) {
			return fallbackReleased, nil
		}
		return false, err
	}
	return released, nil
}

func (c *Client) release(ctx context.Context, instanceID string) (bool, error) {
	env, err := c.post(ctx, RouteRelease, request{
		EnvType:    c.cfg.EnvType,
		InstanceID: optional(instanceID),
	}, true)
	if err != nil {
		return false, err
	}
	released, err := decodeReleased(env)
	if err != nil {
		return false, fmt.Errorf("envclient: %s: %w", RouteRelease, err)
	}
	return released, nil
}

// Health checks that the service is up: GET /healthz must answer 2xx. It
// retries like the other reads and never falls back.
func (c *Client) Health(ctx context.Context) error {
	_, err := c.do(ctx, http.MethodGet, RouteHealth, nil, true)
	return err
}
