package model_test

import (
	"context"
	"fmt"
	"log"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/tokenizer"
)

// A tiny random model scores the response half of a batch of two rows.
func Example() {
	cfg := model.Config{VocabSize: 64, HiddenSize: 32, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, IntermediateSize: 64}
	m, err := model.New(cfg, 42, model.Options{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := m.LogProbs(context.Background(), model.Batch{Tokens: model.Tokens{
		InputIDs:      [][]int{{0, 5, 6, 7, 8, 9}, {1, 2, 3, 4, 10, 0}},
		AttentionMask: [][]int{{0, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 0}},
		PromptLen:     4,
	}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d rows of %d response log-probs\n", len(res.LogProbs), len(res.LogProbs[0]))
	fmt.Printf("parameters: %d\n", cfg.NumParameters())
	// Output:
	// 2 rows of 2 response log-probs
	// parameters: 22816
}

// Sampling continues two prompts of different lengths in one batch; every
// token comes with its log-probability.
func ExampleModel_Generate() {
	cfg := model.Config{VocabSize: 64, HiddenSize: 32, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, IntermediateSize: 64}
	m, err := model.New(cfg, 42, model.Options{})
	if err != nil {
		log.Fatal(err)
	}
	gens, err := m.Generate(context.Background(), [][]int{{1, 2, 3}, {4}}, model.SampleOptions{
		MaxTokens: 5, Temperature: 0.8, TopP: 0.95, Seed: 7,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, g := range gens {
		fmt.Println(len(g.TokenIDs), len(g.LogProbs), g.FinishReason)
	}
	// Output:
	// 5 5 length
	// 5 5 length
}

// A Policy makes a model an llm.ChatModel: messages in, an assistant
// message with the exact sampled token ids out.
func ExampleNewPolicy() {
	tok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	if err != nil {
		log.Fatal(err)
	}
	cfg := model.Config{VocabSize: tok.VocabSize(), HiddenSize: 32, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, IntermediateSize: 64}
	m, err := model.New(cfg, 1, model.Options{})
	if err != nil {
		log.Fatal(err)
	}
	policy, err := model.NewPolicy(m, tok, nil, model.PolicyOptions{}) // the tokenizer's own ChatML template
	if err != nil {
		log.Fatal(err)
	}
	seed := int64(3)
	c, err := policy.Chat(context.Background(), []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "Hi"}},
		llm.ChatOptions{MaxTokens: 8, Seed: &seed})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Message.Role, len(c.TokenIDs) == len(c.LogProbs), c.CompletionTokens <= 8)
	// Output:
	// assistant true true
}
