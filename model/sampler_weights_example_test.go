package model_test

import (
	"context"
	"fmt"
	"log"

	"github.com/org/agentevolver/model"
)

// A model that samples with int8 copies of its weights: Generate reads
// them, log-probs and training read the float32 weights.
func ExampleSamplerWeights() {
	cfg := model.Config{VocabSize: 64, HiddenSize: 32, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, IntermediateSize: 64}
	m, err := model.New(cfg, 42, model.Options{SamplerWeights: model.SamplerInt8})
	if err != nil {
		log.Fatal(err)
	}
	gens, err := m.Generate(context.Background(), [][]int{{1, 2, 3}}, model.SampleOptions{MaxTokens: 4})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("sampled %d tokens with %s weights, copies of %d bytes\n",
		len(gens[0].TokenIDs), m.SamplerWeights(), cfg.SamplerCopyBytes(m.SamplerWeights()))
	// Output: sampled 4 tokens with int8 weights, copies of 22784 bytes
}
