package grader

import (
	"context"
	"fmt"
	"sync"

	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/internal/parallel"
)

// ByEvaluator is a RewardCalculator that grades each episode with the
// grader its task names (Task.EvaluatorOrDefault, so an empty Evaluator is
// NameEnv), so that one flow can mix original tasks scored by their
// environment and synthetic tasks scored by an LLM judge.
//
// Graders are built lazily, on the first episode that names them, and then
// kept: a Config only needs the models of the graders its tasks use, and
// each grader keeps one pair of running means for the whole run. All the
// graders of one ByEvaluator share one concurrency bound
// (Config.MaxConcurrency). A name that cannot be built (unknown, or an LLM
// grader without a model) fails that episode with New's error; call
// Grader up front to check the names a task set uses. A ByEvaluator is
// safe for concurrent use.
type ByEvaluator struct {
	cfg     Config
	sem     *parallel.Limiter
	mu      sync.Mutex
	graders map[string]agentflow.RewardCalculator
}

var _ agentflow.RewardCalculator = (*ByEvaluator)(nil)

// NewByEvaluator returns a dispatching grader over cfg.
func NewByEvaluator(cfg Config) *ByEvaluator {
	return &ByEvaluator{cfg: cfg, sem: cfg.newSemaphore(), graders: map[string]agentflow.RewardCalculator{}}
}

// Grader returns the grader for name, building it on first use; it fails
// as New does.
func (b *ByEvaluator) Grader(name string) (agentflow.RewardCalculator, error) {
	key := resolve(name, b.cfg) // "synthetic" and its grader's own name share one grader
	b.mu.Lock()
	defer b.mu.Unlock()
	if g, ok := b.graders[key]; ok {
		return g, nil
	}
	g, err := build(name, b.cfg, b.sem)
	if err != nil {
		return nil, err
	}
	b.graders[key] = g
	return g, nil
}

// CalculateReward implements agentflow.RewardCalculator: it grades in with
// the grader named by in.Task.EvaluatorOrDefault().
func (b *ByEvaluator) CalculateReward(ctx context.Context, in agentflow.RewardInput) (float64, string, error) {
	g, err := b.Grader(in.Task.EvaluatorOrDefault())
	if err != nil {
		return 0, "", fmt.Errorf("grader: task %s: %w", in.Task.TaskID, err)
	}
	return g.CalculateReward(ctx, in)
}
