package objective_test

import (
	"errors"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"

	"github.com/org/agentevolver/trainer/objective"
)

// TestGraphFunctionErrors checks that the graph functions report bad
// configurations and misshaped nodes as errors instead of panicking.
func TestGraphFunctionErrors(t *testing.T) {
	backend := newBackend(t)
	g := graph.NewGraph(backend, "errors")
	m23 := graph.Zeros(g, shapes.Make(dtypes.Float32, 2, 3))
	m24 := graph.Zeros(g, shapes.Make(dtypes.Float32, 2, 4))
	vec := graph.Zeros(g, shapes.Make(dtypes.Float32, 2))
	groups := graph.Zeros(g, shapes.Make(dtypes.Int32, 2))
	for _, tc := range []struct {
		name string
		call func() error
		want error
	}{
		{"agg mode", func() error { _, err := objective.AggregateLoss(m23, m23, "token-sum"); return err }, objective.ErrUnknownAggMode},
		{"agg shapes", func() error { _, err := objective.AggregateLoss(m23, m24, objective.TokenMean); return err }, objective.ErrShape},
		{"agg rank", func() error { _, err := objective.AggregateLoss(vec, vec, objective.TokenMean); return err }, objective.ErrShape},
		{"kl type", func() error { _, err := objective.KLPenalty(m23, m23, "full"); return err }, objective.ErrUnknownKLType},
		{"kl nil", func() error { _, err := objective.KLPenalty(m23, nil, objective.KLLowVar); return err }, objective.ErrShape},
		{"policy shapes", func() error {
			_, err := objective.PolicyLoss(objective.PolicyLossInputs{OldLogProbs: m23, LogProbs: m23, Advantages: m24, Mask: m23}, objective.PolicyLossConfig{})
			return err
		}, objective.ErrShape},
		{"policy missing", func() error {
			_, err := objective.PolicyLoss(objective.PolicyLossInputs{OldLogProbs: m23, LogProbs: m23, Mask: m23}, objective.PolicyLossConfig{})
			return err
		}, objective.ErrShape},
		{"policy dual clip", func() error {
			_, err := objective.PolicyLoss(objective.PolicyLossInputs{OldLogProbs: m23, LogProbs: m23, Advantages: m23, Mask: m23}, objective.PolicyLossConfig{DualClip: 1})
			return err
		}, objective.ErrConfig},
		{"grpo groups", func() error { _, err := objective.GRPOAdvantages(m23, m23, vec, 2, objective.GRPOConfig{}); return err }, objective.ErrShape},
		{"grpo count", func() error {
			_, err := objective.GRPOAdvantages(m23, m23, groups, 0, objective.GRPOConfig{})
			return err
		}, objective.ErrShape},
		{"grpo epsilon", func() error {
			_, err := objective.GRPOAdvantages(m23, m23, groups, 1, objective.GRPOConfig{Epsilon: -1})
			return err
		}, objective.ErrConfig},
	} {
		if err := tc.call(); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestHostFunctionErrors(t *testing.T) {
	backend := newBackend(t)
	ok := [][]float32{{1, 2}, {3, 4}}
	ragged := [][]float32{{1, 2}, {3}}
	if _, err := objective.ComputeAggregateLoss(backend, ragged, ragged, objective.TokenMean); !errors.Is(err, objective.ErrShape) {
		t.Errorf("ragged: %v", err)
	}
	if _, err := objective.ComputeKLPenalty(backend, ok, [][]float32{{1, 2}}, objective.KLDiff); !errors.Is(err, objective.ErrShape) {
		t.Errorf("rows differ: %v", err)
	}
	if _, err := objective.ComputeGRPOAdvantages(backend, ok, ok, []int32{0, 2}, 2, objective.GRPOConfig{}); !errors.Is(err, objective.ErrShape) {
		t.Errorf("group out of range: %v", err)
	}
	if _, err := objective.ComputeGRPOAdvantages(backend, ok, ok, []int32{0}, 1, objective.GRPOConfig{}); !errors.Is(err, objective.ErrShape) {
		t.Errorf("too few groups: %v", err)
	}
	if _, err := objective.ComputePolicyLoss(backend, objective.PolicyLossBatch{OldLogProbs: ok, LogProbs: ok, Advantages: ok}, objective.PolicyLossConfig{}); !errors.Is(err, objective.ErrShape) {
		t.Errorf("missing mask: %v", err)
	}
	if _, err := objective.ComputeAggregateLoss(nil, ok, ok, objective.TokenMean); !errors.Is(err, objective.ErrConfig) {
		t.Errorf("nil backend: %v", err)
	}
}
