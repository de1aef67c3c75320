package gobackend

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/graph"
)

// randomTensor returns normal values of the given dimensions.
func randomTensor(rng *rand.Rand, dims ...int) hostTensor {
	n := 1
	for _, d := range dims {
		n *= d
	}
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return hostTensor{x, dims}
}

// causalBias returns an attention bias [b,1,t,1,t]: 0 where query i may
// see key j <= i, -1e9 elsewhere, and a fully masked first query of the
// second row (a left-padded prompt).
func causalBias(b, t int) hostTensor {
	x := make([]float32, b*t*t)
	for r := range b {
		for i := range t {
			for j := range t {
				if j > i || (r == 1 && i == 0) {
					x[(r*t+i)*t+j] = -1e9
				}
			}
		}
	}
	return hostTensor{x, []int{b, 1, t, 1, t}}
}

// TestSoftmaxProductFusion runs attention's scores and softmax on shapes
// with ragged blocks of rows and on shapes split over the workers, with
// and without fusion, and requires the same bits and the fusions expected.
func TestSoftmaxProductFusion(t *testing.T) {
	type n = *graph.Node
	scores := func(q, k n) n { return graph.DotGeneral(q, []int{4}, []int{0, 1}, k, []int{2}, []int{0, 1}) }
	rng := rand.New(rand.NewPCG(27, 28))
	for _, sz := range []struct{ b, kv, t, g, hd int }{{2, 2, 37, 2, 8}, {2, 4, 128, 2, 32}, {3, 1, 9, 1, 4}} {
		q := randomTensor(rng, sz.b, sz.kv, sz.t, sz.g, sz.hd)
		qByToken := randomTensor(rng, sz.b, sz.t, sz.kv, sz.g, sz.hd)
		k := randomTensor(rng, sz.b, sz.kv, sz.hd, sz.t)
		v := randomTensor(rng, sz.b, sz.kv, sz.t, sz.hd)
		bias := causalBias(sz.b, sz.t)
		full := randomTensor(rng, sz.b, sz.kv, sz.t, sz.g, sz.t)
		fused := int64(1)
		if sz.t*sz.g < softmaxProductMinRows {
			fused = 0 // too few rows a batch item
		}
		broadcast := func(bias, like n) n { return graph.BroadcastToDims(bias, like.Shape().Dimensions...) }
		for _, tc := range []struct {
			what  string
			fn    any
			args  []any
			fuses int64
		}{
			{"attention", func(q, k, v, bias n) n {
				s := scores(q, k)
				p := graph.Softmax(graph.Add(s, broadcast(bias, s)), -1)
				return graph.DotGeneral(p, []int{4}, []int{0, 1}, v, []int{2}, []int{0, 1})
			}, []any{q, k, v, bias}, fused},
			{"no addend", func(q, k n) n { return graph.Softmax(scores(q, k), -1) }, []any{q, k}, fused},
			{"full addend first", func(q, k, z n) n { return graph.Softmax(graph.Add(z, scores(q, k)), -1) }, []any{q, k, full}, fused},
			{"probabilities read twice", func(q, k, v, bias n) (n, n) {
				s := scores(q, k)
				p := graph.Softmax(graph.Add(s, broadcast(bias, s)), -1)
				return p, graph.DotGeneral(p, []int{4}, []int{0, 1}, v, []int{2}, []int{0, 1})
			}, []any{q, k, v, bias}, fused},
			{"batched matrices", func(x, y n) n {
				// [B·KV, T·G, hd]·[B·KV, hd, T]: the product is the softmax's operand.
				m := graph.Reshape(x, sz.b*sz.kv, sz.t*sz.g, sz.hd)
				return graph.Softmax(graph.DotGeneral(m, []int{2}, []int{0}, graph.Reshape(y, sz.b*sz.kv, sz.hd, sz.t), []int{1}, []int{0}), -1)
			}, []any{q, k}, fused},
			{"softmax gradient", func(p, dOut, v n) n {
				// dP = dOut·vᵀ, then p·(dP − Σ dP·p) as the model writes it.
				dP := graph.DotGeneral(dOut, []int{4}, []int{0, 1}, v, []int{3}, []int{0, 1})
				return graph.Mul(p, graph.Sub(dP, graph.ReduceAndKeep(graph.Mul(dP, p), graph.ReduceSum, -1)))
			}, []any{full, q, v}, fused},
			{"softmax gradient, v read elsewhere", func(p, dOut, v n) (n, n) {
				dP := graph.DotGeneral(dOut, []int{4}, []int{0, 1}, v, []int{3}, []int{0, 1})
				return graph.Mul(p, graph.Sub(dP, graph.ReduceAndKeep(graph.Mul(dP, p), graph.ReduceSum, -1))), dP
			}, []any{full, q, v}, 0},
			{"scores read elsewhere", func(q, k, bias n) (n, n) {
				s := scores(q, k)
				return graph.Softmax(graph.Add(s, broadcast(bias, s)), -1), s
			}, []any{q, k, bias}, 0},
			{"queries by token (copied to multiply)", func(q, k, bias n) n {
				s := graph.DotGeneral(q, []int{4}, []int{0, 2}, k, []int{2}, []int{0, 1}) // [B,KV,T,G,T]
				return graph.Softmax(graph.Add(s, broadcast(bias, s)), -1)
			}, []any{qByToken, k, bias}, fused},
		} {
			for _, mode := range []string{"ops_sequential", "ops_parallel"} {
				name := fmt.Sprintf("%+v %s %s", sz, tc.what, mode)
				f := fusedAndPlain(t, name, mode, tc.fn, tc.args...)
				if c := f.fused.softmaxProduct.Load(); c != tc.fuses {
					t.Errorf("%s: %d products fused, want %d", name, c, tc.fuses)
				}
			}
		}
	}
}

// BenchmarkSoftmaxProduct times the small benchmark model's attention
// scores and softmax, [8,4,256,2,32]·[8,4,32,256] plus the causal bias,
// fused and not.
func BenchmarkSoftmaxProduct(b *testing.B) {
	rng := rand.New(rand.NewPCG(29, 30))
	q, k, bias := randomTensor(rng, 8, 4, 256, 2, 32), randomTensor(rng, 8, 4, 32, 256), causalBias(8, 256)
	benchFusedAndNot(b, func(q, k, bias *graph.Node) *graph.Node {
		s := graph.DotGeneral(q, []int{4}, []int{0, 1}, k, []int{2}, []int{0, 1})
		return graph.Softmax(graph.Add(s, graph.BroadcastToDims(bias, s.Shape().Dimensions...)), -1)
	}, q, k, bias)
}
