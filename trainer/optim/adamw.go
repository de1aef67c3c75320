package optim

import (
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/gomlx/pkg/ml/context/initializers"
)

// AdamWConfig configures the AdamW optimiser (decoupled weight decay, as
// torch.optim.AdamW, which veRL uses). Zero values mean the reference
// defaults.
type AdamWConfig struct {
	// LearningRate is the step size (default 1e-6, the reference's value,
	// chosen for 7B–14B models; the small models of this project's
	// benchmarks train with about 1e-4). [Updater.SetLearningRate] changes
	// it between steps without recompiling.
	LearningRate float64
	// Beta1 and Beta2 are the moment decay rates (default 0.9, 0.999).
	Beta1, Beta2 float64
	// Epsilon is added to the root of the second moment (default 1e-8).
	Epsilon float64
	// WeightDecay is the decoupled weight decay (default 0.01), applied to
	// every trainable variable as veRL does.
	WeightDecay float64
	// NoWeightDecay turns weight decay off.
	NoWeightDecay bool
}

// Defaults of AdamWConfig.
const (
	DefaultLearningRate = 1e-6
	DefaultBeta1        = 0.9
	DefaultBeta2        = 0.999
	DefaultAdamEpsilon  = 1e-8
	DefaultWeightDecay  = 0.01
)

func (c AdamWConfig) withDefaults() (AdamWConfig, error) {
	set := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	set(&c.LearningRate, DefaultLearningRate)
	set(&c.Beta1, DefaultBeta1)
	set(&c.Beta2, DefaultBeta2)
	set(&c.Epsilon, DefaultAdamEpsilon)
	set(&c.WeightDecay, DefaultWeightDecay)
	if c.NoWeightDecay {
		c.WeightDecay = 0
	}
	switch {
	case !(c.LearningRate > 0):
		return c, fmt.Errorf("%w: learning rate %v must be > 0", ErrConfig, c.LearningRate)
	case !(c.Beta1 > 0 && c.Beta1 < 1 && c.Beta2 > 0 && c.Beta2 < 1):
		return c, fmt.Errorf("%w: betas %v, %v must be in (0, 1)", ErrConfig, c.Beta1, c.Beta2)
	case !(c.Epsilon > 0):
		return c, fmt.Errorf("%w: epsilon %v must be > 0", ErrConfig, c.Epsilon)
	case c.WeightDecay < 0:
		return c, fmt.Errorf("%w: weight decay %v must be >= 0", ErrConfig, c.WeightDecay)
	}
	return c, nil
}

// adamW builds AdamW updates whose state (step count, moments) lives in
// the trained context under scope. It is written here rather than taken
// from gomlx's optimizers.Adam because the update must be skippable inside
// the graph (veRL skips the step when the gradient norm is not finite) and
// the learning rate is a graph input, so a schedule needs no recompiling.
// The arithmetic is torch.optim.AdamW's.
type adamW struct {
	cfg   AdamWConfig
	scope string // absolute scope of the optimiser state
}

// update sets, inside g, the new values of vars given their gradients
// grads (already clipped), the learning rate lr and ok, a bool scalar:
// where ok is false, variables, moments and the step count keep their
// values.
//
// With dp set (rank is then the device's index), each weight
// dp.shardable accepts and its moments are sharded: each device updates
// its own rows of them.
func (o adamW) update(ctx *mlctx.Context, g *graph.Graph, vars []*mlctx.Variable, grads []*graph.Node, lr, ok *graph.Node, dp *dataParallel, rank *graph.Node) {
	state := ctx.InAbsPath(o.scope).Checked(false).WithInitializer(initializers.Zero)
	stepVar := state.VariableWithValue("step", int64(0)).SetTrainable(false)
	step := graph.Add(stepVar.ValueGraph(g), graph.ConvertDType(ok, dtypes.Int64))
	stepVar.SetValueGraph(step)

	// Scalars, chosen so that a skipped step (ok false) leaves every value
	// as it is: moments keep (β = 1, 1−β = 0), the step size and the decay
	// vanish.
	dtype := lr.DType()
	scalar := func(onOK, onSkip *graph.Node) *graph.Node { return graph.Where(ok, onOK, onSkip) }
	c := func(v float64) *graph.Node { return graph.Scalar(g, dtype, v) }
	t := graph.ConvertDType(step, dtype)
	bias1 := graph.OneMinus(graph.Pow(c(o.cfg.Beta1), t))
	bias2 := graph.OneMinus(graph.Pow(c(o.cfg.Beta2), t))
	beta1, keep1 := scalar(c(o.cfg.Beta1), c(1)), scalar(c(1-o.cfg.Beta1), c(0))
	beta2, keep2 := scalar(c(o.cfg.Beta2), c(1)), scalar(c(1-o.cfg.Beta2), c(0))
	stepSize := scalar(graph.Div(lr, bias1), c(0))
	invRootBias2 := scalar(graph.Rsqrt(bias2), c(1))
	decay := scalar(graph.OneMinus(graph.MulScalar(lr, o.cfg.WeightDecay)), c(1))
	zero := graph.ScalarZero(g, dtype)

	for i, v := range vars {
		grad := graph.Where(ok, grads[i], zero)
		param := v.ValueGraph(g)
		m1Var := mirrorVariable(state, o.scope+"/m", v)
		m2Var := mirrorVariable(state, o.scope+"/v", v)
		sharded := dp != nil && dp.shardable(v)
		if sharded {
			dp.shardRows(m1Var)
			dp.shardRows(m2Var)
			grad, param = dp.ownRows(grad, rank), dp.ownRows(param, rank)
		}
		m1 := graph.Add(graph.Mul(m1Var.ValueGraph(g), beta1), graph.Mul(grad, keep1))
		m2 := graph.Add(graph.Mul(m2Var.ValueGraph(g), beta2), graph.Mul(graph.Square(grad), keep2))
		m1Var.SetValueGraph(m1)
		m2Var.SetValueGraph(m2)
		denom := graph.AddScalar(graph.Mul(graph.Sqrt(m2), invRootBias2), o.cfg.Epsilon)
		// A sharded weight keeps its own rows (dataParallel.gatherWeights).
		v.SetValueGraph(graph.Sub(graph.Mul(param, decay), graph.Mul(graph.Div(m1, denom), stepSize)))
	}
}

// mirrorVariable returns the non-trainable variable that shadows v under
// base (same scope path and name below it), created zero on first use.
func mirrorVariable(ctx *mlctx.Context, base string, v *mlctx.Variable) *mlctx.Variable {
	path := base
	if scope := v.Scope(); scope != mlctx.RootScope {
		path += scope
	}
	return ctx.InAbsPath(path).Checked(false).WithInitializer(initializers.Zero).
		VariableWithShape(v.Name(), v.Shape()).SetTrainable(false)
}
