package gobackend

import "github.com/gomlx/gomlx/pkg/core/shapes"

// broadcastRuns walks a broadcasting binary op's output in runs: stretches
// of consecutive output elements over which each operand's index advances
// by a constant step (1 where it has the data, 0 where it is broadcast). It
// replaces upstream's per-element broadcastIterator in the generated binary
// ops (gofast change): the odometer then runs once per run instead of once
// per element, and the inner loop is a plain strided loop. The visiting
// order, and so every result, is the same as upstream's.
type broadcastRuns struct {
	dims                   []int // output dims outside the run (size-1 axes dropped)
	lhsStrides, rhsStrides []int // operand strides on those axes; 0 where broadcast
	idx                    []int

	runLen, lhsStep, rhsStep int
	total                    int
	started                  bool

	// The current run: output indices [outIdx, outEnd), operands starting at
	// lhsIdx and rhsIdx.
	outIdx, outEnd, lhsIdx, rhsIdx int
}

// newBroadcastRuns prepares the runs of outShape for operands of the same
// rank whose dimensions are either outShape's or 1.
func newBroadcastRuns(lhsShape, rhsShape, outShape shapes.Shape) *broadcastRuns {
	rank := outShape.Rank()
	if lhsShape.Rank() != rank || rhsShape.Rank() != rank {
		panicf("broadcastRuns: rank mismatch lhs=%s, rhs=%s, output=%s", lhsShape, rhsShape, outShape)
	}
	ls, rs := broadcastStrides(lhsShape, outShape), broadcastStrides(rhsShape, outShape)
	r := &broadcastRuns{runLen: 1, total: outShape.Size()}
	// Grow the run outwards from the innermost axis while both operands keep
	// a constant step across the merged axes.
	axis := rank - 1
	for ; axis >= 0; axis-- {
		d := outShape.Dimensions[axis]
		if d == 1 {
			continue
		}
		if r.runLen == 1 {
			r.lhsStep, r.rhsStep = ls[axis], rs[axis]
		} else if ls[axis] != r.lhsStep*r.runLen || rs[axis] != r.rhsStep*r.runLen {
			break
		}
		r.runLen *= d
	}
	for a := 0; a <= axis; a++ {
		if outShape.Dimensions[a] == 1 {
			continue
		}
		r.dims = append(r.dims, outShape.Dimensions[a])
		r.lhsStrides = append(r.lhsStrides, ls[a])
		r.rhsStrides = append(r.rhsStrides, rs[a])
	}
	r.idx = make([]int, len(r.dims))
	return r
}

// broadcastStrides returns operand's row-major strides, with 0 on the axes
// it is broadcast along.
func broadcastStrides(operand, out shapes.Shape) []int {
	strides := make([]int, operand.Rank())
	s := 1
	for axis := operand.Rank() - 1; axis >= 0; axis-- {
		if operand.Dimensions[axis] != out.Dimensions[axis] {
			strides[axis] = 0
		} else {
			strides[axis] = s
		}
		s *= operand.Dimensions[axis]
	}
	return strides
}

// next moves to the next run; it returns false when the output is covered.
func (r *broadcastRuns) next() bool {
	if !r.started {
		r.started = true
		r.outEnd = r.runLen
		return r.total > 0
	}
	r.outIdx = r.outEnd
	if r.outIdx >= r.total {
		return false
	}
	r.outEnd += r.runLen
	for a := len(r.dims) - 1; a >= 0; a-- {
		r.idx[a]++
		r.lhsIdx += r.lhsStrides[a]
		r.rhsIdx += r.rhsStrides[a]
		if r.idx[a] < r.dims[a] {
			break
		}
		r.idx[a] = 0
		r.lhsIdx -= r.lhsStrides[a] * r.dims[a]
		r.rhsIdx -= r.rhsStrides[a] * r.dims[a]
	}
	return true
}
