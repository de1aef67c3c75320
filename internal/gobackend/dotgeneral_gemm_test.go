package gobackend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// TestDotGeneralGemm checks the float32 GEMM path against the float64 path
// (upstream's code) on the axis layouts models produce: plain and transposed
// matmuls, attention with heads before or after the sequence axis (the latter
// needs a transposing copy), out-of-order batch axes, several or reversed
// contracting axes, and sizes beyond gemm's blocking.
func TestDotGeneralGemm(t *testing.T) {
	type op struct {
		dims     []int
		contract []int
		batch    []int
	}
	cases := []struct{ lhs, rhs op }{
		{op{[]int{5, 7}, []int{1}, nil}, op{[]int{7, 3}, []int{0}, nil}},
		{op{[]int{7, 5}, []int{0}, nil}, op{[]int{3, 7}, []int{1}, nil}},
		{op{[]int{2, 4, 17, 8}, []int{3}, []int{0, 1}}, op{[]int{2, 4, 19, 8}, []int{3}, []int{0, 1}}},
		{op{[]int{2, 4, 17, 19}, []int{3}, []int{0, 1}}, op{[]int{2, 4, 19, 8}, []int{2}, []int{0, 1}}},
		{op{[]int{2, 17, 4, 8}, []int{3}, []int{0, 2}}, op{[]int{2, 19, 4, 8}, []int{3}, []int{0, 2}}},
		{op{[]int{3, 2, 5, 6}, []int{3}, []int{1, 0}}, op{[]int{3, 2, 6, 7}, []int{2}, []int{1, 0}}},
		{op{[]int{4, 3, 5}, []int{1, 2}, nil}, op{[]int{3, 5, 6}, []int{0, 1}, nil}},
		{op{[]int{4, 3, 5}, []int{2, 1}, nil}, op{[]int{5, 3, 6}, []int{0, 1}, nil}},
		{op{[]int{1, 1, 33}, []int{2}, nil}, op{[]int{33, 65}, []int{0}, nil}},
		{op{[]int{2, 3, 1, 33}, []int{3}, []int{0}}, op{[]int{2, 33, 1, 9}, []int{1}, []int{0}}},
		{op{[]int{2, 130, 300}, []int{2}, nil}, op{[]int{300, 70}, []int{0}, nil}},
		{op{[]int{8, 3, 256}, []int{2}, nil}, op{[]int{256, 100}, []int{0}, nil}},
	}
	rng := rand.New(rand.NewPCG(1, 1))
	random := func(dims []int) *tensors.Tensor {
		flat := make([]float32, shapes.Make(dtypes.Float32, dims...).Size())
		for i := range flat {
			flat[i] = float32(rng.NormFloat64())
		}
		return tensors.FromFlatDataAndDimensions(flat, dims...)
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v%v%v_x_%v%v%v", c.lhs.dims, c.lhs.contract, c.lhs.batch, c.rhs.dims, c.rhs.contract, c.rhs.batch), func(t *testing.T) {
			lhs, rhs := random(c.lhs.dims), random(c.rhs.dims)
			got := graph.MustExecOnce(backend, func(l, r *graph.Node) *graph.Node {
				return graph.DotGeneral(l, c.lhs.contract, c.lhs.batch, r, c.rhs.contract, c.rhs.batch)
			}, lhs, rhs)
			want := graph.MustExecOnce(backend, func(l, r *graph.Node) *graph.Node {
				l, r = graph.ConvertDType(l, dtypes.Float64), graph.ConvertDType(r, dtypes.Float64)
				return graph.DotGeneral(l, c.lhs.contract, c.lhs.batch, r, c.rhs.contract, c.rhs.batch)
			}, lhs, rhs)
			if !got.Shape().EqualDimensions(want.Shape()) {
				t.Fatalf("shape %s, want %s", got.Shape(), want.Shape())
			}
			k := 1
			for _, axis := range c.lhs.contract {
				k *= c.lhs.dims[axis]
			}
			gotFlat := tensors.MustCopyFlatData[float32](got)
			wantFlat := tensors.MustCopyFlatData[float64](want)
			for i, w := range wantFlat {
				if d := math.Abs(float64(gotFlat[i]) - w); !(d <= 1e-5*float64(k)*(1+math.Abs(w))) {
					t.Fatalf("element %d: got %g, want %g", i, gotFlat[i], w)
				}
			}
		})
	}
}

func TestDgAxesStrides(t *testing.T) {
	for _, c := range []struct {
		dims                []int
		contract, batch     []int
		wantB, wantC, wantK int
		ok                  bool
	}{
		{[]int{5, 7}, []int{1}, nil, 0, 7, 1, true},
		{[]int{7, 5}, []int{0}, nil, 0, 1, 5, true},
		{[]int{2, 4, 17, 8}, []int{3}, []int{0, 1}, 17 * 8, 8, 1, true},
		{[]int{2, 17, 4, 8}, []int{3}, []int{0, 2}, 0, 0, 0, false},
		{[]int{3, 2, 5}, []int{2}, []int{1, 0}, 0, 0, 0, false},
		{[]int{1, 2, 5}, []int{2}, []int{1, 0}, 5, 0, 1, true}, // size-1 axes do not matter
		{[]int{4, 3, 5}, []int{1, 2}, nil, 0, 15, 1, true},
		{[]int{4, 3, 5}, []int{2, 1}, nil, 0, 0, 0, false},
	} {
		b, cr, k, ok := dgAxesStrides(shapes.Make(dtypes.Float32, c.dims...), c.contract, c.batch)
		if ok != c.ok || (ok && (b != c.wantB || cr != c.wantC || k != c.wantK)) {
			t.Errorf("%v c=%v b=%v: got (%d,%d,%d,%v), want (%d,%d,%d,%v)", c.dims, c.contract, c.batch, b, cr, k, ok, c.wantB, c.wantC, c.wantK, c.ok)
		}
	}
}
