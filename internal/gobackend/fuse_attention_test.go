package gobackend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/graph"
)

// TestAttentionFusion runs forward attention, scores, softmax and values,
// on shapes with ragged blocks of rows and on shapes split over the
// workers, with and without fusion, and requires the same bits and the
// fusions expected: the probabilities are folded into the values' product
// only when nothing else reads them.
func TestAttentionFusion(t *testing.T) {
	type n = *graph.Node
	scores := func(q, k n) n { return graph.DotGeneral(q, []int{4}, []int{0, 1}, k, []int{2}, []int{0, 1}) }
	probs := func(q, k, bias n) n {
		s := scores(q, k)
		return graph.Softmax(graph.Add(s, graph.BroadcastToDims(bias, s.Shape().Dimensions...)), -1)
	}
	rng := rand.New(rand.NewPCG(33, 34))
	for _, sz := range []struct{ b, kv, t, g, hd int }{{2, 2, 37, 2, 8}, {2, 4, 128, 2, 32}, {3, 1, 9, 1, 4}} {
		q := randomTensor(rng, sz.b, sz.kv, sz.t, sz.g, sz.hd)
		k := randomTensor(rng, sz.b, sz.kv, sz.hd, sz.t)
		v := randomTensor(rng, sz.b, sz.kv, sz.t, sz.hd)
		bias := causalBias(sz.b, sz.t)
		// Values that keep masked columns from being skipped: a NaN key and
		// an infinite value in the masked tail (the last key, which only the
		// last query sees), and a query large enough to overcome the mask.
		nanKey, infValue, hugeQuery := clone(k), clone(v), clone(q)
		nanKey.flat[sz.t-1] = float32(math.NaN()) // item 0, dim 0, key t-1
		infValue.flat[(2*sz.t-1)*sz.hd] = float32(math.Inf(1))
		for i := range sz.hd {
			hugeQuery.flat[sz.g*sz.hd+i] = 1e9 // item 0, query 1
		}
		fused := int64(1)
		if sz.t*sz.g < softmaxProductMinRows {
			fused = 0 // the scores' product is not folded, so neither is the softmax
		}
		for _, tc := range []struct {
			what  string
			fn    any
			args  []any
			fuses int64
			// probs counts the products computed with probabilities that
			// something else reads too.
			probs int64
		}{
			{"attention", func(q, k, v, bias n) n {
				return graph.DotGeneral(probs(q, k, bias), []int{4}, []int{0, 1}, v, []int{2}, []int{0, 1})
			}, []any{q, k, v, bias}, fused, 0},
			{"no bias", func(q, k, v n) n {
				return graph.DotGeneral(graph.Softmax(scores(q, k), -1), []int{4}, []int{0, 1}, v, []int{2}, []int{0, 1})
			}, []any{q, k, v}, fused, 0},
			{"values transposed", func(q, k, v, bias n) n {
				vt := graph.TransposeAllAxes(v, 0, 1, 3, 2) // [B,KV,hd,T]
				return graph.DotGeneral(probs(q, k, bias), []int{4}, []int{0, 1}, vt, []int{3}, []int{0, 1})
			}, []any{q, k, v, bias}, fused, 0},
			{"NaN key in the masked tail", func(q, k, v, bias n) n {
				return graph.DotGeneral(probs(q, k, bias), []int{4}, []int{0, 1}, v, []int{2}, []int{0, 1})
			}, []any{q, nanKey, v, bias}, fused, 0},
			{"infinite value in the masked tail", func(q, k, v, bias n) n {
				return graph.DotGeneral(probs(q, k, bias), []int{4}, []int{0, 1}, v, []int{2}, []int{0, 1})
			}, []any{q, k, infValue, bias}, fused, 0},
			{"query beyond the mask", func(q, k, v, bias n) n {
				return graph.DotGeneral(probs(q, k, bias), []int{4}, []int{0, 1}, v, []int{2}, []int{0, 1})
			}, []any{hugeQuery, k, v, bias}, fused, 0},
			{"probabilities read twice", func(q, k, v, bias n) (n, n) {
				p := probs(q, k, bias)
				return p, graph.DotGeneral(p, []int{4}, []int{0, 1}, v, []int{2}, []int{0, 1})
			}, []any{q, k, v, bias}, 0, fused},
			{"probabilities read twice, values after them", func(q, k, v, bias n) (n, n) {
				p := probs(q, k, bias)
				v = graph.Add(v, graph.ScalarOne(v.Graph(), v.DType()))
				return p, graph.DotGeneral(p, []int{4}, []int{0, 1}, v, []int{2}, []int{0, 1})
			}, []any{q, k, v, bias}, 0, 0},
			{"values first", func(q, k, v, bias n) n {
				// vᵀ·p: the probabilities are the product's rhs.
				return graph.DotGeneral(v, []int{2}, []int{0, 1}, probs(q, k, bias), []int{4}, []int{0, 1})
			}, []any{q, k, v, bias}, 0, 0},
		} {
			for _, mode := range []string{"ops_sequential", "ops_parallel"} {
				name := fmt.Sprintf("%+v %s %s", sz, tc.what, mode)
				f := fusedAndPlain(t, name, mode, tc.fn, tc.args...)
				if c, p := f.fused.attention.Load(), f.fused.attentionProbs.Load(); c != tc.fuses || p != tc.probs {
					t.Errorf("%s: %d attentions fused and %d with their probabilities, want %d and %d", name, c, p, tc.fuses, tc.probs)
				}
			}
		}
	}
}

// BenchmarkAttention times the small benchmark model's forward attention,
// scores, causal softmax and values over [8,4,256,2,32], fused and not.
func BenchmarkAttention(b *testing.B) {
	rng := rand.New(rand.NewPCG(35, 36))
	q, k, v, bias := randomTensor(rng, 8, 4, 256, 2, 32), randomTensor(rng, 8, 4, 32, 256), randomTensor(rng, 8, 4, 256, 32), causalBias(8, 256)
	benchFusedAndNot(b, func(q, k, v, bias *graph.Node) *graph.Node {
		s := graph.DotGeneral(q, []int{4}, []int{0, 1}, k, []int{2}, []int{0, 1})
		p := graph.Softmax(graph.Add(s, graph.BroadcastToDims(bias, s.Shape().Dimensions...)), -1)
		return graph.DotGeneral(p, []int{4}, []int{0, 1}, v, []int{2}, []int{0, 1})
	}, q, k, v, bias)
}

// clone returns a copy of h.
func clone(h hostTensor) hostTensor {
	return hostTensor{append([]float32(nil), h.flat...), h.dims}
}
