package main

import (
	"context"
	"math/rand/v2"

	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer/objective"
	"github.com/org/agentevolver/trainer/optim"
)

func init() {
	registerBenchmark("train", benchmark{
		summary: "one RL update: policy and reference forward, HET loss + k3 KL, backward, clip, AdamW",
		setup:   setupTrainBench,
	})
}

// setupTrainBench prepares one RL update on batch_size x seq_len tokens as
// testdata/bench/README.md describes: forward of the policy and of a frozen
// reference copy, log-probs of the response half, PPO clip 0.2/0.28 with
// dual clip 3.0 and token-mean over the loss mask, k3 KL to the reference
// with coefficient 0.001, backward, gradient-norm clip 1.0, AdamW (lr 1e-4,
// weight decay 0.01).
func setupTrainBench(ctx context.Context, r benchRun) (benchSteps, error) {
	backend := r.Backend
	m, err := model.New(r.Shape.Model, 1, model.Options{Backend: backend})
	if err != nil {
		return benchSteps{}, err
	}
	policy := optim.ModelPolicy(m)
	u, err := optim.NewUpdater(backend, m.Context(), policy, optim.UpdaterConfig{
		Optimizer:       optim.AdamWConfig{LearningRate: 1e-4, WeightDecay: 0.01},
		Clip:            optim.ClipConfig{MaxGradNorm: 1.0},
		Loss:            objective.PolicyLossConfig{ClipLow: 0.2, ClipHigh: 0.28, DualClip: 3.0, AggMode: objective.TokenMean},
		KLType:          objective.KLLowVar,
		KLCoef:          0.001,
		NoEntropyMetric: true, // the benchmark's update has no entropy term
	})
	if err != nil {
		return benchSteps{}, err
	}
	ref, err := optim.NewReference(backend, m.Context(), policy, optim.ReferenceConfig{})
	if err != nil {
		return benchSteps{}, err
	}

	rows, cols, promptLen := r.Shape.BatchSize, r.Shape.SeqLen, r.Shape.PromptLen
	rng := rand.New(rand.NewPCG(1, 2))
	b := &optim.Batch{Tokens: optim.Tokens{PromptLen: promptLen}}
	for i := range rows {
		ids := make([]int, cols)
		for j := range ids {
			ids[j] = rng.IntN(r.Shape.Model.VocabSize)
		}
		mask := make([]float32, cols-promptLen)
		adv := make([]float32, cols-promptLen)
		for j := range mask {
			mask[j] = 1
			adv[j] = float32(1 - 2*(i%2)) // GRPO-like ±1 per row
		}
		b.InputIDs = append(b.InputIDs, ids)
		b.LossMask = append(b.LossMask, mask)
		b.Advantages = append(b.Advantages, adv)
	}
	// The old log-probs come from the rollout; compute them once.
	if b.OldLogProbs, err = u.LogProbs(ctx, &b.Tokens); err != nil {
		return benchSteps{}, err
	}
	step := func() error {
		var err error
		if b.RefLogProbs, err = ref.LogProbs(ctx, &b.Tokens); err != nil {
			return err
		}
		_, err = u.Update(ctx, b)
		return err
	}
	return benchSteps{step: step, tokens: rows * cols}, nil
}
