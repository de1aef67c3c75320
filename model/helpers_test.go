package model

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// tinyConfig is a few-thousand-parameter model for fast tests: grouped
// query attention (4 query heads over 2 key/value heads), untied head.
func tinyConfig() Config {
	return Config{VocabSize: 37, HiddenSize: 16, NumHiddenLayers: 2, NumAttentionHeads: 4,
		NumKeyValueHeads: 2, IntermediateSize: 24, InitializerRange: 0.3}
}

// newTestModel returns a tiny model whose every weight (biases and norm
// scales included) is random, so that no part of the forward pass hides
// behind a zero or a one.
func newTestModel(t testing.TB, cfg Config, seed int64) *Model {
	t.Helper()
	return newTestModelOn(t, cfg, seed, Options{})
}

// newTestModelOn is newTestModel with the given options (a backend).
func newTestModelOn(t testing.TB, cfg Config, seed int64, opts Options) *Model {
	t.Helper()
	m, err := New(cfg, seed, opts)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 99))
	for v := range m.Context().IterVariables() {
		data := make([]float32, v.Shape().Size())
		for i := range data {
			data[i] = float32(rng.NormFloat64() * 0.3)
			if v.Name() == "weight" && v.Shape().Rank() == 1 {
				data[i] += 1 // norm scales near one
			}
		}
		if err := v.SetValue(tensors.FromFlatDataAndDimensions(data, v.Shape().Dimensions...)); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func randomIDs(rng *rand.Rand, n, vocab int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = rng.IntN(vocab)
	}
	return ids
}

func closeTo(a, b, tol float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(b)) }

func mustLogProbs(t testing.TB, m *Model, b Batch) LogProbResult {
	t.Helper()
	res, err := m.LogProbs(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
