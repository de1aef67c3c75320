package objective

import (
	"errors"
	"fmt"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/org/agentevolver/internal/graphrun"
)

// runGraph compiles build on backend, runs it on inputs once and returns
// its outputs. GoMLX panics while building or running come back as errors
// wrapping ErrGraph.
func runGraph(backend backends.Backend, build func(in []*graph.Node) []*graph.Node, inputs ...*tensors.Tensor) ([]*tensors.Tensor, error) {
	if backend == nil {
		return nil, fmt.Errorf("%w: nil backend", ErrConfig)
	}
	return graphrun.Once(backend, ErrGraph, build, inputs...)
}

// ComputeAggregateLoss runs [AggregateLoss] on host matrices of one shape.
// Errors wrap [ErrUnknownAggMode], [ErrShape] or [ErrGraph].
func ComputeAggregateLoss(backend backends.Backend, loss, mask [][]float32, mode AggMode) (float32, error) {
	mode, err := mode.Resolve()
	if err != nil {
		return 0, err
	}
	ins, err := sameShapeTensors([]string{"loss", "mask"}, loss, mask)
	if err != nil {
		return 0, err
	}
	outs, err := runGraph(backend, func(in []*graph.Node) []*graph.Node {
		return []*graph.Node{AggregateOver(in[0], in[1], mode, LocalTotals(in[1]))}
	}, ins...)
	if err != nil {
		return 0, err
	}
	v, err := graphrun.TensorScalar(outs[0])
	return float32(v), err
}

// ComputeKLPenalty runs [KLPenalty] on host matrices of one shape.
// Errors wrap [ErrUnknownKLType], [ErrShape] or [ErrGraph].
func ComputeKLPenalty(backend backends.Backend, logProb, refLogProb [][]float32, kind KLType) ([][]float32, error) {
	kind, err := kind.Resolve()
	if err != nil {
		return nil, err
	}
	ins, err := sameShapeTensors([]string{"logProb", "refLogProb"}, logProb, refLogProb)
	if err != nil {
		return nil, err
	}
	outs, err := runGraph(backend, func(in []*graph.Node) []*graph.Node {
		return []*graph.Node{klPenalty(in[0], in[1], kind)}
	}, ins...)
	if err != nil {
		return nil, err
	}
	return graphrun.TensorMatrix[float32](outs[0])
}

// ComputeGRPOAdvantages runs [GRPOAdvantages] on host data: rewards and
// mask are B x L, groups holds each row's group index in [0, numGroups)
// (see [GroupIndex]). Errors wrap [ErrConfig], [ErrShape] or [ErrGraph].
func ComputeGRPOAdvantages(backend backends.Backend, rewards, mask [][]float32, groups []int32, numGroups int, cfg GRPOConfig) ([][]float32, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return nil, err
	}
	ins, err := sameShapeTensors([]string{"rewards", "mask"}, rewards, mask)
	if err != nil {
		return nil, err
	}
	if len(groups) != len(rewards) {
		return nil, fmt.Errorf("%w: %d group indices for %d rows", ErrShape, len(groups), len(rewards))
	}
	for i, g := range groups {
		if g < 0 || int(g) >= numGroups {
			return nil, fmt.Errorf("%w: group index %d of row %d not in [0, %d)", ErrShape, g, i, numGroups)
		}
	}
	ins = append(ins, tensors.FromFlatDataAndDimensions(groups, len(groups)))
	outs, err := runGraph(backend, func(in []*graph.Node) []*graph.Node {
		return []*graph.Node{grpoAdvantages(in[0], in[1], in[2], numGroups, cfg)}
	}, ins...)
	if err != nil {
		return nil, err
	}
	return graphrun.TensorMatrix[float32](outs[0])
}

// PolicyLossBatch holds the host inputs of [ComputePolicyLoss], all B x L.
type PolicyLossBatch struct {
	OldLogProbs, LogProbs, Advantages, Mask [][]float32
	// ExpMask marks tokens rolled out with stripped experience; nil means
	// all on-policy.
	ExpMask [][]float32
}

// PolicyLossResult holds the host outputs of [ComputePolicyLoss]; see
// [PolicyLossOutputs] for their meaning. OffTokenLosses is nil when the
// batch has no ExpMask (OffLoss is then 0).
type PolicyLossResult struct {
	Loss                                       float32
	TokenLosses, OnTokenLosses, OffTokenLosses [][]float32
	OnLoss, OffLoss                            float32
	ClipFrac, ClipFracLower, PPOKL             float32
}

// ComputePolicyLoss runs [PolicyLoss] on host data. Errors wrap
// [ErrConfig], [ErrUnknownAggMode], [ErrShape] or [ErrGraph].
func ComputePolicyLoss(backend backends.Backend, b PolicyLossBatch, cfg PolicyLossConfig) (PolicyLossResult, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return PolicyLossResult{}, err
	}
	names := []string{"OldLogProbs", "LogProbs", "Advantages", "Mask"}
	mats := [][][]float32{b.OldLogProbs, b.LogProbs, b.Advantages, b.Mask}
	withExp := b.ExpMask != nil
	if withExp {
		names, mats = append(names, "ExpMask"), append(mats, b.ExpMask)
	}
	ins, err := sameShapeTensors(names, mats...)
	if err != nil {
		return PolicyLossResult{}, err
	}
	outs, err := runGraph(backend, func(in []*graph.Node) []*graph.Node {
		pin := PolicyLossInputs{OldLogProbs: in[0], LogProbs: in[1], Advantages: in[2], Mask: in[3]}
		if withExp {
			pin.ExpMask = in[4]
		}
		o := policyLoss(pin, cfg, LocalTotals(pin.Mask), true)
		nodes := []*graph.Node{o.Loss, o.TokenLosses, o.OnTokenLosses, o.OnLoss, o.ClipFrac, o.ClipFracLower, o.PPOKL}
		if withExp {
			nodes = append(nodes, o.OffTokenLosses, o.OffLoss)
		}
		return nodes
	}, ins...)
	if err != nil {
		return PolicyLossResult{}, err
	}
	var r PolicyLossResult
	var errs []error
	scalar := func(t *tensors.Tensor) float32 {
		v, err := graphrun.TensorScalar(t)
		errs = append(errs, err)
		return float32(v)
	}
	matrix := func(t *tensors.Tensor) [][]float32 {
		m, err := graphrun.TensorMatrix[float32](t)
		errs = append(errs, err)
		return m
	}
	r.Loss = scalar(outs[0])
	r.TokenLosses = matrix(outs[1])
	r.OnTokenLosses = matrix(outs[2])
	r.OnLoss = scalar(outs[3])
	r.ClipFrac = scalar(outs[4])
	r.ClipFracLower = scalar(outs[5])
	r.PPOKL = scalar(outs[6])
	if withExp {
		r.OffTokenLosses = matrix(outs[7])
		r.OffLoss = scalar(outs[8])
	}
	return r, errors.Join(errs...)
}

// sameShapeTensors converts host matrices that must share one shape.
func sameShapeTensors(names []string, mats ...[][]float32) ([]*tensors.Tensor, error) {
	rows, cols, err := graphrun.MatrixDims(names[0], mats[0])
	if err != nil {
		return nil, err
	}
	out := make([]*tensors.Tensor, len(mats))
	for i, m := range mats {
		if out[i], err = graphrun.MatrixTensor(names[i], m, rows, cols); err != nil {
			return nil, err
		}
	}
	return out, nil
}
