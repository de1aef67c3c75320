package envservice

import (
	"context"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
)

// Environment is a Go environment type that a Manager can serve: it lists its
// tasks and creates instances. It is the Go counterpart of the reference's
// BaseEnv class (its static get_query_list and its constructor).
// Implementations must be safe for concurrent use.
type Environment interface {
	// TaskIDs lists the task ids of a split.
	TaskIDs(ctx context.Context, split string, params map[string]any) ([]string, error)
	// New creates an instance running taskID. params are the create params.
	New(ctx context.Context, taskID, instanceID string, params map[string]any) (Instance, error)
}

// Instance is one running episode of an Environment. The Manager serialises
// calls on one instance, so implementations need no locking of their own.
type Instance interface {
	// InitState returns the initial messages.
	InitState(ctx context.Context, params map[string]any) (envclient.InitState, error)
	// Step applies the agent's action.
	Step(ctx context.Context, action agentevolver.Message, params map[string]any) (envclient.StepResult, error)
	// Evaluate scores the current state; params["sparse"] == true asks for 0/1.
	Evaluate(ctx context.Context, params map[string]any) (float64, error)
	// Info returns JSON-serialisable information (for example tool docs).
	Info(ctx context.Context, params map[string]any) (any, error)
	// Close releases the instance's resources.
	Close() error
}
