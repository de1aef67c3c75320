package model

import (
	"math"
	"testing"
)

// refModel is an independent float64 implementation of the Qwen2 forward
// pass, written straight from the Hugging Face modelling code with plain
// loops. It is the correctness anchor of the GoMLX graphs.
type refModel struct {
	cfg Config
	w   map[string]hostTensor
}

func newRefModel(t testing.TB, m *Model) *refModel {
	t.Helper()
	w, err := m.hostWeights()
	if err != nil {
		t.Fatal(err)
	}
	return &refModel{cfg: m.Config(), w: w}
}

// matVec returns W·x + b for W [out,in] in Hugging Face layout.
func (r *refModel) linear(name string, x []float64, withBias bool) []float64 {
	w := r.w[name+".weight"]
	out, in := w.shape[0], w.shape[1]
	y := make([]float64, out)
	for o := range out {
		s := 0.0
		for i := range in {
			s += float64(w.data[o*in+i]) * x[i]
		}
		if withBias {
			s += float64(r.w[name+".bias"].data[o])
		}
		y[o] = s
	}
	return y
}

func (r *refModel) rmsNorm(name string, x []float64) []float64 {
	ms := 0.0
	for _, v := range x {
		ms += v * v
	}
	ms /= float64(len(x))
	inv := 1 / math.Sqrt(ms+r.cfg.RMSNormEps)
	w := r.w[name].data
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(w[i]) * v * inv
	}
	return y
}

// rope applies rotate_half rotary embedding to every head of x in place.
func (r *refModel) rope(x []float64, heads, pos int) {
	hd := r.cfg.HeadDim
	half := hd / 2
	for h := range heads {
		v := x[h*hd : (h+1)*hd]
		for i := range half {
			freq := float64(pos) / math.Pow(r.cfg.RopeTheta, float64(2*i)/float64(hd))
			c, s := math.Cos(freq), math.Sin(freq)
			a, b := v[i], v[i+half]
			v[i] = a*c - b*s
			v[i+half] = b*c + a*s
		}
	}
}

// logits returns the next-token logits [T][V] of one sequence; real[j]
// false marks padding keys (which no query attends to) and pos gives the
// rotary position of each column.
func (r *refModel) logits(ids []int, pos []int, real []bool) [][]float64 {
	c := r.cfg
	T, D, hd := len(ids), c.HiddenSize, c.HeadDim
	H, KV := c.NumAttentionHeads, c.NumKeyValueHeads
	emb := r.w["model.embed_tokens.weight"].data
	h := make([][]float64, T)
	for t, id := range ids {
		h[t] = make([]float64, D)
		for i := range D {
			h[t][i] = float64(emb[id*D+i])
		}
	}
	for l := range c.NumHiddenLayers {
		p := layerPrefix(l)
		q, k, v := make([][]float64, T), make([][]float64, T), make([][]float64, T)
		for t := range T {
			x := r.rmsNorm(p+"input_layernorm.weight", h[t])
			q[t] = r.linear(p+"self_attn.q_proj", x, true)
			k[t] = r.linear(p+"self_attn.k_proj", x, true)
			v[t] = r.linear(p+"self_attn.v_proj", x, true)
			r.rope(q[t], H, pos[t])
			r.rope(k[t], KV, pos[t])
		}
		for t := range T {
			attn := make([]float64, H*hd)
			for head := range H {
				kvh := head / (H / KV)
				scores := make([]float64, T)
				maxS := math.Inf(-1)
				for j := range T {
					if j > t || !real[j] {
						scores[j] = math.Inf(-1)
						continue
					}
					s := 0.0
					for i := range hd {
						s += q[t][head*hd+i] * k[j][kvh*hd+i]
					}
					scores[j] = s / math.Sqrt(float64(hd))
					maxS = math.Max(maxS, scores[j])
				}
				if math.IsInf(maxS, -1) {
					continue // a padding query that sees nothing; its output is unused
				}
				sum := 0.0
				for j := range T {
					scores[j] = math.Exp(scores[j] - maxS)
					sum += scores[j]
				}
				for j := range T {
					for i := range hd {
						attn[head*hd+i] += scores[j] / sum * v[j][kvh*hd+i]
					}
				}
			}
			o := r.linear(p+"self_attn.o_proj", attn, false)
			for i := range D {
				h[t][i] += o[i]
			}
			x := r.rmsNorm(p+"post_attention_layernorm.weight", h[t])
			gate := r.linear(p+"mlp.gate_proj", x, false)
			up := r.linear(p+"mlp.up_proj", x, false)
			for i := range gate {
				gate[i] = gate[i] / (1 + math.Exp(-gate[i])) * up[i]
			}
			down := r.linear(p+"mlp.down_proj", gate, false)
			for i := range D {
				h[t][i] += down[i]
			}
		}
	}
	head := "lm_head"
	if c.TieWordEmbeddings {
		head = "model.embed_tokens"
	}
	out := make([][]float64, T)
	for t := range T {
		out[t] = r.linear(head, r.rmsNorm("model.norm.weight", h[t]), false)
	}
	return out
}

// logSoftmax returns log softmax(x/temperature) and its entropy.
func logSoftmax(x []float64, temperature float64) (logp []float64, entropy float64) {
	maxX := math.Inf(-1)
	for _, v := range x {
		maxX = math.Max(maxX, v/temperature)
	}
	sum := 0.0
	for _, v := range x {
		sum += math.Exp(v/temperature - maxX)
	}
	logZ := maxX + math.Log(sum)
	logp = make([]float64, len(x))
	for i, v := range x {
		logp[i] = v/temperature - logZ
		entropy -= math.Exp(logp[i]) * logp[i]
	}
	return logp, entropy
}
