package gobackend

import (
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/org/agentevolver/internal/vecmath"
)

// SwiGLU fusion (gofast change).
//
// The MLP's silu(gate)·up reaches the backend as Mul(Mul(x, Logistic(x)),
// up): three passes over [B,T,intermediate]. When nothing else reads the
// Logistic or the inner Mul (every forward-only graph; a stock gradient
// reads both), Compile makes the outer Mul one node that computes a block of
// elements at a time in L1, with the kernels the separate ops apply
// (vecmath's Sigmoid and Mul), so the results are the same bits;
// TestSwiGLUFusionBitwise checks it.

// swigluFusion marks a Mul node that computes (x·σ(x))·up from its inputs x
// and up.
type swigluFusion struct{}

func (swigluFusion) execute(backend *Backend, node *Node, inputs []*Buffer, inputsOwned []bool) (*Buffer, error) {
	return execSwiGLUFused(backend, node, inputs, inputsOwned)
}

// swigluPattern reports whether h is Mul(Mul(x, Logistic(x)), up), either
// operand order of either Mul, float32 and same-shaped, with the Logistic
// and the inner Mul read by nothing else, and returns x and up.
func swigluPattern(h *Node, uses []int) ([]*Node, bool) {
	if h.opType != backends.OpTypeMul || h.data != nil || h.shape.DType != dtypes.Float32 || uses[h.builderIdx] == 0 {
		return nil, false
	}
	for _, outer := range [2][2]int{{0, 1}, {1, 0}} {
		silu, up := h.inputs[outer[0]], h.inputs[outer[1]]
		if silu.opType != backends.OpTypeMul || uses[silu.builderIdx] != 1 || !silu.shape.Equal(h.shape) || !up.shape.Equal(h.shape) {
			continue
		}
		for _, inner := range [2][2]int{{0, 1}, {1, 0}} {
			x, sig := silu.inputs[inner[0]], silu.inputs[inner[1]]
			if sig.opType == backends.OpTypeLogistic && sig.inputs[0] == x && uses[sig.builderIdx] == 1 && x.shape.Equal(h.shape) {
				return []*Node{x, up}, true
			}
		}
	}
	return nil, false
}

// swigluBlock is how many elements the fused node computes at a time: its
// scratch and the block's inputs stay in L1.
const swigluBlock = 1024

// execSwiGLUFused executes a node marked swigluFusion, inputs x and up, a
// block at a time as the separate ops compute it. The output may take over
// x's or up's buffer: a block of it is written after that block of both is
// read.
func execSwiGLUFused(backend *Backend, node *Node, inputs []*Buffer, inputsOwned []bool) (*Buffer, error) {
	x, up := inputs[0].flat.([]float32), inputs[1].flat.([]float32)
	output := fusedOutput(backend, node, inputs, inputsOwned)
	out := output.flat.([]float32)
	splitRange(backend, len(out), func(lo, hi int) {
		var scratch [swigluBlock]float32
		for b := lo; b < hi; b += swigluBlock {
			e := min(b+swigluBlock, hi)
			s := scratch[:e-b]
			vecmath.Sigmoid(s, x[b:e])
			vecmath.Mul(s, x[b:e], s)
			vecmath.Mul(out[b:e], s, up[b:e])
		}
	})
	return output, nil
}
