package trainer_test

import (
	"context"
	"testing"

	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer"
)

// TestModelPolicyTraining trains the real Qwen2-family model (a tiny
// configuration) with the RL update: a few steps on a fixed batch lower
// the objective, and the reference stays where it started.
func TestModelPolicyTraining(t *testing.T) {
	backend := newBackend(t)
	cfg := model.Config{VocabSize: 32, HiddenSize: 16, NumHiddenLayers: 1, NumAttentionHeads: 2, NumKeyValueHeads: 1, IntermediateSize: 32}
	m, err := model.New(cfg, 1, model.Options{Backend: backend})
	if err != nil {
		t.Fatal(err)
	}
	policy := trainer.ModelPolicy(m)
	u, err := trainer.NewUpdater(backend, m.Context(), policy, trainer.UpdaterConfig{
		Optimizer: trainer.AdamWConfig{LearningRate: 3e-3}, MicroBatchSize: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := trainer.NewReference(backend, m.Context(), policy, trainer.ReferenceConfig{})
	if err != nil {
		t.Fatal(err)
	}
	b := randomBatch(4, 12, 5, cfg.VocabSize, 21)
	// Left-pad the prompt of row 0 to exercise the attention mask.
	b.AttentionMask = [][]int{{0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, nil, nil, nil}
	for i := 1; i < 4; i++ {
		b.AttentionMask[i] = []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	}
	fillLogProbs(t, u, ref, b)
	fromModel, err := m.LogProbs(context.Background(), model.Batch{InputIDs: b.InputIDs, AttentionMask: b.AttentionMask, PromptLen: b.PromptLen})
	if err != nil {
		t.Fatal(err)
	}
	for i := range fromModel.LogProbs {
		for j, want := range fromModel.LogProbs[i] {
			if d := b.OldLogProbs[i][j] - want; d > 1e-5 || d < -1e-5 {
				t.Fatalf("trainer log-prob %v, model's own %v at %d,%d", b.OldLogProbs[i][j], want, i, j)
			}
		}
	}
	var objective []float64
	for range 5 {
		ms, err := u.Update(context.Background(), b)
		if err != nil {
			t.Fatal(err)
		}
		objective = append(objective, ms[0].PGLoss+0.001*ms[0].KLLoss)
	}
	t.Logf("objective per step: %v", objective)
	if !(objective[4] < objective[0]-0.01) {
		t.Errorf("objective did not fall: %v", objective)
	}
	refNow, err := ref.LogProbs(context.Background(), &b.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	for i := range refNow {
		for j := range refNow[i] {
			if refNow[i][j] != b.RefLogProbs[i][j] {
				t.Fatalf("reference moved at %d,%d", i, j)
			}
		}
	}
}
