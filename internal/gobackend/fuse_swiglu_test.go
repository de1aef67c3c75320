package gobackend

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/graph"
)

// TestSwiGLUFusionBitwise runs silu(x)·up in every operand order on many
// lengths (not multiples of the vector width or of the fused block), with
// and without the fusion, and requires the same bits; it checks the fusion
// happened, and did not where silu(x) or σ(x) is read elsewhere.
func TestSwiGLUFusionBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, dims := range [][]int{{1}, {7}, {3, 17}, {2, 1000}, {5, 1023}, {2, 3, 4100}, {8, 256, 768}} {
		x, up := softmaxInput(rng, true, dims...), softmaxInput(rng, true, dims...)
		for _, tc := range []struct {
			what  string
			fn    any
			fuses int64
		}{
			{"(x·σ(x))·up", func(x, up *graph.Node) *graph.Node { return graph.Mul(graph.Mul(x, graph.Sigmoid(x)), up) }, 1},
			{"up·(σ(x)·x)", func(x, up *graph.Node) *graph.Node { return graph.Mul(up, graph.Mul(graph.Sigmoid(x), x)) }, 1},
			{"silu read elsewhere", func(x, up *graph.Node) (*graph.Node, *graph.Node) {
				s := graph.Mul(x, graph.Sigmoid(x))
				return graph.Mul(s, up), s
			}, 0},
			{"σ read elsewhere", func(x, up *graph.Node) (*graph.Node, *graph.Node) {
				sig := graph.Sigmoid(x)
				return graph.Mul(graph.Mul(x, sig), up), sig
			}, 0},
			{"σ of another operand", func(x, up *graph.Node) *graph.Node { return graph.Mul(graph.Mul(x, graph.Sigmoid(up)), up) }, 0},
		} {
			name := fmt.Sprint(dims, " ", tc.what)
			fused, plain := softmaxBackends(t)
			got, want := runGraph(t, fused, tc.fn, x, up), runGraph(t, plain, tc.fn, x, up)
			for i := range want {
				if !sameBits(got[i], want[i]) {
					t.Errorf("%s: output %d differs from the unfused ops", name, i)
				}
			}
			if n := fused.fused.swiglu.Load(); n != tc.fuses {
				t.Errorf("%s: %d fused, want %d", name, n, tc.fuses)
			}
		}
	}
}

// BenchmarkSwiGLU times silu(x)·up over the small benchmark model's MLP
// shape [8,256,768], fused and not.
func BenchmarkSwiGLU(b *testing.B) {
	rng := rand.New(rand.NewPCG(19, 20))
	benchFusedAndNot(b, func(x, up *graph.Node) *graph.Node { return graph.Mul(graph.Mul(x, graph.Sigmoid(x)), up) },
		softmaxInput(rng, false, 8, 256, 768), softmaxInput(rng, false, 8, 256, 768))
}
