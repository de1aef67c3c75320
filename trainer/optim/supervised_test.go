package optim_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/org/agentevolver/trainer/optim"
)

func TestSupervisedLowersLoss(t *testing.T) {
	backend := newBackend(t)
	policy, vars := newBigram(testVocab, 11)
	sft, err := optim.NewSupervised(backend, vars, policy, optim.SupervisedConfig{
		Optimizer: optim.AdamWConfig{LearningRate: 0.05}, MicroBatchSize: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	b := randomBatch(testRows, testCols, testPL, testVocab, 11)
	batch := &optim.SupervisedBatch{Tokens: b.Tokens, LossMask: b.LossMask}
	var losses []float64
	for range 8 {
		m, err := sft.Step(context.Background(), batch)
		if err != nil {
			t.Fatal(err)
		}
		if m.Skipped || m.Tokens != maskTotal(b.LossMask) {
			t.Fatalf("metrics %+v", m)
		}
		losses = append(losses, m.Loss)
	}
	t.Logf("NLL per step: %v", losses)
	if !(losses[len(losses)-1] < losses[0]-0.1) {
		t.Errorf("NLL did not fall: %v", losses)
	}
	// The SFT optimiser state is separate from the RL updater's.
	if len(variableValues(t, vars, "/trainer/sft/adamw")) == 0 || len(variableValues(t, vars, "/trainer/adamw")) != 0 {
		t.Error("supervised optimiser state not under /trainer/sft")
	}
}

func TestSupervisedAccumulationEquivalence(t *testing.T) {
	b := randomBatch(testRows, testCols, testPL, testVocab, 12)
	batch := &optim.SupervisedBatch{Tokens: b.Tokens, LossMask: b.LossMask}
	run := func(micro int) optim.SupervisedMetrics {
		policy, vars := newBigram(testVocab, 12)
		sft, err := optim.NewSupervised(newBackend(t), vars, policy, optim.SupervisedConfig{MicroBatchSize: micro})
		if err != nil {
			t.Fatal(err)
		}
		m, err := sft.Step(context.Background(), batch)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	whole, acc := run(0), run(3)
	if math.Abs(whole.Loss-acc.Loss) > 1e-5 || math.Abs(whole.GradNorm-acc.GradNorm) > 1e-5*whole.GradNorm {
		t.Errorf("whole %+v, accumulated %+v", whole, acc)
	}
}

func TestSupervisedErrors(t *testing.T) {
	backend := newBackend(t)
	policy, vars := newBigram(testVocab, 1)
	if _, err := optim.NewSupervised(backend, vars, policy, optim.SupervisedConfig{MicroBatchSize: -1}); !errors.Is(err, optim.ErrConfig) {
		t.Errorf("negative micro-batch: %v", err)
	}
	sft, err := optim.NewSupervised(backend, vars, policy, optim.SupervisedConfig{})
	if err != nil {
		t.Fatal(err)
	}
	b := randomBatch(2, testCols, testPL, testVocab, 1)
	if _, err := sft.Step(context.Background(), &optim.SupervisedBatch{Tokens: b.Tokens}); !errors.Is(err, optim.ErrShape) {
		t.Errorf("missing mask: %v", err)
	}
}

func maskTotal(m [][]float32) float64 {
	var s float64
	for _, row := range m {
		for _, v := range row {
			s += float64(v)
		}
	}
	return s
}
