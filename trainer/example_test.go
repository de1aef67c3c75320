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
