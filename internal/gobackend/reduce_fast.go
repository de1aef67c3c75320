package gobackend

import (
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/org/agentevolver/internal/vecmath"
)

// reduceFast computes float32/float64 ReduceSum and ReduceMax when the
// reduced axes are one contiguous block (ignoring size-1 axes), viewing the
// operand as [outer, reduced, inner] (gofast change). Upstream walks every
// element with an odometer iterator. Max results are bit-identical; sums over
// the innermost axis use several running sums (see sumRow), so they may
// differ from upstream's sequential sum in the last bits; sums over outer
// axes keep upstream's order. It returns false when it does not apply.
func reduceFast(opType backends.OpType, operand, output *Buffer, reduceAxes []int) bool {
	if opType != backends.OpTypeReduceSum && opType != backends.OpTypeReduceMax {
		return false
	}
	dims := operand.shape.Dimensions
	reduced := make([]bool, len(dims))
	for _, a := range reduceAxes {
		reduced[a] = true
	}
	first, last := -1, -1
	for a, d := range dims {
		if reduced[a] && d > 1 {
			if first < 0 {
				first = a
			}
			last = a
		}
	}
	if first < 0 {
		return false // nothing real to reduce; leave it to upstream
	}
	outer, size, inner := 1, 1, 1
	for a, d := range dims {
		switch {
		case a < first:
			if reduced[a] && d > 1 {
				return false
			}
			outer *= d
		case a <= last:
			if !reduced[a] && d > 1 {
				return false // a kept axis inside the reduced block
			}
			size *= d
		default:
			inner *= d
		}
	}
	isMax := opType == backends.OpTypeReduceMax
	switch operand.shape.DType {
	case dtypes.Float32:
		reduceBlock(operand.flat.([]float32), output.flat.([]float32), outer, size, inner, isMax)
	case dtypes.Float64:
		reduceBlock(operand.flat.([]float64), output.flat.([]float64), outer, size, inner, isMax)
	default:
		return false
	}
	return true
}

func reduceBlock[T float32 | float64](in, out []T, outer, size, inner int, isMax bool) {
	out = out[:outer*inner]
	lowest := dtypes.FromGenericsType[T]().LowestValue().(T)
	if inner == 1 {
		for o := range outer {
			row := in[o*size : (o+1)*size]
			if isMax {
				out[o] = maxRow(row, lowest)
			} else {
				out[o] = sumRow(row)
			}
		}
		return
	}
	for o := range outer {
		dst := out[o*inner : (o+1)*inner]
		for i := range dst {
			if isMax {
				dst[i] = lowest
			} else {
				dst[i] = 0
			}
		}
		base := o * size * inner
		for r := range size {
			src := in[base+r*inner : base+(r+1)*inner]
			switch {
			case isMax:
				for i, v := range src {
					dst[i] = max(dst[i], v)
				}
			case addRows(dst, src):
				// SIMD (float32): the same adds in the same order.
			default:
				for i, v := range src {
					dst[i] += v
				}
			}
		}
	}
}

// addRows adds src into dst with vecmath's SIMD Add when they are float32
// and reports whether it did. Each element gets the one add the loop gives
// it, so the bits are the same; bias and norm-weight gradients sum their
// [8,256,256] adjoints this way.
func addRows[T float32 | float64](dst, src []T) bool {
	d, ok := any(dst).([]float32)
	if ok {
		vecmath.Add(d, d, any(src).([]float32))
	}
	return ok
}

// maxRow is the maximum of lowest and row's values, as a sequential scan
// with Go's max gives it (NaN propagates; +0 beats -0): float32 rows use
// vecmath's SIMD scan, float64 rows its plain one, both keeping those
// rules.
func maxRow[T float32 | float64](row []T, lowest T) T {
	if r, ok := any(row).([]float32); ok {
		return any(vecmath.Max(any(lowest).(float32), r)).(T)
	}
	return vecmath.ScanMax(lowest, row)
}

// sumRow sums row: float32 rows with vecmath's SIMD Sum (32 running sums
// in an order fixed by the row's length, so the same bits on every
// machine), float64 rows with four interleaved partial sums combined as
// (s0+s1)+(s2+s3). Both orders are deterministic and round no worse than
// one sequential chain; upstream's chain was latency-bound.
func sumRow[T float32 | float64](row []T) T {
	if r, ok := any(row).([]float32); ok {
		return any(vecmath.Sum(r)).(T)
	}
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(row); i += 4 {
		s0 += row[i]
		s1 += row[i+1]
		s2 += row[i+2]
		s3 += row[i+3]
	}
	for ; i < len(row); i++ {
		s0 += row[i]
	}
	return (s0 + s1) + (s2 + s3)
}
