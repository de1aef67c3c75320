package gobackend

import (
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// TestBroadcastRunsMatchesIterator checks that the runs visit exactly the
// operand indices upstream's per-element iterators visit, in the same order.
func TestBroadcastRunsMatchesIterator(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		rank := 1 + rng.IntN(5)
		out := make([]int, rank)
		lhs := make([]int, rank)
		rhs := make([]int, rank)
		for a := range rank {
			out[a] = 1 + rng.IntN(4)
			lhs[a], rhs[a] = out[a], out[a]
			if rng.IntN(3) == 0 {
				lhs[a] = 1
			}
			if rng.IntN(3) == 0 {
				rhs[a] = 1
			}
		}
		ls, rs, os := shapes.Make(dtypes.Float32, lhs...), shapes.Make(dtypes.Float32, rhs...), shapes.Make(dtypes.Float32, out...)
		li, ri := newBroadcastIterator(ls, os), newBroadcastIterator(rs, os)
		runs := newBroadcastRuns(ls, rs, os)
		next := 0
		for runs.next() {
			if runs.outIdx != next {
				t.Fatalf("%v %v -> %v: run starts at %d, want %d", lhs, rhs, out, runs.outIdx, next)
			}
			l, r := runs.lhsIdx, runs.rhsIdx
			for o := runs.outIdx; o < runs.outEnd; o++ {
				if wl, wr := li.Next(), ri.Next(); l != wl || r != wr {
					t.Fatalf("%v %v -> %v: output %d reads (%d,%d), want (%d,%d)", lhs, rhs, out, o, l, r, wl, wr)
				}
				l += runs.lhsStep
				r += runs.rhsStep
			}
			next = runs.outEnd
		}
		if next != os.Size() {
			t.Fatalf("%v %v -> %v: runs cover %d of %d outputs", lhs, rhs, out, next, os.Size())
		}
	}
}
