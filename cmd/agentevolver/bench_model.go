package main

import (
	"context"
	"math/rand/v2"

	"github.com/org/agentevolver/model"
)

func init() {
	registerBenchmark("logprob", benchmark{
		summary: "forward-only per-token log-probs of the response half (old/reference log-probs)",
		setup:   setupLogProbBench,
	})
	registerBenchmark("generate", benchmark{
		summary: "batched sampling (temperature 1) of gen_tokens tokens after the prompt, KV cache, prefill included",
		setup:   setupGenerateBench,
	})
}

// newBenchModel returns a randomly initialised model of the run's shape.
func newBenchModel(r benchRun) (*model.Model, error) {
	return model.New(r.Shape.Model, 1, model.Options{Backend: r.Backend, SamplerWeights: r.SamplerWeights})
}

// randomRows returns rows of random token ids.
func randomRows(rng *rand.Rand, rows, cols, vocab int) [][]int {
	out := make([][]int, rows)
	for i := range out {
		out[i] = make([]int, cols)
		for j := range out[i] {
			out[i][j] = rng.IntN(vocab)
		}
	}
	return out
}

// setupLogProbBench measures model.LogProbs on batch_size x seq_len tokens
// whose response half starts at prompt_len; tokens/s counts all of them.
func setupLogProbBench(ctx context.Context, r benchRun) (benchSteps, error) {
	m, err := newBenchModel(r)
	if err != nil {
		return benchSteps{}, err
	}
	s := r.Shape
	batch := model.Batch{Tokens: model.Tokens{InputIDs: randomRows(rand.New(rand.NewPCG(1, 2)), s.BatchSize, s.SeqLen, s.Model.VocabSize), PromptLen: s.PromptLen}}
	step := func() error {
		_, err := m.LogProbs(ctx, batch)
		return err
	}
	return benchSteps{step: step, tokens: s.BatchSize * s.SeqLen}, nil
}

// setupGenerateBench measures model.Generate: batch_size prompts of
// prompt_len tokens, gen_tokens new tokens each at temperature 1 (no stop
// token, so every row runs to the end); tokens/s counts new tokens. The
// same with one new token is its prefill step, for the decode rate.
func setupGenerateBench(ctx context.Context, r benchRun) (benchSteps, error) {
	m, err := newBenchModel(r)
	if err != nil {
		return benchSteps{}, err
	}
	s := r.Shape
	prompts := randomRows(rand.New(rand.NewPCG(3, 4)), s.BatchSize, s.PromptLen, s.Model.VocabSize)
	seed := uint64(0)
	generate := func(tokens int) func() error {
		return func() error {
			seed++
			_, err := m.Generate(ctx, prompts, model.SampleOptions{MaxTokens: tokens, Temperature: 1, Seed: seed})
			return err
		}
	}
	return benchSteps{
		step: generate(s.GenTokens), tokens: s.BatchSize * s.GenTokens,
		prefill: generate(1), decoded: s.BatchSize * (s.GenTokens - 1),
	}, nil
}
