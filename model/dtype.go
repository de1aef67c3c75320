package model

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// ErrUnsupportedDType reports a compute dtype that the backend cannot run:
// one of the operations the forward pass needs failed to compile or run in
// that dtype. The error names the backend and the operation.
var ErrUnsupportedDType = errors.New("model: compute dtype unsupported by the backend")

// ParseComputeDType maps a configuration value to a compute dtype:
// "float32" (or "") and "bfloat16" (or "bf16"), case-insensitive.
// Anything else is an error wrapping ErrBadConfig.
func ParseComputeDType(s string) (dtypes.DType, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "float32":
		return dtypes.Float32, nil
	case "bfloat16", "bf16":
		return dtypes.BFloat16, nil
	}
	return dtypes.InvalidDType, fmt.Errorf("%w: dtype %q: want float32 or bfloat16 (bf16)", ErrBadConfig, s)
}

// computeDTypeOf normalises Options.ComputeDType: the zero value means
// float32; only float32 and bfloat16 are accepted.
func computeDTypeOf(dt dtypes.DType) (dtypes.DType, error) {
	switch dt {
	case dtypes.InvalidDType, dtypes.Float32:
		return dtypes.Float32, nil
	case dtypes.BFloat16:
		return dtypes.BFloat16, nil
	}
	return dtypes.InvalidDType, fmt.Errorf("%w: compute dtype %s: want float32 or bfloat16", ErrBadConfig, dt)
}

// ComputeDType returns the dtype the model's decoder blocks compute in:
// float32, or bfloat16 for mixed precision (see Options.ComputeDType).
func (m *Model) ComputeDType() dtypes.DType { return m.dtype }

// toCompute converts x to the compute dtype (no node at all when it is
// already in it, so the float32 graph is the one without mixed precision).
func (m *Model) toCompute(x *graph.Node) *graph.Node { return convertTo(x, m.dtype) }

// convertTo converts x to dt, adding no node when x already has it.
// ConvertDType's gradient converts back, so gradients reach float32
// variables in float32.
func convertTo(x *graph.Node, dt dtypes.DType) *graph.Node {
	if x.DType() == dt {
		return x
	}
	return graph.ConvertDType(x, dt)
}

// dtypeProbe is one operation the mixed-precision forward pass (or its
// gradient) runs in the compute dtype, as a graph over float32 inputs
// x [2,3,4] and w [4,4] whose outputs are float32.
type dtypeProbe struct {
	op    string
	build func(x, w *graph.Node, dt dtypes.DType) *graph.Node
}

// dtypeProbes are the operations the forward pass and its gradient run in
// the compute dtype, one by one, so that a failure names the operation.
func dtypeProbes() []dtypeProbe {
	f32 := func(x *graph.Node) *graph.Node { return graph.ConvertDType(x, dtypes.Float32) }
	return []dtypeProbe{
		{"ConvertDType", func(x, _ *graph.Node, dt dtypes.DType) *graph.Node { return f32(graph.ConvertDType(x, dt)) }},
		{"DotGeneral", func(x, w *graph.Node, dt dtypes.DType) *graph.Node {
			return f32(graph.DotGeneral(graph.ConvertDType(x, dt), []int{2}, nil, graph.ConvertDType(w, dt), []int{1}, nil))
		}},
		{"DotGeneral (batched)", func(x, _ *graph.Node, dt dtypes.DType) *graph.Node {
			xb := graph.ConvertDType(x, dt)
			return f32(graph.DotGeneral(xb, []int{2}, []int{0}, xb, []int{2}, []int{0}))
		}},
		{"Add", func(x, _ *graph.Node, dt dtypes.DType) *graph.Node {
			xb := graph.ConvertDType(x, dt)
			return f32(graph.Add(xb, xb))
		}},
		{"Sub", func(x, _ *graph.Node, dt dtypes.DType) *graph.Node {
			xb := graph.ConvertDType(x, dt)
			return f32(graph.Sub(xb, graph.MulScalar(xb, 0.5)))
		}},
		{"Mul", func(x, _ *graph.Node, dt dtypes.DType) *graph.Node {
			xb := graph.ConvertDType(x, dt)
			return f32(graph.Mul(xb, xb))
		}},
		{"Neg", func(x, _ *graph.Node, dt dtypes.DType) *graph.Node { return f32(graph.Neg(graph.ConvertDType(x, dt))) }},
		{"Logistic", func(x, _ *graph.Node, dt dtypes.DType) *graph.Node {
			return f32(graph.Sigmoid(graph.ConvertDType(x, dt)))
		}},
		{"Transpose", func(x, _ *graph.Node, dt dtypes.DType) *graph.Node {
			return f32(graph.TransposeAllAxes(graph.ConvertDType(x, dt), 2, 0, 1))
		}},
		{"Reshape", func(x, _ *graph.Node, dt dtypes.DType) *graph.Node {
			return f32(graph.Reshape(graph.ConvertDType(x, dt), 6, 4))
		}},
		{"BroadcastInDim", func(x, _ *graph.Node, dt dtypes.DType) *graph.Node {
			return f32(graph.BroadcastToDims(graph.InsertAxes(graph.ConvertDType(x, dt), 2), 2, 3, 5, 4))
		}},
		{"ReduceSum", func(x, _ *graph.Node, dt dtypes.DType) *graph.Node {
			return f32(graph.ReduceSum(graph.ConvertDType(x, dt), 0, 1))
		}},
	}
}

// CheckComputeDType compiles and runs, on backend, a tiny model's
// log-probs and their gradient in dtype (the mixed-precision forward pass
// of Options.ComputeDType). It returns nil for float32 and for a dtype
// the backend runs, and otherwise an error wrapping ErrUnsupportedDType
// that names the backend and the first operation that failed. New and
// Load call it; it takes milliseconds on the pure-Go backend.
func CheckComputeDType(backend backends.Backend, dtype dtypes.DType) error {
	return checkComputeDType(backend, dtype, dtypeProbes())
}

func checkComputeDType(backend backends.Backend, dtype dtypes.DType, probes []dtypeProbe) error {
	dt, err := computeDTypeOf(dtype)
	if err != nil || dt == dtypes.Float32 {
		return err
	}
	unsupported := func(op string, cause error) error {
		return fmt.Errorf("%w: backend %q (%s) cannot run %s in %s: %w", ErrUnsupportedDType, backend.Name(), backend.Description(), op, dt, cause)
	}
	for _, p := range probes {
		if err := runProbe(backend, p, dt); err != nil {
			return unsupported(p.op, err)
		}
	}
	if err := runModelProbe(backend, dt); err != nil {
		return unsupported("the forward pass and its gradient", err)
	}
	return nil
}

// runProbe compiles and runs one probe.
func runProbe(backend backends.Backend, p dtypeProbe, dt dtypes.DType) (err error) {
	defer recoverProbe(&err)
	x := tensors.FromFlatDataAndDimensions([]float32{
		1, 2, 3, 4, -1, -2, -3, -4, 0.5, 0.25, 0.125, 2,
		4, 3, 2, 1, -4, -3, -2, -1, 2, 0.125, 0.25, 0.5}, 2, 3, 4)
	w := tensors.FromFlatDataAndDimensions([]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, 4, 4)
	exec, err := graph.NewExec(backend, func(x, w *graph.Node) *graph.Node { return p.build(x, w, dt) })
	if err != nil {
		return err
	}
	defer exec.Finalize()
	outs, err := exec.Exec(x, w)
	if err != nil {
		return err
	}
	finalizeAll(outs)
	return nil
}

// runModelProbe runs a two-layer model's response log-probs and their
// gradient with respect to every weight, in dt: every operation of the
// mixed-precision forward pass and of its gradient, as the trainer runs
// them.
func runModelProbe(backend backends.Backend, dt dtypes.DType) (err error) {
	defer recoverProbe(&err)
	cfg := Config{VocabSize: 8, HiddenSize: 8, NumHiddenLayers: 1, NumAttentionHeads: 2, NumKeyValueHeads: 1, IntermediateSize: 8}
	m, err := New(cfg, 1, Options{Backend: backend})
	if err != nil {
		return err
	}
	m.dtype = dt // New with Float32 skips the check; this is the check
	exec, err := mlctx.NewExec(backend, m.Context(), func(ctx *mlctx.Context, ids, pos, mask, targets *graph.Node) []*graph.Node {
		logp, ent := m.ResponseLogProbs(ctx, ids, pos, mask, targets, 2)
		loss := graph.Add(graph.ReduceAllSum(logp), graph.ReduceAllSum(ent))
		return append([]*graph.Node{loss}, ctx.BuildTrainableVariablesGradientsGraph(loss)...)
	})
	if err != nil {
		return err
	}
	defer exec.Finalize()
	outs, err := exec.Exec(
		tensors.FromFlatDataAndDimensions([]int32{0, 1, 2, 3, 1, 2, 3, 4}, 2, 4),
		tensors.FromFlatDataAndDimensions([]int32{0, 0, 1, 2, 0, 1, 2, 3}, 2, 4),
		tensors.FromFlatDataAndDimensions([]bool{false, true, true, true, true, true, true, true}, 2, 4),
		tensors.FromFlatDataAndDimensions([]int32{2, 3, 3, 4}, 2, 2))
	if err != nil {
		return err
	}
	finalizeAll(outs)
	return nil
}

// recoverProbe turns a probe's panic (GoMLX reports unsupported
// operations that way) into an error.
func recoverProbe(err *error) {
	if r := recover(); r != nil {
		if e, ok := r.(error); ok {
			*err = e
			return
		}
		*err = fmt.Errorf("%v", r)
	}
}
