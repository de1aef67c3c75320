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
		operand, outSize := randomReduceOperand(rng, dims, axes)
		shape := operand.shape
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

// randomReduceOperand returns a float32 operand of dims filled with
// normal samples, and the size of its reduction over axes.
func randomReduceOperand(rng *rand.Rand, dims, axes []int) (operand *Buffer, outSize int) {
	shape := shapes.Make(dtypes.Float32, dims...)
	operand = &Buffer{shape: shape, flat: make([]float32, shape.Size())}
	for i := range operand.flat.([]float32) {
		operand.flat.([]float32)[i] = float32(rng.NormFloat64())
	}
	outSize = 1
	for a, d := range dims {
		if !slices.Contains(axes, a) {
			outSize *= d
		}
	}
	return operand, outSize
}

// TestReduceSumOuterAxesBits checks that sums over outer axes (the inner
// axes kept, added a row at a time by vecmath's SIMD Add) have upstream's
// bits: each output element gets the same adds in the same order.
func TestReduceSumOuterAxesBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		dims []int
		axes []int
	}{{[]int{3, 40, 37}, []int{1}}, {[]int{64, 256}, []int{0}}, {[]int{2, 5, 3, 19}, []int{0, 1}}, {[]int{7, 1, 9}, []int{0}}} {
		operand, outSize := randomReduceOperand(rng, tc.dims, tc.axes)
		got, want := &Buffer{flat: make([]float32, outSize)}, &Buffer{flat: make([]float32, outSize)}
		if !reduceFast(backends.OpTypeReduceSum, operand, got, tc.axes) {
			t.Fatalf("dims=%v axes=%v: reduceFast declined", tc.dims, tc.axes)
		}
		execReduceSumGeneric[float32](operand, want, newReduceOutputIterator(tc.dims, tc.axes), dtypes.Float32)
		if g, w := got.flat.([]float32), want.flat.([]float32); !slices.Equal(g, w) {
			t.Errorf("dims=%v axes=%v: sums differ from upstream's bits", tc.dims, tc.axes)
		}
	}
}

// TestReduceMaxLongRows checks ReduceMax over rows long enough for
// vecmath's SIMD scan (its vector body and tail) bit for bit against
// upstream, with NaNs, zeros of both signs and infinities among the values.
func TestReduceMaxLongRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	negZero := float32(math.Copysign(0, -1))
	for _, dims := range [][]int{{3, 257}, {2, 3, 40}, {5, 8}, {1, 1000}} {
		shape := shapes.Make(dtypes.Float32, dims...)
		operand := &Buffer{shape: shape, flat: make([]float32, shape.Size())}
		flat := operand.flat.([]float32)
		for i := range flat {
			switch rng.IntN(40) {
			case 0:
				flat[i] = float32(math.NaN())
			case 1, 2, 3:
				flat[i] = negZero
			case 4:
				flat[i] = float32(math.Inf(-1))
			default:
				flat[i] = -float32(math.Abs(rng.NormFloat64()))
			}
		}
		axes := []int{len(dims) - 1}
		outSize := shape.Size() / dims[len(dims)-1]
		got := &Buffer{flat: make([]float32, outSize)}
		if !reduceFast(backends.OpTypeReduceMax, operand, got, axes) {
			t.Fatalf("%v: reduceFast declined the last axis", dims)
		}
		want := &Buffer{flat: make([]float32, outSize)}
		execReduceMaxGeneric[float32](operand, want, newReduceOutputIterator(dims, axes), dtypes.Float32)
		for i, w := range want.flat.([]float32) {
			g := got.flat.([]float32)[i]
			if math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w) {
				t.Errorf("%v row %d: max %v, upstream %v", dims, i, g, w)
			}
		}
	}
}

// BenchmarkReduceMaxScores is ReduceMax over the attention scores of the
// small benchmark model's train step, [8,4,256,2,256] over the keys.
func BenchmarkReduceMaxScores(b *testing.B) {
	dims := []int{8, 4, 256, 2, 256}
	shape := shapes.Make(dtypes.Float32, dims...)
	operand := &Buffer{shape: shape, flat: make([]float32, shape.Size())}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range operand.flat.([]float32) {
		operand.flat.([]float32)[i] = float32(rng.NormFloat64())
	}
	out := &Buffer{flat: make([]float32, shape.Size()/256)}
	b.SetBytes(int64(4 * shape.Size()))
	for b.Loop() {
		reduceFast(backends.OpTypeReduceMax, operand, out, []int{4})
	}
}
