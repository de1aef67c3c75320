package gobackend

import (
	"runtime"

	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/pkg/errors"

	"github.com/org/agentevolver/internal/gemm"
)

// execDotGeneralGemm computes a float32 DotGeneral with the packed SIMD GEMM
// (package gemm) instead of upstream's blocked or naive loops; its right
// operand may be int8 or bfloat16 (a fused narrow product, dgRHSOperand).
// It reads lhs and rhs in place when each group of axes (batch, cross,
// contracting) collapses to one stride, which covers plain and transposed
// matmuls and per-head attention; otherwise it first transposes that
// operand with upstream's dgNormalizeShape.
// The output is overwritten, so it needs no zeroing.
func execDotGeneralGemm(backend *Backend, lhs, rhs *Buffer, params *dotGeneralNodeData, output *Buffer) error {
	p := gemm.Params{
		Batch:      params.batchSize,
		M:          params.lhsCrossSize,
		N:          params.rhsCrossSize,
		K:          params.contractingSize,
		C:          output.flat.([]float32),
		MaxWorkers: gemmWorkers(backend),
		Team:       &backend.team,
	}
	var lhsTmp, rhsTmp *Buffer
	p.A, p.ABatchStride, p.ARowStride, p.AColStride, lhsTmp = dgStridedOperand(backend, lhs, params.lhsContractingAxes, params.lhsBatchAxes, params.batchSize, params.lhsCrossSize, params.contractingSize)
	rhsTmp = dgRHSOperand(backend, rhs, params, &p)
	err := gemm.Multiply(&p)
	if lhsTmp != nil {
		backend.putBuffer(lhsTmp)
	}
	if rhsTmp != nil {
		backend.putBuffer(rhsTmp)
	}
	if err != nil {
		return errors.Wrapf(err, "DotGeneral(%s, %s) -> %s", lhs.shape, rhs.shape, output.shape)
	}
	return nil
}

// gemmWorkers maps the backend's parallelism setting to gemm's worker bound:
// 0 disables parallelism, a negative value means unlimited (GOMAXPROCS).
func gemmWorkers(backend *Backend) int {
	n := backend.workers.MaxParallelism()
	switch {
	case n == 0:
		return 1
	case n < 0:
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// dgStridedOperand returns operand's float32 data with the strides of its
// batch, cross and contracting index. When an axis group does not collapse
// to a single stride, it returns a transposed copy (tmp, to be returned to
// the pool by the caller) in [batch, cross, contracting] layout.
func dgStridedOperand(backend *Backend, operand *Buffer, contractingAxes, batchAxes []int, batchSize, crossSize, contractingSize int) (data []float32, batchStride, crossStride, contractStride int, tmp *Buffer) {
	if bs, cs, ks, ok := dgAxesStrides(operand.shape, contractingAxes, batchAxes); ok {
		return operand.flat.([]float32), bs, cs, ks, nil
	}
	tmp = dgNormalizeShape[float32](backend, operand, contractingAxes, batchAxes, batchSize, crossSize, contractingSize)
	data = operand.flat.([]float32)
	if tmp != nil {
		data = tmp.flat.([]float32)
	}
	return data, crossSize * contractingSize, contractingSize, 1, tmp
}

// dgAxesStrides reports the element strides of the flattened batch, cross
// and contracting indices of a row-major tensor, if each group of axes
// collapses to one stride. Batch and contracting axes are flattened in the
// order given (they pair with the other operand's); cross axes in axis order.
// Axes of dimension 1 never matter. An empty group has stride 0.
func dgAxesStrides(shape shapes.Shape, contractingAxes, batchAxes []int) (batchStride, crossStride, contractStride int, ok bool) {
	rank := shape.Rank()
	dims := shape.Dimensions
	strides := make([]int, rank)
	isCross := make([]bool, rank)
	s := 1
	for axis := rank - 1; axis >= 0; axis-- {
		strides[axis] = s
		s *= dims[axis]
		isCross[axis] = true
	}
	for _, axis := range contractingAxes {
		isCross[axis] = false
	}
	for _, axis := range batchAxes {
		isCross[axis] = false
	}
	crossAxes := make([]int, 0, rank)
	for axis, c := range isCross {
		if c {
			crossAxes = append(crossAxes, axis)
		}
	}
	group := func(axes []int) (int, bool) {
		stride, inner := 0, -1 // inner: last non-trivial axis seen (innermost so far)
		for i := len(axes) - 1; i >= 0; i-- {
			axis := axes[i]
			if dims[axis] == 1 {
				continue
			}
			if inner < 0 {
				stride = strides[axis]
			} else if strides[axis] != strides[inner]*dims[inner] {
				return 0, false
			}
			inner = axis
		}
		return stride, true
	}
	var okB, okC, okK bool
	batchStride, okB = group(batchAxes)
	crossStride, okC = group(crossAxes)
	contractStride, okK = group(contractingAxes)
	return batchStride, crossStride, contractStride, okB && okC && okK
}
