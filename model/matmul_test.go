package model

import (
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// TestDotGeneralGradient checks the custom gradient against GoMLX's stock
// DotGeneral gradient for several axis layouts.
func TestDotGeneralGradient(t *testing.T) {
	backend, err := NewBackend("")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		lhsDims []int
		lc, lb  []int
		rhsDims []int
		rc, rb  []int
	}{
		{"linear", []int{2, 3, 4}, []int{2}, nil, []int{5, 4}, []int{1}, nil},
		{"matmul", []int{3, 4}, []int{1}, nil, []int{4, 5}, []int{0}, nil},
		{"attention scores", []int{2, 3, 2, 2, 4}, []int{4}, []int{0, 2}, []int{2, 5, 2, 4}, []int{3}, []int{0, 2}},
		{"attention values", []int{2, 2, 3, 2, 5}, []int{4}, []int{0, 1}, []int{2, 5, 2, 4}, []int{1}, []int{0, 2}},
		{"two contracting axes, swapped", []int{3, 2, 4}, []int{2, 0}, nil, []int{4, 5, 3}, []int{0, 2}, nil},
		{"batch last", []int{4, 3, 2}, []int{0}, []int{2}, []int{2, 4, 5}, []int{1}, []int{0}},
		{"outer product", []int{3}, nil, nil, []int{2}, nil, nil},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(dims []int) *tensors.Tensor {
		n := 1
		for _, d := range dims {
			n *= d
		}
		data := make([]float32, n)
		for i := range data {
			data[i] = float32(rng.NormFloat64())
		}
		return tensors.FromFlatDataAndDimensions(data, dims...)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lhsT, rhsT := random(tc.lhsDims), random(tc.rhsDims)
			grads := func(fast bool) [][]float32 {
				exec, err := graph.NewExec(backend, func(lhs, rhs *graph.Node) []*graph.Node {
					var out *graph.Node
					if fast {
						out = dotGeneral(lhs, tc.lc, tc.lb, rhs, tc.rc, tc.rb)
					} else {
						out = graph.DotGeneral(lhs, tc.lc, tc.lb, rhs, tc.rc, tc.rb)
					}
					// A non-uniform weighting, so every output element matters.
					weights := graph.Sin(graph.IotaFull(lhs.Graph(), out.Shape()))
					loss := graph.ReduceAllSum(graph.Mul(out, weights))
					return append([]*graph.Node{out}, graph.Gradient(loss, lhs, rhs)...)
				})
				if err != nil {
					t.Fatal(err)
				}
				outs, err := exec.Exec(lhsT, rhsT)
				if err != nil {
					t.Fatal(err)
				}
				return flatFloats(outs)
			}
			want, got := grads(false), grads(true)
			for k, what := range []string{"output", "d/dlhs", "d/drhs"} {
				if len(got[k]) != len(want[k]) {
					t.Fatalf("%s: %d values, want %d", what, len(got[k]), len(want[k]))
				}
				for i := range want[k] {
					if !closeTo(float64(got[k][i]), float64(want[k][i]), 1e-5) {
						t.Fatalf("%s[%d] = %g, stock gradient %g", what, i, got[k][i], want[k][i])
					}
				}
			}
		})
	}
}

func TestOutputChunks(t *testing.T) {
	for _, tc := range []struct{ rows, out, want int }{
		{8, 512, 1},      // small enough
		{64, 4096, 1},    // enough rows to fill blocks
		{8, 4096, 2},     // 32768 outputs: two chunks of 16384
		{8, 151936, 128}, // Qwen's vocabulary: 2^7 · 1187
		{3, 40009, 1},    // prime: no even split
	} {
		if got := outputChunks(tc.rows, tc.out); got != tc.want {
			t.Errorf("outputChunks(%d, %d) = %d, want %d", tc.rows, tc.out, got, tc.want)
		}
	}
}

// TestChunkedLinear compares the chunked product (and its gradients) with
// the plain one.
func TestChunkedLinear(t *testing.T) {
	backend, err := NewBackend("")
	if err != nil {
		t.Fatal(err)
	}
	const rows, in, out = 5, 8, 4096 // 20480 outputs: 2 chunks
	if outputChunks(rows, out) < 2 {
		t.Fatal("shape does not trigger chunking")
	}
	rng := rand.New(rand.NewPCG(3, 3))
	random := func(n int) []float32 {
		data := make([]float32, n)
		for i := range data {
			data[i] = float32(rng.NormFloat64())
		}
		return data
	}
	x := tensors.FromFlatDataAndDimensions(random(rows*in), 1, rows, in)
	w := tensors.FromFlatDataAndDimensions(random(out*in), out, in)
	run := func(chunked bool) [][]float32 {
		exec, err := graph.NewExec(backend, func(x, w *graph.Node) []*graph.Node {
			var y *graph.Node
			if chunked {
				y = linear(x, w, nil)
			} else {
				y = dotGeneral(x, []int{-1}, nil, w, []int{1}, nil)
			}
			loss := graph.ReduceAllSum(graph.Mul(y, graph.Cos(graph.IotaFull(x.Graph(), y.Shape()))))
			return append([]*graph.Node{y}, graph.Gradient(loss, x, w)...)
		})
		if err != nil {
			t.Fatal(err)
		}
		outs, err := exec.Exec(x, w)
		if err != nil {
			t.Fatal(err)
		}
		return flatFloats(outs)
	}
	want, got := run(false), run(true)
	for k, what := range []string{"output", "d/dx", "d/dw"} {
		for i := range want[k] {
			if !closeTo(float64(got[k][i]), float64(want[k][i]), 1e-5) {
				t.Fatalf("%s[%d] = %g, want %g", what, i, got[k][i], want[k][i])
			}
		}
	}
}
