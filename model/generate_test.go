package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// fullLogits runs the plain (cache-free) forward pass of the graph over one
// sequence and returns the logits of every position.
func fullLogits(t *testing.T, m *Model, ids []int) [][]float32 {
	t.Helper()
	exec, err := mlctx.NewExec(m.Backend(), m.Context(), func(ctx *mlctx.Context, ids, pos, mask *graph.Node) *graph.Node {
		h, _, _ := m.forward(ctx, ids, pos, attentionBias(causalAllowed(mask)), nil)
		return m.logits(ctx, h)
	})
	if err != nil {
		t.Fatal(err)
	}
	n := len(ids)
	id32, pos, mask := make([]int32, n), make([]int32, n), make([]bool, n)
	for i, id := range ids {
		id32[i], pos[i], mask[i] = int32(id), int32(i), true
	}
	out, err := exec.Exec1(tensors.FromFlatDataAndDimensions(id32, 1, n), tensors.FromFlatDataAndDimensions(pos, 1, n), tensors.FromFlatDataAndDimensions(mask, 1, n))
	if err != nil {
		t.Fatal(err)
	}
	flat := tensors.MustCopyFlatData[float32](out)
	v := m.Config().VocabSize
	rows := make([][]float32, n)
	for i := range rows {
		rows[i] = flat[i*v : (i+1)*v]
	}
	return rows
}

// TestKVCacheMatchesFullForward decodes with the KV cache, rows of
// different prompt lengths in one batch, and compares every step's logits
// with a full forward pass over the whole sequence (graph and float64
// reference).
func TestKVCacheMatchesFullForward(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 21)
	ref := newRefModel(t, m)
	rng := rand.New(rand.NewPCG(1, 1))
	prompts := [][]int{randomIDs(rng, 5, 37), randomIDs(rng, 2, 37), randomIDs(rng, 7, 37)}
	const steps = 6
	m.mu.Lock()
	d := m.newDecoder(prompts, steps)
	m.mu.Unlock()
	defer d.release()
	logits, err := d.prefill()
	if err != nil {
		t.Fatal(err)
	}
	seqs := make([][]int, len(prompts))
	for i, p := range prompts {
		seqs[i] = slices.Clone(p)
	}
	for step := 0; ; step++ {
		for i, seq := range seqs {
			got := logits[i*d.vocab : (i+1)*d.vocab]
			full := fullLogits(t, m, seq)
			n := len(seq)
			pos, real := make([]int, n), make([]bool, n)
			for j := range n {
				pos[j], real[j] = j, true
			}
			want := ref.logits(seq, pos, real)[n-1]
			for v := range got {
				if !closeTo(float64(got[v]), float64(full[n-1][v]), 1e-5) {
					t.Fatalf("step %d row %d token %d: cached logit %.7f, full forward %.7f", step, i, v, got[v], full[n-1][v])
				}
				if !closeTo(float64(got[v]), want[v], 1e-4) {
					t.Fatalf("step %d row %d token %d: cached logit %.7f, reference %.7f", step, i, v, got[v], want[v])
				}
			}
		}
		if step == steps-1 {
			break
		}
		next := make([]int, d.rows)
		for i := range seqs {
			next[i] = rng.IntN(37)
			seqs[i] = append(seqs[i], next[i])
		}
		if logits, err = d.step(next); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGenerateLogProbsMatchLogProbs recomputes the log-probs of greedy and
// sampled generations with the full-sequence LogProbs.
func TestGenerateLogProbsMatchLogProbs(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 22)
	prompts := [][]int{{1, 2, 3}, {4, 5, 6, 7, 8}}
	for _, temperature := range []float64{0, 1, 0.6} {
		gens, err := m.Generate(context.Background(), prompts, SampleOptions{MaxTokens: 5, Temperature: temperature, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range gens {
			if len(g.TokenIDs) != 5 || len(g.LogProbs) != 5 || g.FinishReason != FinishLength {
				t.Fatalf("row %d: %+v, want 5 tokens finishing by length", i, g)
			}
			seq := append(slices.Clone(prompts[i]), g.TokenIDs...)
			// Greedy log-probs are under the unscaled distribution, which is
			// what LogProbs computes for Temperature 0.
			res := mustLogProbs(t, m, Batch{Tokens: Tokens{InputIDs: [][]int{seq}, PromptLen: len(prompts[i])}, Temperature: temperature})
			for j, want := range res.LogProbs[0] {
				if !closeTo(g.LogProbs[j], float64(want), 1e-4) {
					t.Errorf("temperature %g row %d token %d: sampled log-prob %.6f, recomputed %.6f", temperature, i, j, g.LogProbs[j], want)
				}
			}
		}
	}
}

func TestGenerateSeeded(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 23)
	opts := SampleOptions{MaxTokens: 12, Temperature: 1, Seed: 5}
	a, err := m.Generate(context.Background(), [][]int{{1, 2}, {3}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	// Same seed, same row 0, different company in the batch.
	b, err := m.Generate(context.Background(), [][]int{{1, 2}, {9, 9, 9, 9, 9, 9, 9}, {4}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a[0].TokenIDs, b[0].TokenIDs) {
		t.Errorf("same seed and prompt gave %v and %v", a[0].TokenIDs, b[0].TokenIDs)
	}
	opts.Seed = 6
	c, err := m.Generate(context.Background(), [][]int{{1, 2}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(a[0].TokenIDs, c[0].TokenIDs) {
		t.Errorf("seeds 5 and 6 gave the same 12 tokens %v", a[0].TokenIDs)
	}
}

func TestGenerateStops(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 24)
	prompts := [][]int{{1, 2, 3}, {7}}
	greedy, err := m.Generate(context.Background(), prompts, SampleOptions{MaxTokens: 6})
	if err != nil {
		t.Fatal(err)
	}
	// Stopping on row 0's third greedy token ends row 0 there, row 1 runs on
	// unless it meets it too.
	stop := greedy[0].TokenIDs[2]
	gens, err := m.Generate(context.Background(), prompts, SampleOptions{MaxTokens: 6, StopTokens: []int{stop}})
	if err != nil {
		t.Fatal(err)
	}
	if first := slices.Index(greedy[0].TokenIDs, stop); !slices.Equal(gens[0].TokenIDs, greedy[0].TokenIDs[:first+1]) || gens[0].FinishReason != FinishStop {
		t.Errorf("row 0 with stop token %d: %+v, greedy %v", stop, gens[0], greedy[0].TokenIDs)
	}
	want1, reason1 := greedy[1].TokenIDs, FinishLength
	if k := slices.Index(want1, stop); k >= 0 {
		want1, reason1 = want1[:k+1], FinishStop
	}
	if !slices.Equal(gens[1].TokenIDs, want1) || gens[1].FinishReason != reason1 {
		t.Errorf("row 1: %+v, want %v (%s)", gens[1], want1, reason1)
	}
	// The Stop function ends a row after two tokens.
	gens, err = m.Generate(context.Background(), prompts, SampleOptions{MaxTokens: 6, Stop: func(row int, tokens []int) bool {
		return row == 1 && len(tokens) == 2
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(gens[1].TokenIDs) != 2 || gens[1].FinishReason != FinishStop || len(gens[0].TokenIDs) != 6 {
		t.Errorf("Stop func: %+v", gens)
	}
}

// TestGenerateFilters checks that top-k 1 and a tiny top-p both reduce
// sampling to greedy decoding.
func TestGenerateFilters(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 25)
	prompts := [][]int{{3, 1, 4}, {1, 5}}
	greedy, err := m.Generate(context.Background(), prompts, SampleOptions{MaxTokens: 8})
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []SampleOptions{{MaxTokens: 8, Temperature: 1.5, TopK: 1, Seed: 3}, {MaxTokens: 8, Temperature: 1.5, TopP: 1e-9, Seed: 3}} {
		gens, err := m.Generate(context.Background(), prompts, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range gens {
			if !slices.Equal(gens[i].TokenIDs, greedy[i].TokenIDs) {
				t.Errorf("%+v row %d: %v, greedy %v", opts, i, gens[i].TokenIDs, greedy[i].TokenIDs)
			}
			for _, lp := range gens[i].LogProbs {
				if lp != 0 {
					t.Errorf("%+v: log-prob %g of a token sampled from a one-token distribution", opts, lp)
				}
			}
		}
	}
}

func TestGenerateBadInput(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 1)
	tests := []struct {
		name    string
		prompts [][]int
		opts    SampleOptions
	}{
		{"no prompts", nil, SampleOptions{}},
		{"empty prompt", [][]int{{}}, SampleOptions{}},
		{"id outside vocabulary", [][]int{{40}}, SampleOptions{}},
		{"negative temperature", [][]int{{1}}, SampleOptions{Temperature: -1}},
		{"top-p above one", [][]int{{1}}, SampleOptions{TopP: 1.5}},
		{"negative top-k", [][]int{{1}}, SampleOptions{TopK: -1}},
		{"too long", [][]int{{1}}, SampleOptions{MaxTokens: 40000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := m.Generate(context.Background(), tc.prompts, tc.opts); !errors.Is(err, ErrBadInput) {
				t.Fatalf("err = %v, want ErrBadInput", err)
			}
		})
	}
}

func TestGenerateCancelled(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Generate(ctx, [][]int{{1}}, SampleOptions{MaxTokens: 5}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestSamplerFilters checks the host sampler's distribution after
// temperature, top-k and top-p against its definition.
func TestSamplerFilters(t *testing.T) {
	logits := []float32{float32(math.Log(0.5)), float32(math.Log(0.3)), float32(math.Log(0.15)), float32(math.Log(0.05))}
	tests := []struct {
		name string
		s    sampler
		want []float64 // probabilities of each token
	}{
		{"plain", sampler{temperature: 1, topP: 1}, []float64{0.5, 0.3, 0.15, 0.05}},
		{"top-k 2", sampler{temperature: 1, topK: 2, topP: 1}, []float64{0.5 / 0.8, 0.3 / 0.8, 0, 0}},
		{"top-p 0.7", sampler{temperature: 1, topP: 0.7}, []float64{0.5 / 0.8, 0.3 / 0.8, 0, 0}},
		{"top-p 0.9", sampler{temperature: 1, topP: 0.9}, []float64{0.5 / 0.95, 0.3 / 0.95, 0.15 / 0.95, 0}},
		{"top-k 3 then top-p 0.85", sampler{temperature: 1, topK: 3, topP: 0.85}, []float64{0.5 / 0.95, 0.3 / 0.95, 0.15 / 0.95, 0}},
		{"temperature 2", sampler{temperature: 2, topP: 1}, softmaxOf([]float64{math.Log(0.5) / 2, math.Log(0.3) / 2, math.Log(0.15) / 2, math.Log(0.05) / 2})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			const n = 40000
			counts := make([]float64, len(logits))
			for range n {
				token, logp := tc.s.sample(logits, rng)
				counts[token]++
				if !closeTo(math.Exp(logp), tc.want[token], 1e-6) {
					t.Fatalf("token %d reported probability %g, want %g", token, math.Exp(logp), tc.want[token])
				}
			}
			for i, c := range counts {
				// 5 standard deviations of a binomial count.
				sd := math.Sqrt(n * tc.want[i] * (1 - tc.want[i]))
				if math.Abs(c-n*tc.want[i]) > 5*sd+1 {
					t.Errorf("token %d drawn %g times, want about %g", i, c, n*tc.want[i])
				}
			}
		})
	}
}

func softmaxOf(x []float64) []float64 {
	sum := 0.0
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Exp(v)
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

func TestGenerateVocabLimit(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 26)
	gens, err := m.Generate(context.Background(), [][]int{{1}, {2, 3}}, SampleOptions{MaxTokens: 40, Temperature: 3, VocabLimit: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gens {
		for _, id := range g.TokenIDs {
			if id >= 5 {
				t.Fatalf("sampled id %d with VocabLimit 5: %v", id, g.TokenIDs)
			}
		}
	}
}
