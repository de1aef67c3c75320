package optim_test

import (
	"context"
	"fmt"

	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer/optim"
)

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
	policy := optim.ModelPolicy(m)
	ref, err := optim.NewReference(backend, m.Context(), policy, optim.ReferenceConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	u, err := optim.NewUpdater(backend, m.Context(), policy, optim.UpdaterConfig{
		Optimizer: optim.AdamWConfig{LearningRate: 1e-2}, // the 1e-6 default suits 7B models
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	// Two rollouts of one prompt: the first succeeded (advantage +1 on its
	// response tokens), the second failed (−1).
	b := &optim.Batch{
		Tokens: optim.Tokens{
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
	var first, last optim.StepMetrics
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
