package gobackend

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
)

// TestNarrowProductFusion multiplies by weights converted from int8 and
// bfloat16, with and without fusion, and requires the same bits and the
// fusions expected: decode rows by a weight stored [out, in] (read in
// place, panel by panel), many rows (converted first), a weight whose
// axes need a transposed copy, and a conversion read twice (not fused).
func TestNarrowProductFusion(t *testing.T) {
	type n = *graph.Node
	narrowOf := func(w n, dt dtypes.DType) n {
		if dt == dtypes.Int8 {
			w = graph.Round(graph.Clip(graph.MulScalar(w, 40), graph.Scalar(w.Graph(), w.DType(), -127), graph.Scalar(w.Graph(), w.DType(), 127)))
		}
		return graph.ConvertDType(w, dt)
	}
	rng := rand.New(rand.NewPCG(41, 42))
	for _, dt := range []dtypes.DType{dtypes.Int8, dtypes.BFloat16} {
		wide := func(w n) n { return graph.ConvertDType(narrowOf(w, dt), dtypes.Float32) }
		for _, tc := range []struct {
			what  string
			fn    any
			args  []any
			fuses int64
		}{
			{"one row by [out, in]", func(x, w n) n {
				return graph.DotGeneral(x, []int{1}, nil, wide(w), []int{1}, nil)
			}, []any{randomTensor(rng, 1, 136), randomTensor(rng, 200, 136)}, 1},
			{"a tile of rows by [out, in]", func(x, w n) n {
				return graph.DotGeneral(x, []int{1}, nil, wide(w), []int{1}, nil)
			}, []any{randomTensor(rng, 6, 64), randomTensor(rng, 97, 64)}, 1},
			{"many rows by [in, out]", func(x, w n) n {
				return graph.DotGeneral(x, []int{1}, nil, wide(w), []int{0}, nil)
			}, []any{randomTensor(rng, 40, 33), randomTensor(rng, 33, 50)}, 1},
			{"chunked head", func(x, w n) n {
				return graph.DotGeneral(x, []int{2}, []int{0}, wide(w), []int{2}, []int{0})
			}, []any{randomTensor(rng, 4, 1, 48), randomTensor(rng, 4, 64, 48)}, 1},
			{"panels of columns", func(x, w n) n {
				return graph.DotGeneral(x, []int{2}, nil, wide(w), []int{1}, nil)
			}, []any{randomTensor(rng, 1, 1, 40), randomTensor(rng, 3, 40, 32)}, 1},
			{"panels of columns, several rows", func(x, w n) n {
				return graph.DotGeneral(x, []int{1}, nil, wide(w), []int{1}, nil)
			}, []any{randomTensor(rng, 7, 300), randomTensor(rng, 2, 300, 64)}, 1},
			{"axes that need a copy", func(x, w n) n {
				return graph.DotGeneral(x, []int{1}, nil, wide(w), []int{1}, nil)
			}, []any{randomTensor(rng, 2, 24), randomTensor(rng, 5, 24, 7)}, 1},
			{"conversion read twice", func(x, w n) (n, n) {
				c := wide(w)
				return c, graph.DotGeneral(x, []int{1}, nil, c, []int{1}, nil)
			}, []any{randomTensor(rng, 1, 40), randomTensor(rng, 64, 40)}, 0},
		} {
			for _, mode := range []string{"ops_sequential", "ops_parallel"} {
				name := fmt.Sprintf("%s %s %s", dt, tc.what, mode)
				f := fusedAndPlain(t, name, mode, tc.fn, tc.args...)
				if c := f.fused.narrowProduct.Load(); c != tc.fuses {
					t.Errorf("%s: %d narrow products fused, want %d", name, c, tc.fuses)
				}
			}
		}
	}
}
