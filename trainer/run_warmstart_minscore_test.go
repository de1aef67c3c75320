package trainer

import (
	"context"
	"log/slog"
	"testing"

	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
)

// partialEnv is toolworld whose every score is scaled by factor, as a
// game scored by a share (Diplomacy's centres/18) scores its expert.
type partialEnv struct {
	*toolworld.Env
	factor float64
}

func (e partialEnv) New(ctx context.Context, taskID, instanceID string, params map[string]any) (envservice.Instance, error) {
	in, err := e.Env.New(ctx, taskID, instanceID, params)
	if err != nil {
		return nil, err
	}
	return partialInstance{in, e.factor}, nil
}

type partialInstance struct {
	envservice.Instance
	factor float64
}

func (in partialInstance) Evaluate(ctx context.Context, params map[string]any) (float64, error) {
	s, err := in.Instance.Evaluate(ctx, params)
	return s * in.factor, err
}

// TestWarmStartMinScore: demonstrations scoring below warm_start.min_score
// (1 by default) are not imitated; a lower bar keeps them.
func TestWarmStartMinScore(t *testing.T) {
	cfg := tinyConfig(t)
	opts := Options{Environments: map[string]builtin.Factory{
		toolworld.Name: func(ctx context.Context, c builtin.Config, _ *slog.Logger) (envservice.Environment, error) {
			tw, err := toolworld.New(cfg.Env.Toolworld)
			return partialEnv{tw, 0.6}, err
		},
	}}
	demos := func(min float64) (int, error) {
		t.Helper()
		c := cfg
		c.WarmStart.MinScore = min
		c.Trainer.OutputDir = t.TempDir()
		r, err := mustNew(t, c, opts).open(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer r.close()
		s, err := r.demonstrations(context.Background())
		return len(s), err
	}
	if n, err := demos(0); err == nil || n != 0 {
		t.Fatalf("default bar: %d samples, err %v; want none (every demonstration scores 0.6)", n, err)
	}
	if n, err := demos(0.5); err != nil || n == 0 {
		t.Fatalf("min_score 0.5: %d samples, err %v", n, err)
	}
	if n, err := demos(0.7); err == nil || n != 0 {
		t.Fatalf("min_score 0.7: %d samples, err %v; want none", n, err)
	}
}
