package trainer_test

import (
	"errors"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"

	"github.com/org/agentevolver/trainer"
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
		{"agg mode", func() error { _, err := trainer.AggregateLoss(m23, m23, "token-sum"); return err }, trainer.ErrUnknownAggMode},
		{"agg shapes", func() error { _, err := trainer.AggregateLoss(m23, m24, trainer.TokenMean); return err }, trainer.ErrShape},
		{"agg rank", func() error { _, err := trainer.AggregateLoss(vec, vec, trainer.TokenMean); return err }, trainer.ErrShape},
		{"kl type", func() error { _, err := trainer.KLPenalty(m23, m23, "full"); return err }, trainer.ErrUnknownKLType},
		{"kl nil", func() error { _, err := trainer.KLPenalty(m23, nil, trainer.KLLowVar); return err }, trainer.ErrShape},
		{"policy shapes", func() error {
			_, err := trainer.PolicyLoss(trainer.PolicyLossInputs{OldLogProbs: m23, LogProbs: m23, Advantages: m24, Mask: m23}, trainer.PolicyLossConfig{})
			return err
		}, trainer.ErrShape},
		{"policy missing", func() error {
			_, err := trainer.PolicyLoss(trainer.PolicyLossInputs{OldLogProbs: m23, LogProbs: m23, Mask: m23}, trainer.PolicyLossConfig{})
			return err
		}, trainer.ErrShape},
		{"policy dual clip", func() error {
			_, err := trainer.PolicyLoss(trainer.PolicyLossInputs{OldLogProbs: m23, LogProbs: m23, Advantages: m23, Mask: m23}, trainer.PolicyLossConfig{DualClip: 1})
			return err
		}, trainer.ErrConfig},
		{"grpo groups", func() error { _, err := trainer.GRPOAdvantages(m23, m23, vec, 2, trainer.GRPOConfig{}); return err }, trainer.ErrShape},
		{"grpo count", func() error { _, err := trainer.GRPOAdvantages(m23, m23, groups, 0, trainer.GRPOConfig{}); return err }, trainer.ErrShape},
		{"grpo epsilon", func() error {
			_, err := trainer.GRPOAdvantages(m23, m23, groups, 1, trainer.GRPOConfig{Epsilon: -1})
			return err
		}, trainer.ErrConfig},
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
	if _, err := trainer.ComputeAggregateLoss(backend, ragged, ragged, trainer.TokenMean); !errors.Is(err, trainer.ErrShape) {
		t.Errorf("ragged: %v", err)
	}
	if _, err := trainer.ComputeKLPenalty(backend, ok, [][]float32{{1, 2}}, trainer.KLDiff); !errors.Is(err, trainer.ErrShape) {
		t.Errorf("rows differ: %v", err)
	}
	if _, err := trainer.ComputeGRPOAdvantages(backend, ok, ok, []int32{0, 2}, 2, trainer.GRPOConfig{}); !errors.Is(err, trainer.ErrShape) {
		t.Errorf("group out of range: %v", err)
	}
	if _, err := trainer.ComputeGRPOAdvantages(backend, ok, ok, []int32{0}, 1, trainer.GRPOConfig{}); !errors.Is(err, trainer.ErrShape) {
		t.Errorf("too few groups: %v", err)
	}
	if _, err := trainer.ComputePolicyLoss(backend, trainer.PolicyLossBatch{OldLogProbs: ok, LogProbs: ok, Advantages: ok}, trainer.PolicyLossConfig{}); !errors.Is(err, trainer.ErrShape) {
		t.Errorf("missing mask: %v", err)
	}
	if _, err := trainer.ComputeAggregateLoss(nil, ok, ok, trainer.TokenMean); !errors.Is(err, trainer.ErrConfig) {
		t.Errorf("nil backend: %v", err)
	}
	if _, err := trainer.NewReference(backend, nil, nil, trainer.ReferenceConfig{}); !errors.Is(err, trainer.ErrConfig) {
		t.Errorf("reference without policy: %v", err)
	}
}
