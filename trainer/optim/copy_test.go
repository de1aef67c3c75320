package optim

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/org/agentevolver/model"
)

// TestSupervisedLearnsToCopy: a fresh two-layer model trained with
// Supervised on "x1..x5 SEP x1..x5" learns to copy the first half, which
// only attention to earlier positions can do (an induction circuit: a
// broken rotary table, causal mask or attention gradient leaves the loss
// at log(vocab)). The tool-use policy needs the same skill to copy values
// from its instruction.
func TestSupervisedLearnsToCopy(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a small model for 300 steps")
	}
	const vocab, n, rows = 32, 5, 16
	m, err := model.New(model.Config{VocabSize: vocab + 2, HiddenSize: 64, NumHiddenLayers: 2, NumAttentionHeads: 4,
		NumKeyValueHeads: 2, IntermediateSize: 128, MaxPositionEmbeddings: 64}, 1, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sft, err := NewSupervised(m.Backend(), m.Context(), ModelPolicy(m), SupervisedConfig{Optimizer: AdamWConfig{LearningRate: 3e-3}})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	batch := func() *SupervisedBatch {
		b := &SupervisedBatch{Tokens: Tokens{PromptLen: 1}}
		for range rows {
			xs := make([]int, n)
			for i := range xs {
				xs[i] = r.IntN(vocab)
			}
			ids := append(append(append([]int{vocab + 1}, xs...), vocab), xs...)
			mask := make([]float32, len(ids)-1)
			for i := n + 1; i < len(mask); i++ {
				mask[i] = 1
			}
			b.InputIDs, b.LossMask = append(b.InputIDs, ids), append(b.LossMask, mask)
		}
		return b
	}
	var first, last float64
	for step := range 300 {
		res, err := sft.Step(context.Background(), batch())
		if err != nil {
			t.Fatal(err)
		}
		if step == 0 {
			first = res.Loss
		}
		last = res.Loss
	}
	t.Logf("copy loss %.3f -> %.3f", first, last)
	// Chance is log(32) = 3.47 nats; copying drives the loss near 0.
	if !(last < 0.3) {
		t.Fatalf("copy loss %.3f after 300 steps (first step %.3f): the model did not learn to copy", last, first)
	}
}
