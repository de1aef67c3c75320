package gobackend

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/graph"
)

// attentionBackward builds attention's forward pass and its backward
// pass as the model's gradient does (the softmax's gradient written out):
// out = p·v with p = softmax(q·k + bias), and, for the output's gradient
// dOut, dV = pᵀ·dOut (built first, as autodiff does), dS = p·(dP − Σ dP·p)
// with dP = dOut·vᵀ, dK = dSᵀ·q and dQ = dS·kᵀ. It returns out, dQ, dK,
// dV and dS. With afterOut, the output's gradient is upstream + out, so
// that, as in a train step, it comes after the forward pass; else it is
// upstream.
func attentionBackward(q, k, v, bias, upstream *graph.Node, afterOut bool) (out, dQ, dK, dV, dS *graph.Node) {
	s := graph.DotGeneral(q, []int{4}, []int{0, 1}, k, []int{2}, []int{0, 1}) // [B,KV,T,G,T]
	p := graph.Softmax(graph.Add(s, graph.BroadcastToDims(bias, s.Shape().Dimensions...)), -1)
	out = graph.DotGeneral(p, []int{4}, []int{0, 1}, v, []int{2}, []int{0, 1}) // [B,KV,T,G,hd]
	dOut := upstream
	if afterOut {
		dOut = graph.Add(upstream, out)
	}
	dV = graph.DotGeneral(dOut, []int{2, 3}, []int{0, 1}, p, []int{2, 3}, []int{0, 1}) // [B,KV,hd,T]
	dP := graph.DotGeneral(dOut, []int{4}, []int{0, 1}, v, []int{3}, []int{0, 1})      // [B,KV,T,G,T]
	dS = graph.Mul(p, graph.Sub(dP, graph.ReduceAndKeep(graph.Mul(dP, p), graph.ReduceSum, -1)))
	dK = graph.DotGeneral(dS, []int{2, 3}, []int{0, 1}, q, []int{2, 3}, []int{0, 1}) // [B,KV,T,hd]
	dQ = graph.DotGeneral(dS, []int{4}, []int{0, 1}, k, []int{3}, []int{0, 1})       // [B,KV,T,G,hd]
	return out, dQ, dK, dV, dS
}

// TestAttentionGradFusion runs attention's forward and backward passes
// with and without fusion, in both execution modes, and requires the same
// bits and the fusions expected: the softmax gradient computes the three
// products when only products read it, none when anything else does, and
// not on too few batch items to share among the workers.
func TestAttentionGradFusion(t *testing.T) {
	type n = *graph.Node
	rng := rand.New(rand.NewPCG(35, 36))
	for _, sz := range []struct {
		b, kv, t, g, hd int
		fuses           int64
	}{{2, 2, 37, 2, 8, 1}, {2, 4, 128, 2, 32, 1}, {1, 1, 64, 2, 8, 0}} {
		q := randomTensor(rng, sz.b, sz.kv, sz.t, sz.g, sz.hd)
		k := randomTensor(rng, sz.b, sz.kv, sz.hd, sz.t)
		v := randomTensor(rng, sz.b, sz.kv, sz.t, sz.hd)
		dOut := randomTensor(rng, sz.b, sz.kv, sz.t, sz.g, sz.hd)
		bias := causalBias(sz.b, sz.t)
		for _, tc := range []struct {
			what            string
			fn              any
			fuses, products int64
			probs           int64 // forward products computed with probabilities the gradient reads
		}{
			{"backward", func(q, k, v, bias, dOut n) (n, n, n, n) {
				out, dQ, dK, dV, _ := attentionBackward(q, k, v, bias, dOut, true)
				return out, dQ, dK, dV
			}, sz.fuses, 3 * sz.fuses, 1},
			// The output's product can run where the gradient does, which
			// then computes it too.
			{"output's gradient given", func(q, k, v, bias, dOut n) (n, n, n, n) {
				out, dQ, dK, dV, _ := attentionBackward(q, k, v, bias, dOut, false)
				return out, dQ, dK, dV
			}, sz.fuses, 4 * sz.fuses, 1 - sz.fuses},
			{"other probabilities", func(q, k, v, bias, dOut n) (n, n, n, n) {
				out, dQ, dK, _, _ := attentionBackward(q, k, v, bias, dOut, true)
				p := graph.Softmax(graph.Add(graph.DotGeneral(q, []int{4}, []int{0, 1}, k, []int{2}, []int{0, 1}), graph.BroadcastToDims(bias, sz.b, sz.kv, sz.t, sz.g, sz.t)), -1)
				return out, dQ, dK, graph.DotGeneral(dOut, []int{2, 3}, []int{0, 1}, p, []int{2, 3}, []int{0, 1})
			}, sz.fuses, 2 * sz.fuses, 1},
			{"no values' gradient", func(q, k, v, bias, dOut n) (n, n) {
				_, dQ, dK, _, _ := attentionBackward(q, k, v, bias, dOut, true)
				return dQ, dK
			}, sz.fuses, 2 * sz.fuses, 1},
			{"gradient read elsewhere", func(q, k, v, bias, dOut n) (n, n, n) {
				_, dQ, dK, _, dS := attentionBackward(q, k, v, bias, dOut, true)
				return dQ, dK, dS
			}, 0, 0, 1},
			{"gradient summed", func(q, k, v, bias, dOut n) (n, n) {
				_, dQ, _, _, dS := attentionBackward(q, k, v, bias, dOut, true)
				return dQ, graph.ReduceSum(dS, -1)
			}, 0, 0, 1},
		} {
			for _, mode := range []string{"ops_sequential", "ops_parallel"} {
				name := fmt.Sprintf("%+v %s %s", sz, tc.what, mode)
				f := fusedAndPlain(t, name, mode, tc.fn, q, k, v, bias, dOut)
				if c, p := f.fused.attentionGrad.Load(), f.fused.attentionGradProducts.Load(); c != tc.fuses || p != tc.products {
					t.Errorf("%s: %d attention gradients fused with %d products, want %d with %d", name, c, p, tc.fuses, tc.products)
				}
				if c := f.fused.attentionProbs.Load(); c != tc.probs {
					t.Errorf("%s: %d forward products computed with their probabilities, want %d", name, c, tc.probs)
				}
			}
		}
	}
}
