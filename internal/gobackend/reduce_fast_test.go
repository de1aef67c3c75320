package gobackend

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// TestReduceFastMatchesUpstream checks reduceFast against upstream's
// iterator-based reductions (max bit for bit, sums to rounding), and that it declines reductions over
// axes that are not one contiguous block.
func TestReduceFastMatchesUpstream(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var applied, declined int
	for range 400 {
		rank := 1 + rng.IntN(4)
		dims := make([]int, rank)
		for a := range dims {
			dims[a] = 1 + rng.IntN(5)
		}
		var axes []int
		for a := range rank {
			if rng.IntN(2) == 0 {
				axes = append(axes, a)
			}
		}
		if len(axes) == 0 {
			continue
		}
		shape := shapes.Make(dtypes.Float32, dims...)
		operand := &Buffer{shape: shape, flat: make([]float32, shape.Size())}
		for i := range operand.flat.([]float32) {
			operand.flat.([]float32)[i] = float32(rng.NormFloat64())
		}
		outSize := 1
		for a, d := range dims {
			if !slices.Contains(axes, a) {
				outSize *= d
			}
		}
		for _, op := range []backends.OpType{backends.OpTypeReduceSum, backends.OpTypeReduceMax} {
			got := &Buffer{flat: make([]float32, outSize)}
			if !reduceFast(op, operand, got, axes) {
				declined++
				continue
			}
			applied++
			want := &Buffer{flat: make([]float32, outSize)}
			it := newReduceOutputIterator(dims, axes)
			if op == backends.OpTypeReduceSum {
				execReduceSumGeneric[float32](operand, want, it, dtypes.Float32)
			} else {
				execReduceMaxGeneric[float32](operand, want, it, dtypes.Float32)
			}
			g, w := got.flat.([]float32), want.flat.([]float32)
			if op == backends.OpTypeReduceMax && !slices.Equal(g, w) {
				t.Fatalf("%s dims=%v axes=%v: got %v, want %v (bit-identical)", op, dims, axes, g, w)
			}
			for i := range w {
				// Sums may differ in rounding (partial sums): a few ulps of
				// the values' magnitude (normal samples, at most 5^4 terms).
				if math.Abs(float64(g[i]-w[i])) > 1e-5*float64(shape.Size()) {
					t.Fatalf("%s dims=%v axes=%v: element %d got %g, want %g", op, dims, axes, i, g[i], w[i])
				}
			}
		}
	}
	if applied == 0 || declined == 0 {
		t.Fatalf("applied %d, declined %d: both paths should be exercised", applied, declined)
	}
}
