package attribution

import (
	"fmt"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/org/agentevolver/internal/graphrun"
)

// The ADCA graph. It uses only ops that the pure-Go backend and XLA share
// (element-wise maths, Where, ReduceSum, Iota, OneHot, Gather, MatMul,
// ConvertDType): no Pad, Reverse, DynamicSlice or windowed reductions.
//
// Precision follows the reference (and its golden fixtures): outcome scores
// are float32 sums of the token rewards; the outcome group mean and
// population standard deviation are rounded to float32 as torch returns
// them; process rewards, their group z-scores and the fusion are float64
// (the reference does them in Python floats); the step rewards are rounded
// to float32 before the suffix sum, which accumulates in float64 (as
// torch's CPU cumsum does) and rounds to float32; advantages are float32.

// adcaInputs indexes the graph's inputs.
const (
	inRewards  = iota // [B, L] float32 token-level rewards
	inStepIDs         // [B, L] int32 step id of each token, −1 for none
	inNumSteps        // [B] int32 K_i
	inGiven           // [B, K] float64: 1 where the judge labelled step j
	inGood            // [B, K] float64: 1 where that label is GOOD
	inGroups          // [B] int32 dense group index
	inAlpha           // scalar float64 effective alpha
	numADCAInputs
)

// adcaOutputs indexes the graph's outputs.
const (
	outAdvantages  = iota // [B, L] float32
	outORM                // [B] float32 outcome scores
	outRaw                // [B, K] float64 raw process rewards
	outNorm               // [B, K] float64 z-scored (or raw) process rewards
	outORMStd             // [B] float64 group-standardised outcomes
	outStepRewards        // [B, K] float64 fused step rewards
	outStepAdv            // [B, K] float32 suffix sums
	numADCAOutputs
)

// adcaGraph builds the whole per-batch computation of [ComputeADCA].
func adcaGraph(in []*graph.Node, cfg resolvedADCA, numGroups int) []*graph.Node {
	rewards, stepIDs, numSteps := in[inRewards], in[inStepIDs], in[inNumSteps]
	given, good, groups, alpha := in[inGiven], in[inGood], in[inGroups], in[inAlpha]
	g := rewards.Graph()
	rows, maxK := given.Shape().Dimensions[0], given.Shape().Dimensions[1]
	f64 := dtypes.Float64
	zero, one := graph.ScalarZero(g, f64), graph.ScalarOne(g, f64)
	c := func(v float64) *graph.Node { return graph.Scalar(g, f64, v) }
	col := func(x *graph.Node) *graph.Node { // [B] -> [B, K]
		return graph.BroadcastToDims(graph.InsertAxes(x, -1), rows, maxK)
	}

	// Outcome scores: float32 row sums (accumulated in float64).
	orm32 := graph.ConvertDType(graph.ReduceSum(graph.ConvertDType(rewards, f64), 1), dtypes.Float32)
	orm := graph.ConvertDType(orm32, f64)
	success := graph.GreaterThan(orm, c(0.5))

	// Steps: j < K_i.
	k := graph.ConvertDType(numSteps, f64)
	safeK := graph.Max(k, one)
	hasSteps := graph.GreaterThan(k, zero)
	stepIdx := graph.Iota(g, shapes.Make(dtypes.Int32, rows, maxK), 1)
	inStep := graph.LessThan(stepIdx, graph.BroadcastToDims(graph.InsertAxes(numSteps, -1), rows, maxK))
	lastStep := graph.Equal(stepIdx, graph.BroadcastToDims(graph.InsertAxes(graph.SubScalar(numSteps, 1), -1), rows, maxK))
	masked := func(x *graph.Node) *graph.Node { return graph.Where(inStep, x, zero) } // float64 only

	// Labels aligned to K_i: missing ones are GOOD in the decouple scheme
	// and the outcome's success in the allocation scheme.
	pad := graph.OnesLike(good)
	if cfg.scheme == ADCAAllocation {
		pad = col(graph.ConvertDType(success, f64))
	}
	isGood := graph.GreaterThan(graph.Where(graph.GreaterThan(given, c(0.5)), good, pad), c(0.5))

	// Raw process rewards.
	var raw *graph.Node
	switch cfg.scheme {
	case ADCAAllocation:
		nGood := graph.ReduceSum(masked(graph.ConvertDType(isGood, f64)), 1)
		nBad := graph.Sub(k, nGood)
		wGood := graph.Where(success, c(cfg.consistent), c(cfg.negUnconsist))
		wBad := graph.Where(success, c(cfg.posUnconsistent), c(cfg.consistent))
		sign := graph.Where(success, one, c(-1))
		total := graph.Add(graph.Mul(nGood, wGood), graph.Mul(nBad, wBad))
		degenerate := graph.LessOrEqual(total, c(ADCAEpsilon))
		unit := graph.Where(degenerate, graph.ZerosLike(total), graph.Div(one, graph.Where(degenerate, graph.OnesLike(total), total)))
		w := graph.Where(isGood, col(wGood), col(wBad))
		raw = masked(graph.Mul(col(sign), graph.Mul(w, col(unit))))
	default:
		raw = masked(graph.Where(isGood, c(cfg.fixBase), c(-cfg.fixBase)))
	}

	// Group statistics select members with Where and look rows up with
	// Gather, as trainer's GRPO does.
	member := graph.GreaterThan(graph.OneHot(groups, numGroups, f64), c(0.5)) // [B, G]
	groupSum := func(x *graph.Node) *graph.Node {                             // [B] -> [G]
		return graph.ReduceSum(graph.Where(member, graph.BroadcastToDims(graph.InsertAxes(x, -1), rows, numGroups), zero), 0)
	}
	groupIdx := graph.InsertAxes(groups, -1)
	perRow := func(stat *graph.Node) *graph.Node { return graph.Gather(stat, groupIdx) } // [G] -> [B]

	// Group z-score of the process rewards.
	norm := raw
	if cfg.batchNorm {
		rowSum := graph.ReduceSum(raw, 1)
		var mu, sd *graph.Node
		if cfg.equalWeight {
			nTraj := groupSum(graph.ConvertDType(hasSteps, f64))
			hasTraj := graph.GreaterThan(nTraj, zero)
			safeN := graph.Max(nTraj, one)
			trajMean := graph.Where(hasSteps, graph.Div(rowSum, safeK), graph.ZerosLike(k))
			mu = graph.Where(hasTraj, graph.Div(groupSum(trajMean), safeN), graph.ZerosLike(nTraj))
			dev := masked(graph.Sub(raw, col(perRow(mu))))
			second := graph.Where(hasSteps, graph.Div(graph.ReduceSum(graph.Square(dev), 1), safeK), graph.ZerosLike(k))
			variance := graph.Div(groupSum(second), safeN)
			sd = graph.Where(hasTraj, graph.Sqrt(graph.AddScalar(variance, ADCAEpsilon)), graph.OnesLike(variance))
		} else {
			count := groupSum(k)
			hasTraj := graph.GreaterThan(count, zero)
			safeN := graph.Max(count, one)
			mu = graph.Where(hasTraj, graph.Div(groupSum(rowSum), safeN), graph.ZerosLike(count))
			dev := masked(graph.Sub(raw, col(perRow(mu))))
			m2 := groupSum(graph.ReduceSum(graph.Square(dev), 1))
			sd = graph.Where(hasTraj, graph.Max(graph.Sqrt(graph.Div(m2, safeN)), c(ADCAEpsilon)), graph.OnesLike(count))
		}
		inv := graph.Div(one, graph.AddScalar(sd, 1e-12))
		norm = masked(graph.Mul(graph.Sub(raw, col(perRow(mu))), col(perRow(inv))))
	}

	// Group-standardised outcome over all members (K = 0 rows included);
	// mean and population std are float32, as torch returns them.
	count := groupSum(graph.OnesLike(orm))
	safeCount := graph.Max(count, one)
	mean := graph.Div(groupSum(orm), safeCount)
	variance := graph.Div(groupSum(graph.Square(graph.Sub(orm, perRow(mean)))), safeCount)
	round32 := func(x *graph.Node) *graph.Node {
		return graph.ConvertDType(graph.ConvertDType(x, dtypes.Float32), f64)
	}
	mRow, sRow := perRow(round32(mean)), perRow(round32(graph.Sqrt(variance)))
	centred := graph.Sub(orm, mRow)
	// torch compares the float32 std with eps in float32.
	constant := graph.LessOrEqual(sRow, c(float64(float32(ADCAEpsilon))))
	ormStd := graph.Where(constant, centred, graph.Div(centred, graph.AddScalar(sRow, 1e-12)))

	// Fusion.
	alphaNorm := graph.Mul(alpha, norm)
	var fused *graph.Node
	switch cfg.orm {
	case ORMAllSteps:
		fused = graph.Add(alphaNorm, col(ormStd))
	case ORMOnlyPRM:
		fused = norm
	default:
		fused = graph.Add(alphaNorm, graph.Where(lastStep, col(ormStd), graph.ZerosLike(alphaNorm)))
	}
	if cfg.scheme == ADCADecouple && cfg.lengthNorm {
		fused = graph.Mul(fused, col(graph.Div(one, graph.Sqrt(safeK))))
	}
	fused = masked(fused)

	stepAdv, adv := suffixBroadcast(fused, stepIDs)
	return []*graph.Node{adv, orm32, raw, norm, ormStd, fused, stepAdv}
}

// suffixBroadcast rounds the step rewards r [B, K] (float64) to float32,
// sums each step to the end of its row (float64 accumulation, float32
// result) and gives token t of row i the sum of step stepIDs[i, t]
// (0 where the id is negative). Ids must be < K. It returns the step
// advantages [B, K] and the token advantages [B, L], both float32.
func suffixBroadcast(r, stepIDs *graph.Node) (stepAdv, adv *graph.Node) {
	g := r.Graph()
	f64 := dtypes.Float64
	maxK := r.Shape().Dimensions[1]
	r = graph.ConvertDType(graph.ConvertDType(r, dtypes.Float32), f64)
	// upper[j, k] = 1 where j >= k, so (r · upper)[k] = Σ_{j ≥ k} r_j.
	triShape := shapes.Make(dtypes.Int32, maxK, maxK)
	upper := graph.ConvertDType(graph.GreaterOrEqual(graph.Iota(g, triShape, 0), graph.Iota(g, triShape, 1)), f64)
	stepAdv = graph.ConvertDType(graph.MatMul(r, upper), dtypes.Float32)

	rows, width := stepIDs.Shape().Dimensions[0], stepIDs.Shape().Dimensions[1]
	valid := graph.GreaterOrEqual(stepIDs, graph.ScalarZero(g, stepIDs.DType()))
	ids := graph.Max(stepIDs, graph.ScalarZero(g, stepIDs.DType()))
	rowIdx := graph.Iota(g, shapes.Make(stepIDs.DType(), rows, width), 0)
	tok := graph.Gather(stepAdv, graph.Stack([]*graph.Node{rowIdx, ids}, -1)) // [B, L]
	adv = graph.Where(valid, tok, graph.ZerosLike(tok))
	return stepAdv, adv
}

// runGraph compiles build on backend, runs it once on inputs and returns
// its outputs. GoMLX panics while building or running come back as errors
// wrapping ErrADCAGraph.
func runGraph(backend backends.Backend, build func(in []*graph.Node) []*graph.Node, inputs ...*tensors.Tensor) ([]*tensors.Tensor, error) {
	if backend == nil {
		return nil, fmt.Errorf("%w: nil backend", ErrADCAConfig)
	}
	return graphrun.Once(backend, ErrADCAGraph, build, inputs...)
}
