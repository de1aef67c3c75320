package attribution

import (
	"context"
	"fmt"
	"math"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// ADCABatch is the host input of [ComputeADCA]: B trajectories (samples)
// whose responses are L tokens wide. ComputeADCA only reads it.
type ADCABatch struct {
	// StepIDs holds, per trajectory, the step of each response token
	// (contextmgr's step ids): k ≥ 0 for a token of step k, any negative
	// value for a token of no step (headers, observations, padding). A
	// row may have any length; it is cut or padded with −1 to L. The
	// trajectory has K_i = max(StepIDs[i]) + 1 steps, 0 when no id is
	// ≥ 0 (such a trajectory gets no step rewards and all-zero
	// advantages). K_i may not exceed L: every step has a token.
	StepIDs [][]int
	// Groups holds each trajectory's group (the task index in the batch);
	// z-scores and outcome standardisation are per group. Any int values;
	// only equality matters.
	Groups []int
	// TokenLevelRewards is B x L (every row L long); a trajectory's
	// outcome is the sum of its row. Values must be finite.
	TokenLevelRewards [][]float32
	// Flags holds the judge's labels, true for GOOD. It may have fewer
	// rows than B (missing rows count as no labels) and each row any
	// length: labels are cut to K_i, and missing ones count as GOOD in the
	// decouple scheme and as the outcome's success (outcome > 0.5) in the
	// allocation scheme, as in the reference.
	Flags [][]bool
}

// ADCAResult is the output of [ComputeADCA]. Its slices are new and owned
// by the caller.
type ADCAResult struct {
	// Advantages is B x L: token t of trajectory i gets the suffix sum of
	// its step, Σ_{j ≥ step} StepRewards[i][j] rounded to float32, and 0
	// where its step id is negative. It replaces the GRPO advantages; the
	// policy loss masks it with the loss mask.
	Advantages [][]float32
	// ORMScores holds the outcome of each trajectory: the float32 sum of
	// its token-level rewards.
	ORMScores []float64
	// StepRewards holds the fused per-step rewards, K_i per trajectory
	// (empty for K_i = 0).
	StepRewards [][]float64
	// StepAdvantages holds the suffix sums of StepRewards (float32), K_i
	// per trajectory.
	StepAdvantages [][]float32
	// Alpha is the alpha used, after the cosine decay when that is on.
	Alpha float64
	// Metrics are the reference's metrics: prm/decouple/* or
	// prm_allocation/* (see [ADCAMetricKeys] for what each means),
	// plus prm/alpha_base, prm/alpha_t and prm/alpha_progress when the
	// cosine decay is on.
	Metrics map[string]float64
}

// ComputeADCA computes the ADCA-GRPO advantages of a batch (reference §7.4
// to §7.8) at globalStep, counted from 1 as the reference's global_steps
// (it only drives the alpha decay; see [ADCAConfig.Active] for when the
// reference applies them). The per-batch
// maths runs as one GoMLX graph on backend, compiled and run once per call;
// ctx is checked before and after it runs. Any error wraps
// [ErrADCAConfig], [ErrADCABatch] or [ErrADCAGraph] (GoMLX panics are
// recovered) or is ctx's error.
//
// Against the reference, three inputs are errors here: more flag rows
// than trajectories (the reference ignores the extra rows), non-finite
// rewards (the reference spreads NaN through the batch) and a step id
// ≥ L (it would make steps without tokens). ComputeADCA is safe for
// concurrent use when backend is.
func ComputeADCA(ctx context.Context, backend backends.Backend, cfg ADCAConfig, globalStep int, b ADCABatch) (ADCAResult, error) {
	rc, err := cfg.resolve()
	if err != nil {
		return ADCAResult{}, err
	}
	if backend == nil {
		return ADCAResult{}, fmt.Errorf("%w: nil backend", ErrADCAConfig)
	}
	if err := ctx.Err(); err != nil {
		return ADCAResult{}, err
	}
	p, err := prepareADCA(b, rc.scheme)
	if err != nil {
		return ADCAResult{}, err
	}
	alpha, progress := rc.alphaAt(globalStep)
	res := ADCAResult{
		Advantages:     make([][]float32, p.rows),
		ORMScores:      make([]float64, p.rows),
		StepRewards:    make([][]float64, p.rows),
		StepAdvantages: make([][]float32, p.rows),
		Alpha:          alpha,
	}
	var o adcaOutputs
	if p.rows > 0 {
		outs, err := runGraph(backend, func(in []*graph.Node) []*graph.Node {
			return adcaGraph(in, rc, p.numGroups)
		}, p.tensors(alpha)...)
		if err != nil {
			return ADCAResult{}, err
		}
		if o, err = readADCAOutputs(outs); err != nil {
			return ADCAResult{}, err
		}
	}
	if err := ctx.Err(); err != nil {
		return ADCAResult{}, err
	}
	for i := range p.rows {
		k := p.numSteps[i]
		res.Advantages[i] = o.adv[i*p.width : i*p.width+p.width0 : i*p.width+p.width0]
		res.ORMScores[i] = float64(o.orm[i])
		res.StepRewards[i] = o.fused[i*p.maxK : i*p.maxK+k : i*p.maxK+k]
		res.StepAdvantages[i] = o.stepAdv[i*p.maxK : i*p.maxK+k : i*p.maxK+k]
	}
	m := newADCAMetricInput(p, o, rc, alpha)
	if rc.scheme == ADCAAllocation {
		res.Metrics = allocationMetrics(m)
	} else {
		res.Metrics = decoupleMetrics(m)
	}
	if rc.decay {
		res.Metrics["prm/alpha_base"] = rc.alpha
		res.Metrics["prm/alpha_t"] = alpha
		res.Metrics["prm/alpha_progress"] = progress
	}
	return res, nil
}

// adcaPrepared is an ADCABatch laid out for the graph.
type adcaPrepared struct {
	rows      int
	width0    int // L as given
	width     int // max(L, 1)
	maxK      int // max(max K_i, 1)
	numGroups int
	numSteps  []int
	groups    []int32 // dense group index of each row
	flags     [][]bool
	rewards   []float32 // rows x width
	stepIDs   []int32   // rows x width
	given     []float64 // rows x maxK
	good      []float64 // rows x maxK
}

func prepareADCA(b ADCABatch, scheme ADCAScheme) (*adcaPrepared, error) {
	rows := len(b.TokenLevelRewards)
	bad := func(format string, args ...any) (*adcaPrepared, error) {
		return nil, fmt.Errorf("%w: "+format, append([]any{ErrADCABatch}, args...)...)
	}
	if len(b.StepIDs) != rows {
		return bad("%d step id rows for %d reward rows", len(b.StepIDs), rows)
	}
	if len(b.Groups) != rows {
		return bad("%d groups for %d reward rows", len(b.Groups), rows)
	}
	if len(b.Flags) > rows {
		return bad("%d flag rows for %d trajectories", len(b.Flags), rows)
	}
	p := &adcaPrepared{rows: rows, numSteps: make([]int, rows), groups: make([]int32, rows), flags: make([][]bool, rows)}
	if rows > 0 {
		p.width0 = len(b.TokenLevelRewards[0])
	}
	p.width = max(p.width0, 1)
	p.rewards = make([]float32, rows*p.width)
	p.stepIDs = make([]int32, rows*p.width)
	dense := make(map[int]int32)
	for i := range rows {
		row := b.TokenLevelRewards[i]
		if len(row) != p.width0 {
			return bad("reward row %d has %d tokens, row 0 has %d", i, len(row), p.width0)
		}
		for t, v := range row {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return bad("reward [%d][%d] = %v is not finite", i, t, v)
			}
		}
		copy(p.rewards[i*p.width:], row)
		ids := p.stepIDs[i*p.width : (i+1)*p.width]
		k := 0
		for t := range ids {
			ids[t] = -1
			if t < p.width0 && t < len(b.StepIDs[i]) && b.StepIDs[i][t] >= 0 {
				id := b.StepIDs[i][t]
				ids[t] = int32(id)
				k = max(k, id+1)
			}
		}
		// A step has at least one token; the cap keeps a stray id from
		// sizing the K x K suffix-sum matrix.
		if k > max(p.width0, 1) {
			return bad("row %d has step id %d but only %d tokens", i, k-1, p.width0)
		}
		p.numSteps[i] = k
		p.maxK = max(p.maxK, k)
		d, ok := dense[b.Groups[i]]
		if !ok {
			d = int32(len(dense))
			dense[b.Groups[i]] = d
		}
		p.groups[i] = d
		if i < len(b.Flags) {
			p.flags[i] = b.Flags[i]
		}
	}
	p.numGroups = max(len(dense), 1)
	p.maxK = max(p.maxK, 1)
	p.given = make([]float64, rows*p.maxK)
	p.good = make([]float64, rows*p.maxK)
	for i, f := range p.flags {
		for j := range min(len(f), p.numSteps[i]) {
			p.given[i*p.maxK+j] = 1
			if f[j] {
				p.good[i*p.maxK+j] = 1
			}
		}
	}
	return p, nil
}

func (p *adcaPrepared) tensors(alpha float64) []*tensors.Tensor {
	in := make([]*tensors.Tensor, numADCAInputs)
	in[inRewards] = tensors.FromFlatDataAndDimensions(p.rewards, p.rows, p.width)
	in[inStepIDs] = tensors.FromFlatDataAndDimensions(p.stepIDs, p.rows, p.width)
	k := make([]int32, p.rows)
	for i, v := range p.numSteps {
		k[i] = int32(v)
	}
	in[inNumSteps] = tensors.FromFlatDataAndDimensions(k, p.rows)
	in[inGiven] = tensors.FromFlatDataAndDimensions(p.given, p.rows, p.maxK)
	in[inGood] = tensors.FromFlatDataAndDimensions(p.good, p.rows, p.maxK)
	in[inGroups] = tensors.FromFlatDataAndDimensions(p.groups, p.rows)
	in[inAlpha] = tensors.FromScalar(alpha)
	return in
}

// adcaOutputs holds the graph's outputs as flat host slices.
type adcaOutputs struct {
	adv, orm, stepAdv        []float32
	raw, norm, ormStd, fused []float64
}

// finalize frees the outputs' (possibly device) memory now rather than at
// garbage collection.
func finalize(outs []*tensors.Tensor) {
	for _, t := range outs {
		_ = t.FinalizeAll()
	}
}

func readADCAOutputs(outs []*tensors.Tensor) (o adcaOutputs, err error) {
	if len(outs) != numADCAOutputs {
		return o, fmt.Errorf("%w: %d outputs, want %d", ErrADCAGraph, len(outs), numADCAOutputs)
	}
	f32 := func(i int) []float32 {
		if err != nil {
			return nil
		}
		var v []float32
		v, err = tensors.CopyFlatData[float32](outs[i])
		return v
	}
	f64 := func(i int) []float64 {
		if err != nil {
			return nil
		}
		var v []float64
		v, err = tensors.CopyFlatData[float64](outs[i])
		return v
	}
	o.adv, o.orm, o.stepAdv = f32(outAdvantages), f32(outORM), f32(outStepAdv)
	o.raw, o.norm, o.ormStd, o.fused = f64(outRaw), f64(outNorm), f64(outORMStd), f64(outStepRewards)
	finalize(outs)
	if err != nil {
		return o, fmt.Errorf("%w: %w", ErrADCAGraph, err)
	}
	return o, nil
}
