package model

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
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

// responseGradients returns the trainer's gradient of the summed response
// log-probs of seqs (all of one length, the first promptLen tokens the
// prompt) for every trainable variable of m, in the context's enumeration
// order.
func responseGradients(t testing.TB, m *Model, seqs [][]int, promptLen int) [][]float32 {
	t.Helper()
	exec, err := mlctx.NewExec(m.Backend(), m.Context(), func(ctx *mlctx.Context, ids, pos, mask, targets *graph.Node) []*graph.Node {
		logp, _ := m.ResponseLogProbs(ctx, ids, pos, mask, targets, promptLen)
		return ctx.BuildTrainableVariablesGradientsGraph(graph.ReduceAllSum(logp))
	})
	if err != nil {
		t.Fatal(err)
	}
	grads, err := exec.Exec(responseInputs(seqs, promptLen)...)
	if err != nil {
		t.Fatal(err)
	}
	return flatFloats(grads)
}

// responseInputs returns ResponseLogProbs' inputs for seqs (all of one
// length, the first promptLen tokens the prompt, none padded): ids,
// positions, mask and targets.
func responseInputs(seqs [][]int, promptLen int) []any {
	rows, cols := len(seqs), len(seqs[0])
	ids, pos, mask := make([]int32, rows*cols), make([]int32, rows*cols), make([]bool, rows*cols)
	targets := make([]int32, rows*(cols-promptLen))
	for b, seq := range seqs {
		for j, id := range seq {
			ids[b*cols+j], pos[b*cols+j], mask[b*cols+j] = int32(id), int32(j), true
			if j >= promptLen {
				targets[b*(cols-promptLen)+j-promptLen] = int32(id)
			}
		}
	}
	return []any{tensors.FromFlatDataAndDimensions(ids, rows, cols), tensors.FromFlatDataAndDimensions(pos, rows, cols),
		tensors.FromFlatDataAndDimensions(mask, rows, cols), tensors.FromFlatDataAndDimensions(targets, rows, cols-promptLen)}
}

// flatFloats copies out the float32 values of each tensor.
func flatFloats(ts []*tensors.Tensor) [][]float32 {
	out := make([][]float32, len(ts))
	for i, x := range ts {
		out[i] = tensors.MustCopyFlatData[float32](x)
	}
	return out
}
