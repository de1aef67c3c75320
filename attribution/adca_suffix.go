package attribution

import (
	"context"
	"fmt"
	"math"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// SuffixSumBroadcast is the last stage of [ComputeADCA] on its own
// (reference §7.6, suffix_sum_on_steps + broadcast_step_adv_to_tokens):
// stepAdvantages[i][k] = Σ_{j ≥ k} stepRewards[i][j], with the rewards
// rounded to float32 first, accumulated in float64 and rounded to float32;
// advantages[i][t] = stepAdvantages[i][stepIDs[i][t]] where that id is
// ≥ 0 and 0 elsewhere (any negative id means no step). advantages[i] is as
// long as stepIDs[i]; a row with no step rewards stays all zero whatever
// its ids. It runs as one GoMLX graph on backend.
//
// Errors wrap [ErrADCABatch] (row counts differ, a non-finite reward, an id
// ≥ len(stepRewards[i]) in a row with rewards: the reference's IndexError),
// [ErrADCAConfig] (nil backend) or [ErrADCAGraph], or are ctx's error.
func SuffixSumBroadcast(ctx context.Context, backend backends.Backend, stepRewards [][]float64, stepIDs [][]int) (stepAdvantages, advantages [][]float32, err error) {
	if backend == nil {
		return nil, nil, fmt.Errorf("%w: nil backend", ErrADCAConfig)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	rows := len(stepRewards)
	if len(stepIDs) != rows {
		return nil, nil, fmt.Errorf("%w: %d step id rows for %d step reward rows", ErrADCABatch, len(stepIDs), rows)
	}
	maxK, width := 1, 1
	for i := range rows {
		maxK, width = max(maxK, len(stepRewards[i])), max(width, len(stepIDs[i]))
		for j, v := range stepRewards[i] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("%w: step reward [%d][%d] = %v is not finite", ErrADCABatch, i, j, v)
			}
		}
	}
	r := make([]float64, rows*maxK)
	ids := make([]int32, rows*width)
	for i := range rows {
		k := len(stepRewards[i])
		copy(r[i*maxK:], stepRewards[i])
		row := ids[i*width : (i+1)*width]
		for t := range row {
			row[t] = -1
			if t < len(stepIDs[i]) && stepIDs[i][t] >= 0 && k > 0 {
				if stepIDs[i][t] >= k {
					return nil, nil, fmt.Errorf("%w: step id [%d][%d] = %d but row %d has %d step rewards", ErrADCABatch, i, t, stepIDs[i][t], i, k)
				}
				row[t] = int32(stepIDs[i][t])
			}
		}
	}
	stepAdvantages, advantages = make([][]float32, rows), make([][]float32, rows)
	if rows == 0 {
		return stepAdvantages, advantages, nil
	}
	outs, err := runGraph(backend, func(in []*graph.Node) []*graph.Node {
		s, a := suffixBroadcast(in[0], in[1])
		return []*graph.Node{s, a}
	}, tensors.FromFlatDataAndDimensions(r, rows, maxK), tensors.FromFlatDataAndDimensions(ids, rows, width))
	if err != nil {
		return nil, nil, err
	}
	s, err := tensors.CopyFlatData[float32](outs[0])
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrADCAGraph, err)
	}
	a, err := tensors.CopyFlatData[float32](outs[1])
	finalize(outs)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrADCAGraph, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	for i := range rows {
		k, n := len(stepRewards[i]), len(stepIDs[i])
		stepAdvantages[i] = s[i*maxK : i*maxK+k : i*maxK+k]
		advantages[i] = a[i*width : i*width+n : i*width+n]
	}
	return stepAdvantages, advantages, nil
}
