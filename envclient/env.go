package envclient

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/org/agentevolver"
)

// Env is the environment contract of the SDK, the operations of the
// env-service protocol. An implementation may be remote (Client) or in
// process (envservice.Manager). Every method honours ctx cancellation and is
// safe for concurrent use.
type Env interface {
	// TaskIDs lists the task ids of envType for a split ("train", "val",
	// "test", ...).
	TaskIDs(ctx context.Context, envType, split string) ([]string, error)
	// Create starts an instance of envType on taskID. An empty instanceID lets
	// the environment choose one; the chosen id is in InitState.InstanceID.
	Create(ctx context.Context, envType, taskID, instanceID string, params map[string]any) (InitState, error)
	// Step sends the agent's action (an assistant message) to an instance.
	Step(ctx context.Context, instanceID string, action agentevolver.Message, params map[string]any) (StepResult, error)
	// Evaluate scores an instance's current state. params["sparse"] == true
	// asks for 0/1 instead of a dense score.
	Evaluate(ctx context.Context, instanceID string, params map[string]any) (float64, error)
	// Info returns environment-specific information about an instance (for
	// example a description of its tools).
	Info(ctx context.Context, instanceID string, params map[string]any) (json.RawMessage, error)
	// Release frees an instance. Releasing an unknown instance reports
	// released == false and no error.
	Release(ctx context.Context, instanceID string) (released bool, err error)
}

// InitState is what creating an instance returns: the initial messages
// (usually a system prompt and the user's task) and extra information.
type InitState struct {
	State []agentevolver.Message `json:"state"`
	Info  map[string]any         `json:"info,omitempty"`
}

// InstanceID returns info["instance_id"] when it is a string.
func (s InitState) InstanceID() string {
	id, _ := s.Info["instance_id"].(string)
	return id
}

// StepResult is the environment's answer to one action.
type StepResult struct {
	// State holds the observation messages (the reference sends exactly
	// one). A step that does not end the episode should observe
	// something: agentflow accepts an empty observation but warns once.
	State []agentevolver.Message `json:"state"`
	// Reward is the per-step reward. It is not used: agentflow scores an
	// episode once, when it ends, through Evaluate (or its
	// RewardCalculator), and warns once when a step that does not end
	// the episode returns a non-zero reward.
	Reward float64 `json:"reward"`
	// IsTerminated reports that the episode is over.
	IsTerminated bool `json:"is_terminated"`
	// Info carries environment-specific extras.
	Info map[string]any `json:"info"`
}

// Errors callers can test with errors.Is.
var (
	// ErrInstanceNotFound reports an unknown or already released instance.
	ErrInstanceNotFound = errors.New("envclient: instance not found")
	// ErrBadRequest reports a request the environment rejected as invalid.
	ErrBadRequest = errors.New("envclient: bad request")
	// ErrTooManyInstances reports that the environment is at its instance limit.
	ErrTooManyInstances = errors.New("envclient: too many instances")
	// ErrUnavailable reports a transient failure (connection refused, 5xx,
	// timeout) that persisted through all retries.
	ErrUnavailable = errors.New("envclient: environment unavailable")
	// ErrBadResponse reports a response that could not be understood.
	ErrBadResponse = errors.New("envclient: malformed response")
	// ErrNonFiniteScore reports an evaluation that returned NaN or an
	// infinity: no trainer can learn from it.
	ErrNonFiniteScore = errors.New("envclient: non-finite score")
	// ErrUnauthorized reports that the env service refused the request's
	// credentials (HTTP 401 or 403): its token is missing or wrong. It is
	// never retried and never replaced by a fallback.
	ErrUnauthorized = errors.New("envclient: env service refused the token")
)
