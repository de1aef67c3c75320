package trainer_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer"
)

// GRPO advantages of two tasks with three rollouts each: the outcome
// reward sits on the last response token, advantages are normalised within
// each task's group and spread over the loss mask.
func ExampleComputeGRPOAdvantages() {
	backend, err := model.NewBackend("")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer backend.Finalize()
	rewards := [][]float32{
		{0, 0, 1}, {0, 0, 0}, {0, 0, 1}, // task a: two of three solved
		{0, 0.5, 0}, {0, 0, 0.25}, {0, 0, 0}, // task b: partial credit
	}
	mask := [][]float32{
		{1, 1, 1}, {1, 1, 0}, {1, 1, 1},
		{1, 1, 0}, {1, 1, 1}, {1, 1, 1},
	}
	groups, n := trainer.GroupIndex([]string{"a", "a", "a", "b", "b", "b"})
	adv, err := trainer.ComputeGRPOAdvantages(backend, rewards, mask, groups, n, trainer.GRPOConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, row := range adv {
		fmt.Printf("%6.3f\n", row)
	}
	// Output:
	// [ 0.577  0.577  0.577]
	// [-1.155 -1.155 -0.000]
	// [ 0.577  0.577  0.577]
	// [ 1.000  1.000  0.000]
	// [ 0.000  0.000  0.000]
	// [-1.000 -1.000 -1.000]
}

// Aggregation modes of one loss matrix, as the reference's agg_loss.
func ExampleComputeAggregateLoss() {
	backend, err := model.NewBackend("")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer backend.Finalize()
	loss := [][]float32{{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}}
	mask := [][]float32{{1, 1, 1, 0, 0}, {1, 1, 1, 1, 0}}
	for _, mode := range []trainer.AggMode{trainer.TokenMean, trainer.SeqMeanTokenSum, trainer.SeqMeanTokenMean, trainer.SeqMeanTokenSumNorm} {
		v, err := trainer.ComputeAggregateLoss(backend, loss, mask, mode)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-24s %.4f\n", mode, v)
	}
	_, err = trainer.ComputeAggregateLoss(backend, loss, mask, "token-sum")
	fmt.Println(err)
	// Output:
	// token-mean               4.1429
	// seq-mean-token-sum       14.5000
	// seq-mean-token-mean      3.7500
	// seq-mean-token-sum-norm  5.8000
	// trainer: unknown loss aggregation mode: "token-sum" (want token-mean, seq-mean-token-sum, seq-mean-token-mean or seq-mean-token-sum-norm)
}

// One RL update loop on a tiny Qwen2-family model: the frozen reference
// and the old log-probs are computed first, then each Update takes one
// optimiser step on the HET loss plus the k3 KL term.
func ExampleUpdater() {
	ctx := context.Background()
	backend, err := model.NewBackend("")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer backend.Finalize()
	m, err := model.New(model.Config{VocabSize: 32, HiddenSize: 16, NumHiddenLayers: 1, NumAttentionHeads: 2, IntermediateSize: 32}, 1,
		model.Options{Backend: backend})
	if err != nil {
		fmt.Println(err)
		return
	}
	policy := trainer.ModelPolicy(m)
	ref, err := trainer.NewReference(backend, m.Context(), policy, trainer.ReferenceConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	u, err := trainer.NewUpdater(backend, m.Context(), policy, trainer.UpdaterConfig{
		Optimizer: trainer.AdamWConfig{LearningRate: 1e-2}, // the 1e-6 default suits 7B models
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	// Two rollouts of one prompt: the first succeeded (advantage +1 on its
	// response tokens), the second failed (−1).
	b := &trainer.Batch{
		Tokens: trainer.Tokens{
			InputIDs:  [][]int{{5, 6, 7, 1, 2, 3}, {5, 6, 7, 4, 4, 4}},
			PromptLen: 3,
		},
		LossMask:   [][]float32{{1, 1, 1}, {1, 1, 1}},
		Advantages: [][]float32{{1, 1, 1}, {-1, -1, -1}},
	}
	if b.OldLogProbs, err = u.LogProbs(ctx, &b.Tokens); err != nil {
		fmt.Println(err)
		return
	}
	if b.RefLogProbs, err = ref.LogProbs(ctx, &b.Tokens); err != nil {
		fmt.Println(err)
		return
	}
	var first, last trainer.StepMetrics
	for i := range 5 {
		steps, err := u.Update(ctx, b)
		if err != nil {
			fmt.Println(err)
			return
		}
		if i == 0 {
			first = steps[0]
		}
		last = steps[0]
	}
	fmt.Printf("first step pg_loss %.3f (ratio 1), later lower: %v\n", first.PGLoss, last.PGLoss < first.PGLoss)
	// Output:
	// first step pg_loss 0.000 (ratio 1), later lower: true
}

// A whole training run on the built-in environment: the defaults, with a
// few keys overridden as "agentevolver train --set" would.
func ExampleTrainer_Fit() {
	cfg, err := trainer.LoadConfig(nil, []string{"trainer.rl_steps=20", "trainer.output_dir=runs/demo"})
	if err != nil {
		log.Fatal(err)
	}
	// The command line builds env.type "toolworld" from the same registry.
	t, err := trainer.New(cfg, trainer.Options{Output: os.Stdout, Environments: builtin.Environments()})
	if err != nil {
		log.Fatal(err)
	}
	summary, err := t.Fit(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("validation success %.2f -> %.2f\n", summary.ValSuccessWarmStart, summary.ValSuccessFinal)
}
