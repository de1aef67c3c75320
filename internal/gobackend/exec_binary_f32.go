package gobackend

import (
	"github.com/gomlx/gomlx/pkg/core/shapes"

	"github.com/org/agentevolver/internal/vecmath"
)

// f32Op names the float32 binary ops that run on the SIMD kernels of
// internal/vecmath (gofast change). Max/Min stay on the generic code: Go's
// max propagates NaN and orders -0 < +0, which MAXPS does not.
type f32Op int

const (
	f32Add f32Op = iota
	f32Sub
	f32Mul
	f32Div
)

// minVecRun is the shortest broadcast run worth a kernel call; shorter runs
// use the scalar loop (same results: the ops are exact per element).
const minVecRun = 8

// execFloat32Binary computes output = lhs op rhs for float32 with the same
// cases, visiting order and (bit-exact) results as the generated
// execXxxNumericGeneric[float32], but with SIMD kernels on the scalar,
// same-shape and contiguous broadcast-run paths.
// The scalar-operand and same-shape cases of large arrays are split over the
// backend's workers (splitRange).
func execFloat32Binary(backend *Backend, op f32Op, lhs, rhs, output []float32, lhsShape, rhsShape, outputShape shapes.Shape) {
	switch {
	case len(rhs) == 1:
		splitRange(backend, len(lhs), func(lo, hi int) { f32VS(op, output[lo:hi], lhs[lo:hi], rhs[0]) })
	case len(lhs) == 1:
		splitRange(backend, len(rhs), func(lo, hi int) { f32SV(op, output[lo:hi], lhs[0], rhs[lo:hi]) })
	case lhsShape.Equal(rhsShape):
		splitRange(backend, len(lhs), func(lo, hi int) { f32VV(op, output[lo:hi], lhs[lo:hi], rhs[lo:hi]) })
	default:
		runs := newBroadcastRuns(lhsShape, rhsShape, outputShape)
		lhsStep, rhsStep := runs.lhsStep, runs.rhsStep
		for runs.next() {
			lhsIdx, rhsIdx, outIdx, outEnd := runs.lhsIdx, runs.rhsIdx, runs.outIdx, runs.outEnd
			n := outEnd - outIdx
			out := output[outIdx:outEnd]
			vector := n >= minVecRun
			switch {
			case vector && lhsStep == 1 && rhsStep == 1:
				f32VV(op, out, lhs[lhsIdx:lhsIdx+n], rhs[rhsIdx:rhsIdx+n])
			case vector && lhsStep == 1 && rhsStep == 0:
				f32VS(op, out, lhs[lhsIdx:lhsIdx+n], rhs[rhsIdx])
			case vector && lhsStep == 0 && rhsStep == 1:
				f32SV(op, out, lhs[lhsIdx], rhs[rhsIdx:rhsIdx+n])
			default: // short runs and strided ones
				for i := range out {
					out[i] = f32Scalar(op, lhs[lhsIdx], rhs[rhsIdx])
					lhsIdx += lhsStep
					rhsIdx += rhsStep
				}
			}
		}
	}
}

func f32Scalar(op f32Op, a, b float32) float32 {
	switch op {
	case f32Add:
		return a + b
	case f32Sub:
		return a - b
	case f32Mul:
		return a * b
	default:
		return a / b
	}
}

func f32VV(op f32Op, dst, a, b []float32) {
	switch op {
	case f32Add:
		vecmath.Add(dst, a, b)
	case f32Sub:
		vecmath.Sub(dst, a, b)
	case f32Mul:
		vecmath.Mul(dst, a, b)
	default:
		vecmath.Div(dst, a, b)
	}
}

// f32VS computes dst[i] = a[i] op c.
func f32VS(op f32Op, dst, a []float32, c float32) {
	switch op {
	case f32Add:
		vecmath.AddScalar(dst, a, c)
	case f32Sub:
		vecmath.SubScalar(dst, a, c)
	case f32Mul:
		vecmath.MulScalar(dst, a, c)
	default:
		vecmath.DivScalar(dst, a, c)
	}
}

// f32SV computes dst[i] = c op a[i]. Add and Mul are commutative in IEEE
// arithmetic, so they reuse the a[i] op c kernels.
func f32SV(op f32Op, dst []float32, c float32, a []float32) {
	switch op {
	case f32Add:
		vecmath.AddScalar(dst, a, c)
	case f32Sub:
		vecmath.ScalarSub(dst, c, a)
	case f32Mul:
		vecmath.MulScalar(dst, a, c)
	default:
		vecmath.ScalarDiv(dst, c, a)
	}
}
