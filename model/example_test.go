package model_test

import (
	"context"
	"fmt"
	"log"

	"github.com/org/agentevolver/model"
)

// A tiny random model scores the response half of a batch of two rows.
func Example() {
	cfg := model.Config{VocabSize: 64, HiddenSize: 32, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, IntermediateSize: 64}
	m, err := model.New(cfg, 42, model.Options{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := m.LogProbs(context.Background(), model.Batch{
		InputIDs:      [][]int{{0, 5, 6, 7, 8, 9}, {1, 2, 3, 4, 10, 0}},
		AttentionMask: [][]int{{0, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 0}},
		PromptLen:     4,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d rows of %d response log-probs\n", len(res.LogProbs), len(res.LogProbs[0]))
	fmt.Printf("parameters: %d\n", cfg.NumParameters())
	// Output:
	// 2 rows of 2 response log-probs
	// parameters: 22816
}
