package gobackend

import (
	"testing"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/stretchr/testify/require"
)

// TestReshapeViewOfParameter: a reshape of a parameter is a view of its
// data (no copy), so nothing downstream may write into it or free it, and
// an output that is such a view must be a copy. The parameter keeps its
// values across executions, whatever the outputs' owners do with theirs.
func TestReshapeViewOfParameter(t *testing.T) {
	exec := graph.MustNewExec(backend, func(x *graph.Node) []*graph.Node {
		r := graph.Reshape(x, 2, 2)
		return []*graph.Node{
			graph.AddScalar(r, 1),             // an op that reuses an owned input in place
			r,                                 // a view as an output
			graph.Reshape(r, 4),               // a view of a view
			graph.Neg(graph.Reshape(r, 1, 4)), // consumed once more
		}
	})
	x := tensors.FromFlatDataAndDimensions([]float32{1, 2, 3, 4}, 4)
	for range 3 {
		outs := exec.MustExec(x)
		require.Equal(t, [][]float32{{2, 3}, {4, 5}}, outs[0].Value())
		require.Equal(t, [][]float32{{1, 2}, {3, 4}}, outs[1].Value())
		require.Equal(t, []float32{1, 2, 3, 4}, outs[2].Value())
		require.Equal(t, [][]float32{{-1, -2, -3, -4}}, outs[3].Value())
		for _, o := range outs {
			tensors.MutableFlatData[float32](o, func(flat []float32) {
				for i := range flat {
					flat[i] = 99
				}
			})
			o.MustFinalizeAll()
		}
		require.Equal(t, []float32{1, 2, 3, 4}, x.Value(), "the parameter changed")
	}
}

// TestReshapeOfIntermediateStillCopies: a reshape of an executor-owned
// intermediate result used again later must not alias it (the result is
// freed and its memory reused once its last use is done).
func TestReshapeOfIntermediateStillCopies(t *testing.T) {
	exec := graph.MustNewExec(backend, func(x *graph.Node) []*graph.Node {
		y := graph.AddScalar(x, 10)
		r := graph.Reshape(y, 2, 2)
		return []*graph.Node{graph.Mul(r, r), graph.Neg(y)}
	})
	for range 3 {
		outs := exec.MustExec([]float32{1, 2, 3, 4})
		require.Equal(t, [][]float32{{121, 144}, {169, 196}}, outs[0].Value())
		require.Equal(t, []float32{-11, -12, -13, -14}, outs[1].Value())
	}
}

// BenchmarkReshapeParameter reshapes a 64 MB parameter and reads one
// element: with the view, the time does not grow with the parameter.
func BenchmarkReshapeParameter(b *testing.B) {
	exec := graph.MustNewExec(backend, func(x *graph.Node) *graph.Node {
		r := graph.Reshape(x, 4096, 4096)
		return graph.Slice(r, graph.AxisRange(0, 1), graph.AxisRange(0, 1))
	})
	x := tensors.FromFlatDataAndDimensions(make([]float32, 4096*4096), 4096*4096)
	exec.MustExec(x)
	b.ResetTimer()
	for range b.N {
		for _, o := range exec.MustExec(x) {
			o.MustFinalizeAll()
		}
	}
}
