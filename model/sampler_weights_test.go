package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/org/agentevolver/tokenizer"
)

// asSampled returns a float32-sampling model with m's weights, every
// matrix weight replaced by the float32 numbers m's narrow sampler
// multiplies by: rounded to bfloat16, or an int8 value times its row's
// scale.
func asSampled(t *testing.T, m *Model) *Model {
	t.Helper()
	ref, err := New(m.Config(), 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	narrow := newSamplerVars(m.SamplerWeights(), m.Config()).narrow
	for v := range m.Context().IterVariables() {
		value, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		w, err := tensors.CopyFlatData[float32](value)
		if err != nil {
			t.Fatal(err)
		}
		if narrow[v.ScopeAndName()] {
			rows, cols := v.Shape().Dimensions[0], v.Shape().Dimensions[1]
			switch m.SamplerWeights() {
			case SamplerBFloat16:
				for i, x := range w {
					w[i] = math.Float32frombits(uint32(bfloat16Bits(x)) << 16)
				}
			case SamplerInt8:
				layout := newNarrowLayout(rows, cols)
				q, scales := make([]int8, len(w)), make([]float32, rows)
				quantizeRows(q, scales, w, layout, 0, rows)
				for i := range w {
					r, c := i/cols, i%cols
					w[i] = float32(q[layout.at(r, c)]) * scales[r]
				}
			}
		}
		rv := ref.Context().GetVariableByScopeAndName(v.Scope(), v.Name())
		if err := rv.SetValue(tensors.FromFlatDataAndDimensions(w, v.Shape().Dimensions...)); err != nil {
			t.Fatal(err)
		}
	}
	return ref
}

func generateBoth(t *testing.T, m, ref *Model, prompts [][]int, opts SampleOptions) (got, want []Generation) {
	t.Helper()
	got, err := m.Generate(context.Background(), prompts, opts)
	if err != nil {
		t.Fatal(err)
	}
	want, err = ref.Generate(context.Background(), prompts, opts)
	if err != nil {
		t.Fatal(err)
	}
	return got, want
}

// TestSamplerBFloat16MatchesRoundedWeights checks that sampling from
// bfloat16 weights gives, bit for bit, what a float32 model with the
// weights rounded to bfloat16 gives (the conversion is exact and the
// fused products are the unfused ones' bits): greedy and seeded, with the
// output head split into chunks (a wide vocabulary) and not, and again
// after the float32 weights change, as after a training step.
func TestSamplerBFloat16MatchesRoundedWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for _, sz := range []struct{ vocab, hidden, intermediate int }{{37, 16, 24}, {3000, 16, 24}, {320, 32, 64}} {
		// The last one's outputs are multiples of 32 but for the keys' and
		// values' 16: most copies in panels, two transposed.
		cfg := tinyConfig()
		vocab := sz.vocab
		cfg.VocabSize, cfg.HiddenSize, cfg.IntermediateSize = sz.vocab, sz.hidden, sz.intermediate
		m := newTestModelOn(t, cfg, 5, Options{SamplerWeights: SamplerBFloat16})
		prompts := [][]int{randomIDs(rng, 5, vocab), randomIDs(rng, 9, vocab)}
		for round := range 2 {
			if round == 1 {
				// New float32 values, as an update gives: the sampler's
				// copies must follow.
				for v := range m.Context().IterVariables() {
					data := make([]float32, v.Shape().Size())
					for i := range data {
						data[i] = float32(rng.NormFloat64() * 0.3)
					}
					if err := v.SetValue(tensors.FromFlatDataAndDimensions(data, v.Shape().Dimensions...)); err != nil {
						t.Fatal(err)
					}
				}
			}
			ref := asSampled(t, m)
			for _, temp := range []float64{0, 1} {
				got, want := generateBoth(t, m, ref, prompts, SampleOptions{MaxTokens: 6, Temperature: temp, Seed: 3})
				for i := range want {
					if !slices.Equal(got[i].TokenIDs, want[i].TokenIDs) || !slices.Equal(got[i].LogProbs, want[i].LogProbs) {
						t.Errorf("vocab %d round %d temperature %g row %d: %v %v, want %v %v", vocab, round, temp, i, got[i].TokenIDs, got[i].LogProbs, want[i].TokenIDs, want[i].LogProbs)
					}
				}
			}
		}
	}
}

// TestSamplerInt8MatchesDequantizedWeights checks that sampling from int8
// weights follows a float32 model whose weights are the dequantised ones
// (the scale multiplies the product instead of each weight, so only the
// rounding differs), and measures how far greedy decoding's log-probs
// move from the float32 weights'.
func TestSamplerInt8MatchesDequantizedWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	for _, hidden := range []int{16, 32} { // transposed copies; mostly panels
		cfg := tinyConfig()
		cfg.VocabSize, cfg.HiddenSize, cfg.IntermediateSize = 3008, hidden, 2*hidden
		m := newTestModelOn(t, cfg, 6, Options{SamplerWeights: SamplerInt8})
		ref := asSampled(t, m)
		prompts := [][]int{randomIDs(rng, 5, 3000), randomIDs(rng, 12, 3000), randomIDs(rng, 3, 3000)}
		got, want := generateBoth(t, m, ref, prompts, SampleOptions{MaxTokens: 8})
		for i := range want {
			if !slices.Equal(got[i].TokenIDs, want[i].TokenIDs) {
				t.Fatalf("hidden %d row %d: %v, want %v", hidden, i, got[i].TokenIDs, want[i].TokenIDs)
			}
			for j := range want[i].LogProbs {
				if d := math.Abs(got[i].LogProbs[j] - want[i].LogProbs[j]); d > 1e-4 {
					t.Errorf("hidden %d row %d token %d: log-prob %g, dequantised %g", hidden, i, j, got[i].LogProbs[j], want[i].LogProbs[j])
				}
			}
		}
	}
}

// TestSamplerWeightsPolicy checks that a Policy (prefix reuse and
// continuous batching) samples from the narrow weights too: its multi-turn
// conversations equal those of a policy over the rounded float32 weights.
func TestSamplerWeightsPolicy(t *testing.T) {
	cfg := tinyConfig()
	cfg.VocabSize = 272
	m := newTestModelOn(t, cfg, 31, Options{SamplerWeights: SamplerBFloat16})
	tok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	narrow, err := NewPolicy(m, tok, nil, PolicyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := NewPolicy(asSampled(t, m), tok, nil, plainOptions)
	if err != nil {
		t.Fatal(err)
	}
	for _, temp := range []float64{0, 1} {
		want := conversation(t, ref, "Find the weather in Paris.", 3, temp, 7)
		got := conversation(t, narrow, "Find the weather in Paris.", 3, temp, 7)
		sameCompletions(t, "bfloat16 sampler", got, want)
	}
}

func TestParseSamplerWeights(t *testing.T) {
	for in, want := range map[string]SamplerWeights{"": SamplerFloat32, "float32": SamplerFloat32, "BF16": SamplerBFloat16, "bfloat16": SamplerBFloat16, " int8 ": SamplerInt8} {
		if got, err := ParseSamplerWeights(in); err != nil || got != want {
			t.Errorf("ParseSamplerWeights(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseSamplerWeights("int4"); !errors.Is(err, ErrBadConfig) {
		t.Errorf("int4: %v, want ErrBadConfig", err)
	}
	if _, err := New(tinyConfig(), 1, Options{SamplerWeights: "fp8"}); !errors.Is(err, ErrBadConfig) {
		t.Errorf("New with fp8 sampler weights: %v, want ErrBadConfig", err)
	}
	if _, err := New(tinyConfig(), 1, Options{SamplerWeights: SamplerInt8, ComputeDType: dtypes.BFloat16}); !errors.Is(err, ErrBadConfig) && !errors.Is(err, ErrUnsupportedDType) {
		t.Errorf("int8 sampler with bfloat16 compute: %v, want ErrBadConfig", err)
	}
}

// TestSamplerCopyBytes checks the copies' size against the variables a
// model's sampler context holds beside the float32 weights.
func TestSamplerCopyBytes(t *testing.T) {
	cfg := tinyConfig()
	cfg.VocabSize, cfg.HiddenSize, cfg.IntermediateSize = 320, 32, 64
	for _, w := range []SamplerWeights{SamplerFloat32, SamplerBFloat16, SamplerInt8} {
		m := newTestModelOn(t, cfg, 7, Options{SamplerWeights: w})
		if _, err := m.Generate(context.Background(), [][]int{{1, 2, 3}}, SampleOptions{MaxTokens: 1}); err != nil {
			t.Fatal(err)
		}
		got := 0
		for v := range m.sampler.ctx.IterVariables() {
			if strings.HasSuffix(v.Name(), narrowSuffix) || strings.HasSuffix(v.Name(), scaleSuffix) {
				got += int(v.Shape().Memory())
			}
		}
		if want := cfg.SamplerCopyBytes(w); got != want || got == 0 {
			t.Errorf("%q: the sampler holds %d bytes of copies, SamplerCopyBytes says %d", w, got, want)
		}
	}
	big := Config{VocabSize: 151936, HiddenSize: 896, NumHiddenLayers: 24, NumAttentionHeads: 14, NumKeyValueHeads: 2, IntermediateSize: 4864, TieWordEmbeddings: true}
	if n := big.SamplerCopyBytes(SamplerFloat32); n != 0 {
		t.Errorf("a 0.5B model's float32 sampler copies %d bytes, want none", n)
	}
	if n := big.SamplerCopyBytes(SamplerInt8); n < 400<<20 || n > 600<<20 {
		t.Errorf("a 0.5B model's int8 copies take %d bytes, want about 494 MB", n)
	}
}
