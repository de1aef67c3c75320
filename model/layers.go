package model

import (
	"math"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// maskedScore is added to attention scores of keys a query may not see. It
// is finite so that a fully masked row (a padding query) stays NaN-free;
// exp(maskedScore - max) is exactly 0 in float32 for any real score.
const maskedScore = -1e9

// kvMerge combines a block's freshly computed keys and values with what
// came before (the KV cache) and returns the keys and values attention
// should use, which are also the block's new cache. Keys come as
// [B,KV,hd,T] and values as [B,KV,T,hd]: in attention's two products the
// cache is then the right operand with contiguous rows (scores contract
// hd with keys' rows, the output contracts T with values' rows), which the
// matrix kernels read in place. While decoding, with two query rows per
// key head, the transposed layouts ran 2.5-4 times slower.
type kvMerge func(layer int, k, v *graph.Node) (kAll, vAll *graph.Node)

// layerAttention runs one decoder layer's attention: queries q
// [B,T,H,hd], the layer's new keys [B,KV,hd,T] and values [B,KV,T,hd], all
// in the compute dtype; it returns the output [B,T,H·hd] in the compute
// dtype.
type layerAttention func(layer int, q, k, v *graph.Node) *graph.Node

// forward runs the decoder blocks over ids [B,T] at positions [B,T]
// (int32) with the additive attention bias [B,1,T,1,Tk], and returns the
// hidden states [B,T,D] before the final norm, plus each block's keys
// [B,KV,hd,Tk] and values [B,KV,Tk,hd] as merge returned them. The
// hidden states, keys and values are float32 in every compute dtype; with
// bfloat16 (Options.ComputeDType) merge receives float32 keys and values
// and must return float32 ones. The
// projections include their LoRA adapters when ctx has them (AddLoRA) and
// does not have them off (AdaptersOff).
func (m *Model) forward(ctx *mlctx.Context, ids, positions, bias *graph.Node, merge kvMerge) (h *graph.Node, ks, vs []*graph.Node) {
	c := m.cfg
	ks, vs = make([]*graph.Node, c.NumHiddenLayers), make([]*graph.Node, c.NumHiddenLayers)
	// Broadcast once, not once per layer: the pure-Go backend materialises
	// each implicit broadcast.
	bias = broadcastBias(bias, c.NumKeyValueHeads, c.NumAttentionHeads/c.NumKeyValueHeads)
	h = m.forwardWith(ctx, ids, positions, func(layer int, q, k, v *graph.Node) *graph.Node {
		k, v, ks[layer], vs[layer] = m.mergeKV(layer, k, v, merge)
		return attention(q, k, v, bias)
	})
	return h, ks, vs
}

// mergeKV gives a layer's attention its keys and values and the cache its
// float32 copies. The KV cache is float32 whatever the compute dtype (the
// decoders allocate it so): the new keys and values are converted before
// merging and the merged ones back for attention. Without merge the
// float32 copies are outputs only (prefill's cache).
func (m *Model) mergeKV(layer int, k, v *graph.Node, merge kvMerge) (kAttend, vAttend, kCache, vCache *graph.Node) {
	if merge == nil {
		return k, v, convertTo(k, dtypes.Float32), convertTo(v, dtypes.Float32)
	}
	kCache, vCache = merge(layer, convertTo(k, dtypes.Float32), convertTo(v, dtypes.Float32))
	return m.toCompute(kCache), m.toCompute(vCache), kCache, vCache
}

// forwardWith is forward with each layer's attention left to attend.
func (m *Model) forwardWith(ctx *mlctx.Context, ids, positions *graph.Node, attend layerAttention) (h *graph.Node) {
	g := ids.Graph()
	c := m.cfg
	h = graph.Gather(m.weight(ctx, g, "model.embed_tokens.weight"), graph.InsertAxes(ids, -1))
	// Broadcast what every layer shares once, not once per layer: the
	// pure-Go backend materialises each implicit broadcast.
	cos, sin := m.rotaryTables(positions)
	// With mixed precision (Options.ComputeDType) the residual stream h,
	// the norms and the softmax stay float32; what the blocks compute in
	// between is converted to the compute dtype and back. In float32 every
	// conversion below adds no node.
	cos, sin = m.toCompute(cos), m.toCompute(sin)
	headsCos, headsSin := broadcastHeads(cos, c.NumAttentionHeads), broadcastHeads(sin, c.NumAttentionHeads)
	kvCos, kvSin := broadcastHeads(cos, c.NumKeyValueHeads), broadcastHeads(sin, c.NumKeyValueHeads)
	rotate := m.toCompute(rotateHalfMatrix(g, c.HeadDim))
	lora := m.loraFor(ctx, g) // nil without LoRA adapters (or with them off)
	for i := range c.NumHiddenLayers {
		p := layerPrefix(i)
		w := func(name string) *graph.Node { return m.weight(ctx, g, p+name) }
		x := m.toCompute(rmsNorm(h, w("input_layernorm.weight"), c.RMSNormEps))
		q := m.project(ctx, lora, x, p+"self_attn.q_proj", true)
		k := m.project(ctx, lora, x, p+"self_attn.k_proj", true)
		v := m.project(ctx, lora, x, p+"self_attn.v_proj", true)
		q = applyRotary(splitHeads(q, c.NumAttentionHeads), headsCos, headsSin, rotate)
		k = applyRotary(splitHeads(k, c.NumKeyValueHeads), kvCos, kvSin, rotate)
		k = graph.TransposeAllAxes(k, 0, 2, 3, 1)                                 // [B,KV,hd,T]
		v = graph.TransposeAllAxes(splitHeads(v, c.NumKeyValueHeads), 0, 2, 1, 3) // [B,KV,T,hd]
		a := attend(i, q, k, v)
		h = graph.Add(h, convertTo(m.project(ctx, lora, a, p+"self_attn.o_proj", false), h.DType()))
		x = m.toCompute(rmsNorm(h, w("post_attention_layernorm.weight"), c.RMSNormEps))
		gate := m.project(ctx, lora, x, p+"mlp.gate_proj", false)
		up := m.project(ctx, lora, x, p+"mlp.up_proj", false)
		h = graph.Add(h, convertTo(m.project(ctx, lora, graph.Mul(silu(gate), up), p+"mlp.down_proj", false), h.DType()))
	}
	return h
}

// logits applies the final norm and the output head to hidden states
// [..., D], giving [..., V]. Both run in float32 in every compute dtype:
// the head's logits feed log-probs and sampling, and rounding them to
// bfloat16 would shift large logits by up to 1/16 nat (MiniMax-M1
// reported the same: an FP32 head made training and rollout
// probabilities agree).
func (m *Model) logits(ctx *mlctx.Context, h *graph.Node) *graph.Node {
	g := h.Graph()
	h = rmsNorm(h, m.weight(ctx, g, "model.norm.weight"), m.cfg.RMSNormEps)
	head := "lm_head.weight"
	if m.cfg.TieWordEmbeddings {
		head = "model.embed_tokens.weight"
	}
	if wT, scale := m.narrowWeight(ctx, g, head); wT != nil {
		return narrowLinear(h, wT, scale, nil)
	}
	return linear(h, m.weight(ctx, g, head), nil)
}

// rmsNorm is Qwen2RMSNorm: w · x / sqrt(mean(x²) + eps) over the last axis.
func rmsNorm(x, w *graph.Node, eps float64) *graph.Node {
	meanSquare := graph.ReduceAndKeep(graph.Square(x), graph.ReduceMean, -1)
	// Div by Sqrt rather than Mul by Rsqrt: GoMLX v0.26 has no Rsqrt gradient.
	normed := graph.Div(x, graph.Sqrt(graph.AddScalar(meanSquare, eps)))
	return graph.Mul(normed, graph.ExpandLeftToRank(w, x.Rank()))
}

// silu is x·sigmoid(x), the activation of the SwiGLU MLP.
func silu(x *graph.Node) *graph.Node { return graph.Mul(x, graph.Sigmoid(x)) }

// splitHeads reshapes [B,T,heads·hd] into [B,T,heads,hd].
func splitHeads(x *graph.Node, heads int) *graph.Node {
	d := x.Shape().Dimensions
	return graph.Reshape(x, d[0], d[1], heads, d[2]/heads)
}

// rotaryTables returns cos and sin [B,T,1,hd] of the rotary embedding at
// positions [B,T], laid out as Hugging Face's Qwen2RotaryEmbedding does:
// the hd/2 frequencies repeated twice.
func (m *Model) rotaryTables(positions *graph.Node) (cos, sin *graph.Node) {
	g := positions.Graph()
	hd := m.cfg.HeadDim
	invFreq := make([]float32, hd/2)
	for i := range invFreq {
		invFreq[i] = float32(1 / math.Pow(m.cfg.RopeTheta, float64(2*i)/float64(hd)))
	}
	pos := graph.InsertAxes(graph.ConvertDType(positions, dtypes.Float32), -1)                       // [B,T,1]
	freqs := graph.InsertAxes(graph.Mul(pos, graph.ExpandLeftToRank(graph.Const(g, invFreq), 3)), 2) // [B,T,1,hd/2]
	// Each half of the table is the same: cos and sin of hd/2 values (the
	// backend's scalar Cos and Sin cost a decode step about 2%), repeated.
	twice := func(x *graph.Node) *graph.Node { return graph.Concatenate([]*graph.Node{x, x}, -1) } // [B,T,1,hd]
	return twice(graph.Cos(freqs)), twice(graph.Sin(freqs))
}

// rotateHalfMatrix returns the constant R [hd,hd] with x·R = rotate_half(x)
// = concat(-x[hd/2:], x[:hd/2]). Multiplying by ±1 and adding zeros is
// exact, and unlike slicing it has a gradient on every backend.
func rotateHalfMatrix(g *graph.Graph, hd int) *graph.Node {
	half := hd / 2
	r := make([]float32, hd*hd)
	for j := range half {
		r[(j+half)*hd+j] = -1 // out[j] = -x[j+half]
		r[j*hd+j+half] = 1    // out[j+half] = x[j]
	}
	return graph.Reshape(graph.Const(g, r), hd, hd)
}

// broadcastHeads repeats a rotary table [B,T,1,hd] over heads.
func broadcastHeads(table *graph.Node, heads int) *graph.Node {
	d := table.Shape().Dimensions
	return graph.BroadcastToDims(table, d[0], d[1], heads, d[3])
}

// broadcastBias expands an attention bias [B,1,Tq,1,Tk] to the scores'
// shape [B,KV,Tq,G,Tk].
func broadcastBias(bias *graph.Node, kvHeads, group int) *graph.Node {
	d := bias.Shape().Dimensions
	return graph.BroadcastToDims(bias, d[0], kvHeads, d[2], group, d[4])
}

// applyRotary rotates x [B,T,heads,hd] by the position tables [B,T,heads,hd].
func applyRotary(x, cos, sin, rotate *graph.Node) *graph.Node {
	rotated := dotGeneral(x, []int{-1}, nil, rotate, []int{0}, nil)
	return graph.Add(graph.Mul(x, cos), graph.Mul(rotated, sin))
}

// attention is grouped-query scaled dot-product attention: q [B,Tq,H,hd],
// keys [B,KV,hd,Tk], values [B,KV,Tk,hd], bias [B,KV,Tq,G,Tk] additive;
// returns [B,Tq,H·hd]. Query head h reads key/value head h/(H/KV), as
// Hugging Face's repeat_kv.
func attention(q, k, v, bias *graph.Node) *graph.Node {
	qd := q.Shape().Dimensions
	b, tq, heads, hd := qd[0], qd[1], qd[2], qd[3]
	kvHeads := k.Shape().Dimensions[1]
	group := heads / kvHeads
	// Scaled before the transpose: the same products, and the gofast
	// backend computes them in the pass that makes q (the rotary's).
	q = graph.Reshape(graph.MulScalar(q, 1/math.Sqrt(float64(hd))), b, tq, kvHeads, group, hd)
	q = graph.TransposeAllAxes(q, 0, 2, 1, 3, 4)                             // [B,KV,Tq,G,hd]
	scores := dotGeneral(q, []int{4}, []int{0, 1}, k, []int{2}, []int{0, 1}) // [B,KV,Tq,G,Tk]
	// The softmax runs in the bias's float32 whatever the compute dtype.
	probs := softmax(graph.Add(convertTo(scores, bias.DType()), bias))
	out := dotGeneral(convertTo(probs, v.DType()), []int{4}, []int{0, 1}, v, []int{2}, []int{0, 1}) // [B,KV,Tq,G,hd]
	out = graph.TransposeAllAxes(out, 0, 2, 1, 3, 4)
	return graph.Reshape(out, b, tq, heads*hd)
}

// softmax is graph.Softmax over the last axis with its gradient written
// out, dx = p·(v − Σ v·p): four passes over the scores. Autodiff through
// Softmax's ops (Div of Exp by a broadcast sum) built about ten, each over
// the whole [B,KV,Tq,G,Tk] tensor. The forward ops are Softmax's own, so
// the values are unchanged.
func softmax(x *graph.Node) *graph.Node {
	var p *graph.Node
	return withGradient(
		func(in []*graph.Node) *graph.Node {
			p = graph.Softmax(in[0], -1)
			return p
		},
		func(v *graph.Node, _ int) *graph.Node {
			return graph.Mul(p, graph.Sub(v, graph.ReduceAndKeep(graph.Mul(v, p), graph.ReduceSum, -1)))
		},
		x)
}

// attentionBias returns the additive bias [B,1,Tq,1,Tk] that lets query i
// see key j when allowed [B,Tq,Tk] is true.
func attentionBias(allowed *graph.Node) *graph.Node {
	g := allowed.Graph()
	bias := graph.Where(allowed, graph.ScalarZero(g, dtypes.Float32), graph.Scalar(g, dtypes.Float32, maskedScore))
	d := allowed.Shape().Dimensions
	return graph.Reshape(bias, d[0], 1, d[1], 1, d[2])
}

// causalAllowed returns allowed [B,T,T]: query i sees key j iff j <= i and
// key j is a real token (keyValid [B,T] bool).
func causalAllowed(keyValid *graph.Node) *graph.Node {
	g := keyValid.Graph()
	d := keyValid.Shape().Dimensions
	b, t := d[0], d[1]
	square := shapes.Make(dtypes.Int32, t, t)
	causal := graph.LessOrEqual(graph.Iota(g, square, 1), graph.Iota(g, square, 0)) // [Tq,Tk]: k <= q
	causal = graph.BroadcastToDims(graph.InsertAxes(causal, 0), b, t, t)
	valid := graph.BroadcastToDims(graph.InsertAxes(keyValid, 1), b, t, t)
	return graph.LogicalAnd(causal, valid)
}

// asBoolMask converts an attention mask of any dtype (1/0 or bool) to bool.
func asBoolMask(mask *graph.Node) *graph.Node {
	if mask.DType() == dtypes.Bool {
		return mask
	}
	return graph.NotEqual(mask, graph.ScalarZero(mask.Graph(), mask.DType()))
}

// narrowWeight returns, inside a sampling graph with narrow weights, the
// narrow copy [in, out] of the weight named name and, for int8, its
// per-output scales; nil when ctx has no narrow copy (float32 sampling,
// training, log-probs).
func (m *Model) narrowWeight(ctx *mlctx.Context, g *graph.Graph, name string) (wT, scale *graph.Node) {
	scope, vname := variableScope(name)
	v := ctx.GetVariableByScopeAndName(scope, vname+narrowSuffix)
	if v == nil {
		return nil, nil
	}
	wT = v.ValueGraph(g)
	if s := ctx.GetVariableByScopeAndName(scope, vname+scaleSuffix); s != nil {
		scale = s.ValueGraph(g)
	}
	return wT, scale
}
