package optim

import (
	"context"
	"fmt"
	"math"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/org/agentevolver/internal/graphrun"
)

// ClipConfig configures gradient-norm clipping. The zero value clips the
// global norm to 1.0, the reference default.
type ClipConfig struct {
	// MaxGradNorm is the largest global L2 norm of the gradients; larger
	// gradients are scaled down to it (torch clip_grad_norm_). Default 1.0.
	MaxGradNorm float64
	// NoClip turns clipping off (the norm is still reported).
	NoClip bool
}

// DefaultMaxGradNorm is the default of ClipConfig.MaxGradNorm.
const DefaultMaxGradNorm = 1.0

func (c ClipConfig) withDefaults() (ClipConfig, error) {
	if c.MaxGradNorm == 0 {
		c.MaxGradNorm = DefaultMaxGradNorm
	}
	if !(c.MaxGradNorm > 0) {
		return c, fmt.Errorf("%w: MaxGradNorm %v must be > 0", ErrConfig, c.MaxGradNorm)
	}
	return c, nil
}

// lossFunc builds, inside a graph, one micro-batch's contribution to the
// loss of its mini-batch and to each metric, from the micro-batch's graph
// inputs. Contributions add up over the micro-batches of a mini-batch.
// perRow, when not nil, is a float32 [rows, width] value computed on the
// way (the RL loss's log-probs) that the step hands back row by row.
type lossFunc func(ctx *mlctx.Context, in []*graph.Node) (loss *graph.Node, metrics []*graph.Node, perRow *graph.Node)

// phase is what a micro-batch graph does with its gradients.
type phase int

const (
	phaseAccumulate phase = iota // add them to the accumulators
	phaseApplyAcc                // add the accumulators, clip, step, zero the accumulators
	phaseApply                   // clip and step (a mini-batch of one micro-batch)
	numPhases
)

// stepper runs optimiser steps with gradient accumulation over
// micro-batches, global-norm clipping and AdamW, on the trainable
// variables of a context. Its graphs are compiled on first use, once per
// input shape.
type stepper struct {
	backend  backends.Backend
	vars     *mlctx.Context
	loss     lossFunc
	opt      adamW
	clip     ClipConfig
	accScope string // absolute scope of the gradient accumulators
	execs    [numPhases]*mlctx.Exec
	// dp, when set, runs every step over several devices (data parallel).
	dp *dataParallel
}

// stepResult is what one optimiser step reports.
type stepResult struct {
	metrics  []float64 // summed over the micro-batches
	gradNorm float64   // global norm before clipping
	skipped  bool      // gradNorm was not finite: nothing changed
	// perRow holds, per micro-batch, the rows of the loss's per-row
	// output (padding rows of several devices included); nil without one.
	perRow [][][]float32
}

// step runs one optimiser step over micro, the graph inputs of each
// micro-batch of one mini-batch, with learning rate lr.
func (s *stepper) step(ctx context.Context, micro [][]*tensors.Tensor, lr float64) (res stepResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrGraph, r)
		}
		if err != nil {
			// Drop what a failed step accumulated, so the next starts clean.
			s.resetAccumulators()
		}
	}()
	lrTensor := tensors.FromScalar(float32(lr))
	for i, in := range micro {
		if err := ctx.Err(); err != nil {
			return stepResult{}, err
		}
		p := phaseAccumulate
		if i == len(micro)-1 {
			p = phaseApplyAcc
			if len(micro) == 1 {
				p = phaseApply
			}
		}
		exec, err := s.exec(p)
		if err != nil {
			return stepResult{}, err
		}
		var args []any
		if s.dp != nil {
			if args, err = s.dp.splitArgs(in, lrTensor); err != nil {
				return stepResult{}, err
			}
		} else {
			args = make([]any, 0, len(in)+1)
			for _, t := range in {
				args = append(args, t)
			}
			args = append(args, lrTensor)
		}
		outs, err := exec.Exec(args...)
		if err != nil {
			return stepResult{}, fmt.Errorf("%w: %w", ErrGraph, err)
		}
		values, rows, err := s.outputValues(outs, p != phaseAccumulate)
		if err != nil {
			return stepResult{}, err
		}
		if rows != nil {
			res.perRow = append(res.perRow, rows)
		}
		if p != phaseAccumulate {
			res.gradNorm = values[len(values)-1]
			res.skipped = math.IsNaN(res.gradNorm) || math.IsInf(res.gradNorm, 0)
			values = values[:len(values)-1]
		}
		if res.metrics == nil {
			res.metrics = make([]float64, len(values))
		}
		for j, v := range values {
			res.metrics[j] += v
		}
	}
	return res, nil
}

// outputValues reads a step graph's outputs: the scalars (metric
// contributions, then the gradient norm when stepped) and, when the loss
// has one, the per-row output, last (the only one that is not a scalar).
// Over several devices the metric
// contributions of the devices add up, the gradient norm (the same on
// every device) is taken once and the devices' rows follow one another
// (each device ran a contiguous share of them).
func (s *stepper) outputValues(outs []*tensors.Tensor, stepped bool) (values []float64, rows [][]float32, err error) {
	defer func() {
		for _, t := range outs {
			t.FinalizeAll()
		}
	}()
	devices := 1
	if s.dp != nil {
		devices = s.dp.devices
	}
	per := len(outs) / devices
	perRow := per > 0 && outs[per-1].Rank() > 0
	scalars := per
	if perRow {
		scalars--
	}
	values = make([]float64, scalars)
	for d := range devices {
		for j := range scalars {
			v, err := graphrun.TensorScalar(outs[d*per+j])
			if err != nil {
				return nil, nil, err
			}
			if d == 0 || !(stepped && j == scalars-1) {
				values[j] += v
			}
		}
		if perRow {
			m, err := graphrun.TensorMatrix[float32](outs[d*per+scalars])
			if err != nil {
				return nil, nil, err
			}
			rows = append(rows, m...)
		}
	}
	return values, rows, nil
}

func (s *stepper) exec(p phase) (*mlctx.Exec, error) {
	if s.execs[p] == nil {
		e, err := mlctx.NewExec(s.backend, s.vars, s.graphFn(p))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrGraph, err)
		}
		if s.dp != nil {
			e.SPMD(s.dp.mesh)
		}
		s.execs[p] = e
	}
	return s.execs[p], nil
}

// graphFn builds the graph of one micro-batch in phase p. Its inputs are
// the loss's inputs followed by the learning rate (and, over several
// devices, the device's index); its outputs the metric contributions,
// then, when it steps, the gradient norm before clipping.
func (s *stepper) graphFn(p phase) func(ctx *mlctx.Context, in []*graph.Node) []*graph.Node {
	return func(ctx *mlctx.Context, in []*graph.Node) []*graph.Node {
		var rank *graph.Node
		var shardNodes map[*mlctx.Variable]*graph.Node
		if s.dp != nil {
			rank, in = in[len(in)-1], in[:len(in)-1]
			// Each device holds its rows of the sharded weights: the loss
			// reads them reassembled.
			shardNodes = s.dp.gatherWeights(ctx, in[0].Graph(), rank)
		}
		lr := in[len(in)-1]
		loss, metrics, perRow := s.loss(ctx, in[:len(in)-1])
		// The per-row output goes last, after the gradient norm.
		withRows := func(outs []*graph.Node) []*graph.Node {
			if perRow != nil {
				outs = append(outs, perRow)
			}
			return outs
		}
		g := loss.Graph()
		var vars []*mlctx.Variable
		var values []*graph.Node
		for v := range ctx.IterVariables() {
			if v.Trainable && v.InUseByGraph(g) {
				vars = append(vars, v)
				values = append(values, v.ValueGraph(g))
			}
		}
		if len(vars) == 0 {
			panic(fmt.Errorf("%w: the loss uses no trainable variable", ErrConfig))
		}
		grads := graph.Gradient(loss, values...)
		if p == phaseAccumulate {
			for i, v := range vars {
				acc := mirrorVariable(ctx, s.accScope, v)
				acc.SetValueGraph(graph.Add(acc.ValueGraph(g), grads[i]))
			}
			for v, shard := range shardNodes {
				v.SetValueGraph(shard) // unchanged: its stored rows stay
			}
			return withRows(metrics)
		}
		if p == phaseApplyAcc {
			for i, v := range vars {
				acc := mirrorVariable(ctx, s.accScope, v)
				grads[i] = graph.Add(acc.ValueGraph(g), grads[i])
				acc.SetValueGraph(graph.ZerosLike(grads[i]))
			}
		}
		if s.dp != nil {
			// Each device accumulated its own rows' gradients; the step is on their sum.
			grads = s.dp.allReduceSum(grads)
		}
		norm := globalNorm(grads)
		if !s.clip.NoClip {
			// torch clip_grad_norm_: scale by max_norm / (norm + 1e-6) when below 1.
			coef := graph.MinScalar(graph.Div(graph.Scalar(g, norm.DType(), s.clip.MaxGradNorm), graph.AddScalar(norm, 1e-6)), 1)
			for i := range grads {
				grads[i] = graph.Mul(grads[i], coef)
			}
		}
		s.opt.update(ctx, g, vars, grads, lr, graph.IsFinite(norm), s.dp, rank)
		return withRows(append(metrics, norm))
	}
}

// globalNorm is the L2 norm of all gradients together.
func globalNorm(grads []*graph.Node) *graph.Node {
	var sum *graph.Node
	for _, gr := range grads {
		sq := graph.ReduceAllSum(graph.Square(gr))
		if sum == nil {
			sum = sq
		} else {
			sum = graph.Add(sum, sq)
		}
	}
	return graph.Sqrt(sum)
}

// resetAccumulators zeroes the gradient accumulators.
func (s *stepper) resetAccumulators() {
	for v := range s.vars.IterVariables() {
		if inScope(v.Scope(), s.accScope) {
			_ = v.SetValue(tensors.FromShape(v.Shape()))
		}
	}
}
