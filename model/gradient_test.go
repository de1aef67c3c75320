package model

import (
	"math/rand/v2"
	"testing"
)

// TestResponseLogProbsGradient checks d sum(log-probs) / d weight, as the
// trainer builds it, against central finite differences of the float64
// reference forward, for weights in every kind of layer.
func TestResponseLogProbsGradient(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 41)
	ref := newRefModel(t, m)
	rng := rand.New(rand.NewPCG(4, 2))
	const promptLen = 3
	seqs := [][]int{randomIDs(rng, 7, 37), randomIDs(rng, 7, 37)}

	// Graph gradient of the summed response log-probs.
	grads := responseGradients(t, m, seqs, promptLen)
	cols := len(seqs[0])
	// Variables come back in the context's enumeration order.
	byName := map[string][]float32{}
	i := 0
	for v := range m.Context().IterVariables() {
		byName[hfName(v.Scope(), v.Name())] = grads[i]
		i++
	}

	loss := func() float64 {
		sum := 0.0
		for _, seq := range seqs {
			positions, real := make([]int, cols), make([]bool, cols)
			for j := range cols {
				positions[j], real[j] = j, true
			}
			logits := ref.logits(seq, positions, real)
			for j := promptLen; j < cols; j++ {
				logp, _ := logSoftmax(logits[j-1], 1)
				sum += logp[seq[j]]
			}
		}
		return sum
	}
	checks := []struct {
		name  string
		index int
	}{
		{"model.embed_tokens.weight", seqs[0][1]*16 + 3},
		{"model.layers.0.input_layernorm.weight", 5},
		{"model.layers.0.self_attn.q_proj.weight", 17},
		{"model.layers.0.self_attn.q_proj.bias", 9},
		{"model.layers.1.self_attn.k_proj.weight", 100},
		{"model.layers.1.self_attn.v_proj.bias", 2},
		{"model.layers.0.self_attn.o_proj.weight", 33},
		{"model.layers.1.mlp.gate_proj.weight", 200},
		{"model.layers.0.mlp.down_proj.weight", 77},
		{"model.norm.weight", 11},
		{"lm_head.weight", seqs[1][5]*16 + 4},
	}
	const eps = 1e-2
	for _, c := range checks {
		w := ref.w[c.name].data
		orig := w[c.index]
		w[c.index] = orig + eps
		up := loss()
		w[c.index] = orig - eps
		down := loss()
		w[c.index] = orig
		want := (up - down) / (2 * eps)
		got := float64(byName[c.name][c.index])
		if !closeTo(got, want, 2e-3) {
			t.Errorf("d/d %s[%d] = %.5f, finite difference %.5f", c.name, c.index, got, want)
		}
	}
}
