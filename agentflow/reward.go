package agentflow

import (
	"context"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
)

// RewardInput is what a RewardCalculator may look at: the task, the
// finished episode (its Steps end with the last observation) and the live
// environment instance.
type RewardInput struct {
	Task       agentevolver.Task
	Trajectory agentevolver.Trajectory
	Env        envclient.Env
	InstanceID string
}

// RewardCalculator scores a finished episode (reference §2.2 step 5): a
// score, usually in [0, 1], and a reason. An empty reason means
// agentevolver.DefaultRewardDescription. Implementations must be safe for
// concurrent use.
type RewardCalculator interface {
	CalculateReward(ctx context.Context, in RewardInput) (score float64, reason string, err error)
}

// RewardFunc adapts a function to RewardCalculator.
type RewardFunc func(ctx context.Context, in RewardInput) (float64, string, error)

// CalculateReward implements RewardCalculator.
func (f RewardFunc) CalculateReward(ctx context.Context, in RewardInput) (float64, string, error) {
	return f(ctx, in)
}

// EnvEvaluator scores an episode with the environment's own evaluation,
// the default when a Flow has no RewardCalculator.
type EnvEvaluator struct {
	// Sparse asks for a 0/1 score instead of a dense one.
	Sparse bool
}

// CalculateReward implements RewardCalculator.
func (e EnvEvaluator) CalculateReward(ctx context.Context, in RewardInput) (float64, string, error) {
	score, err := in.Env.Evaluate(ctx, in.InstanceID, map[string]any{"sparse": e.Sparse})
	return score, "", err
}
