package optim_test

import (
	"context"
	"testing"

	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer/optim"
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
	policy := optim.ModelPolicy(m)
	u, err := optim.NewUpdater(backend, m.Context(), policy, optim.UpdaterConfig{
		Optimizer: optim.AdamWConfig{LearningRate: 3e-3}, MicroBatchSize: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := optim.NewReference(backend, m.Context(), policy, optim.ReferenceConfig{})
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
	fromModel, err := m.LogProbs(context.Background(), model.Batch{Tokens: model.Tokens{InputIDs: b.InputIDs, AttentionMask: b.AttentionMask, PromptLen: b.PromptLen}})
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

// TestReferenceOfLoRAPolicy builds a Reference over a policy whose base
// weights are frozen (LoRA): it copies the base and the adapters, so its
// log-probs are the policy's, and training the adapters leaves it where it
// started.
func TestReferenceOfLoRAPolicy(t *testing.T) {
	backend := newBackend(t)
	cfg := model.Config{VocabSize: 32, HiddenSize: 16, NumHiddenLayers: 1, NumAttentionHeads: 2, NumKeyValueHeads: 1, IntermediateSize: 32}
	m, err := model.New(cfg, 1, model.Options{Backend: backend})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddLoRA(model.LoRAConfig{R: 4}, 2); err != nil {
		t.Fatal(err)
	}
	policy := optim.ModelPolicy(m)
	u, err := optim.NewUpdater(backend, m.Context(), policy, optim.UpdaterConfig{Optimizer: optim.AdamWConfig{LearningRate: 1e-2}})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := optim.NewReference(backend, m.Context(), policy, optim.ReferenceConfig{})
	if err != nil {
		t.Fatalf("NewReference over a LoRA policy: %v", err)
	}
	b := randomBatch(2, 10, 4, cfg.VocabSize, 5)
	fillLogProbs(t, u, ref, b)
	for i := range b.OldLogProbs {
		for j := range b.OldLogProbs[i] {
			if d := b.OldLogProbs[i][j] - b.RefLogProbs[i][j]; d > 1e-6 || d < -1e-6 {
				t.Fatalf("reference log-prob %v, policy's %v at %d,%d", b.RefLogProbs[i][j], b.OldLogProbs[i][j], i, j)
			}
		}
	}
	for range 3 {
		if _, err := u.Update(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	}
	refNow, err := ref.LogProbs(context.Background(), &b.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	policyNow, err := u.LogProbs(context.Background(), &b.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	moved := false
	for i := range refNow {
		for j := range refNow[i] {
			if refNow[i][j] != b.RefLogProbs[i][j] {
				t.Fatalf("reference moved at %d,%d", i, j)
			}
			moved = moved || policyNow[i][j] != b.OldLogProbs[i][j]
		}
	}
	if !moved {
		t.Error("three updates of the adapters left the policy's log-probs unchanged")
	}
}
