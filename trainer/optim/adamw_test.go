package optim

import (
	"context"
	"math"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/org/agentevolver/model"
)

// TestAdamWArithmetic runs the stepper on the quadratic loss
// ½‖w − target‖², whose gradient is w − target, and compares every step
// with torch.AdamW after clip_grad_norm_, computed on the host.
func TestAdamWArithmetic(t *testing.T) {
	backend, err := model.NewBackend("")
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Finalize()
	cfg, err := AdamWConfig{LearningRate: 0.05, WeightDecay: 0.1}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	w := []float64{0.5, -1, 2, 0.1}
	target := []float32{1.5, -3, 0.25, 0.1}
	const maxNorm = 1.0

	vars := mlctx.New()
	w32 := make([]float32, len(w))
	for i, v := range w {
		w32[i] = float32(v)
		w[i] = float64(w32[i]) // the host starts from the same float32 values
	}
	wVar := vars.InAbsPath("/q").VariableWithValue("w", tensors.FromFlatDataAndDimensions(w32, len(w)))
	s := &stepper{
		backend: backend,
		vars:    vars,
		loss: func(ctx *mlctx.Context, in []*graph.Node) (*graph.Node, []*graph.Node, *graph.Node) {
			wv := ctx.GetVariableByScopeAndName("/q", "w").ValueGraph(in[0].Graph())
			// Each micro-batch carries a weight, so two halves add up to one.
			loss := graph.Mul(graph.MulScalar(graph.ReduceAllSum(graph.Square(graph.Sub(wv, in[0]))), 0.5), in[1])
			return loss, []*graph.Node{loss}, nil
		},
		opt:      adamW{cfg: cfg, scope: "/opt"},
		clip:     ClipConfig{MaxGradNorm: maxNorm},
		accScope: "/acc",
	}

	m, v := make([]float64, len(w)), make([]float64, len(w))
	for step := 1; step <= 4; step++ {
		// Host reference.
		grad := make([]float64, len(w))
		var sq float64
		for i := range w {
			grad[i] = w[i] - float64(target[i])
			sq += grad[i] * grad[i]
		}
		norm := math.Sqrt(sq)
		coef := math.Min(1, maxNorm/(norm+1e-6))
		bc1 := 1 - math.Pow(cfg.Beta1, float64(step))
		bc2 := 1 - math.Pow(cfg.Beta2, float64(step))
		for i := range w {
			g := grad[i] * coef
			m[i] = cfg.Beta1*m[i] + (1-cfg.Beta1)*g
			v[i] = cfg.Beta2*v[i] + (1-cfg.Beta2)*g*g
			w[i] = w[i]*(1-cfg.LearningRate*cfg.WeightDecay) - cfg.LearningRate/bc1*m[i]/(math.Sqrt(v[i])/math.Sqrt(bc2)+cfg.Epsilon)
		}

		// Odd steps in one micro-batch, even steps in two halves.
		tgt := tensors.FromFlatDataAndDimensions(target, len(target))
		micro := [][]*tensors.Tensor{{tgt, tensors.FromScalar(float32(1))}}
		if step%2 == 0 {
			half := tensors.FromScalar(float32(0.5))
			micro = [][]*tensors.Tensor{{tgt, half}, {tgt, half}}
		}
		res, err := s.step(context.Background(), micro, cfg.LearningRate)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.gradNorm-norm) > 1e-5*norm {
			t.Errorf("step %d: grad norm %v, want %v", step, res.gradNorm, norm)
		}
		got, err := tensors.CopyFlatData[float32](wVar.MustValue())
		if err != nil {
			t.Fatal(err)
		}
		for i := range w {
			if math.Abs(float64(got[i])-w[i]) > 1e-5 {
				t.Errorf("step %d: w[%d] = %v, want %v", step, i, got[i], w[i])
			}
		}
	}
}

// BenchmarkOptimizerStep measures the optimiser part of a step (gradient
// norm, clipping, AdamW) on 5M parameters, the size of the "small" bench
// model, with a loss whose gradient costs one pass.
func BenchmarkOptimizerStep(b *testing.B) {
	backend, err := model.NewBackend("")
	if err != nil {
		b.Fatal(err)
	}
	defer backend.Finalize()
	cfg, err := AdamWConfig{LearningRate: 1e-4}.withDefaults()
	if err != nil {
		b.Fatal(err)
	}
	const n = 5 << 20
	vars := mlctx.New()
	vars.InAbsPath("/q").VariableWithValue("w", tensors.FromFlatDataAndDimensions(make([]float32, n), n))
	s := &stepper{
		backend: backend,
		vars:    vars,
		loss: func(ctx *mlctx.Context, in []*graph.Node) (*graph.Node, []*graph.Node, *graph.Node) {
			wv := ctx.GetVariableByScopeAndName("/q", "w").ValueGraph(in[0].Graph())
			loss := graph.Mul(graph.ReduceAllSum(wv), in[0])
			return loss, []*graph.Node{graph.OnesLike(loss)}, nil
		},
		opt:      adamW{cfg: cfg, scope: "/opt"},
		accScope: "/acc",
	}
	micro := [][]*tensors.Tensor{{tensors.FromScalar(float32(1))}}
	if _, err := s.step(context.Background(), micro, 1e-4); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := s.step(context.Background(), micro, 1e-4); err != nil {
			b.Fatal(err)
		}
	}
}
