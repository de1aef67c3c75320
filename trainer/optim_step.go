package trainer

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
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
type lossFunc func(ctx *mlctx.Context, in []*graph.Node) (loss *graph.Node, metrics []*graph.Node)

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
}

// stepResult is what one optimiser step reports.
type stepResult struct {
	metrics  []float64 // summed over the micro-batches
	gradNorm float64   // global norm before clipping
	skipped  bool      // gradNorm was not finite: nothing changed
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
		args := make([]any, 0, len(in)+1)
		for _, t := range in {
			args = append(args, t)
		}
		outs, err := exec.Exec(append(args, lrTensor)...)
		if err != nil {
			return stepResult{}, fmt.Errorf("%w: %w", ErrGraph, err)
		}
		values := make([]float64, len(outs))
		for j, t := range outs {
			if values[j], err = tensorScalar(t); err != nil {
				return stepResult{}, err
			}
			t.FinalizeAll()
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

func (s *stepper) exec(p phase) (*mlctx.Exec, error) {
	if s.execs[p] == nil {
		e, err := mlctx.NewExec(s.backend, s.vars, s.graphFn(p))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrGraph, err)
		}
		s.execs[p] = e
	}
	return s.execs[p], nil
}

// graphFn builds the graph of one micro-batch in phase p. Its inputs are
// the loss's inputs followed by the learning rate; its outputs the metric
// contributions, then, when it steps, the gradient norm before clipping.
func (s *stepper) graphFn(p phase) func(ctx *mlctx.Context, in []*graph.Node) []*graph.Node {
	return func(ctx *mlctx.Context, in []*graph.Node) []*graph.Node {
		lr := in[len(in)-1]
		loss, metrics := s.loss(ctx, in[:len(in)-1])
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
			return metrics
		}
		if p == phaseApplyAcc {
			for i, v := range vars {
				acc := mirrorVariable(ctx, s.accScope, v)
				grads[i] = graph.Add(acc.ValueGraph(g), grads[i])
				acc.SetValueGraph(graph.ZerosLike(grads[i]))
			}
		}
		norm := globalNorm(grads)
		if !s.clip.NoClip {
			// torch clip_grad_norm_: scale by max_norm / (norm + 1e-6) when below 1.
			coef := graph.MinScalar(graph.Div(graph.Scalar(g, norm.DType(), s.clip.MaxGradNorm), graph.AddScalar(norm, 1e-6)), 1)
			for i := range grads {
				grads[i] = graph.Mul(grads[i], coef)
			}
		}
		s.opt.update(ctx, g, vars, grads, lr, graph.IsFinite(norm))
		return append(metrics, norm)
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
		if v.Scope() == s.accScope || strings.HasPrefix(v.Scope(), s.accScope+mlctx.ScopeSeparator) {
			_ = v.SetValue(tensors.FromShape(v.Shape()))
		}
	}
}
