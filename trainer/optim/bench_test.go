package optim_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer/optim"
)

// benchSetup builds the tiny bench shape of testdata/bench/models.json: an
// updater configured as the "train" benchmark, its reference and a batch
// with old and reference log-probs.
func benchSetup(b *testing.B) (*optim.Updater, *optim.Reference, *optim.Batch) {
	backend := newBackend(b)
	cfg := model.Config{VocabSize: 512, HiddenSize: 64, NumHiddenLayers: 2, NumAttentionHeads: 4, NumKeyValueHeads: 2,
		IntermediateSize: 192, RMSNormEps: 1e-6, RopeTheta: 10000}
	m, err := model.New(cfg, 1, model.Options{Backend: backend})
	if err != nil {
		b.Fatal(err)
	}
	policy := optim.ModelPolicy(m)
	u, err := optim.NewUpdater(backend, m.Context(), policy, optim.UpdaterConfig{
		Optimizer: optim.AdamWConfig{LearningRate: 1e-4}, NoEntropyMetric: true,
	})
	if err != nil {
		b.Fatal(err)
	}
	ref, err := optim.NewReference(backend, m.Context(), policy, optim.ReferenceConfig{})
	if err != nil {
		b.Fatal(err)
	}
	const rows, cols, promptLen = 8, 128, 64
	rng := rand.New(rand.NewPCG(1, 2))
	batch := randomBatch(rows, cols, promptLen, cfg.VocabSize, 1)
	for i := range batch.LossMask {
		for j := range batch.LossMask[i] {
			batch.LossMask[i][j] = 1
			batch.Advantages[i][j] = float32(rng.NormFloat64())
		}
	}
	fillLogProbs(b, u, ref, batch)
	return u, ref, batch
}

// BenchmarkUpdateTiny is the optimiser step of the "train" benchmark
// (policy forward, HET loss + KL, backward, clip, AdamW) on the tiny shape.
func BenchmarkUpdateTiny(b *testing.B) {
	u, _, batch := benchSetup(b)
	ctx := context.Background()
	if _, err := u.Update(ctx, batch); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := u.Update(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(batch.InputIDs)*len(batch.InputIDs[0]))/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkReferenceTiny is the reference forward of the "train"
// benchmark on the tiny shape.
func BenchmarkReferenceTiny(b *testing.B) {
	_, ref, batch := benchSetup(b)
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		if _, err := ref.LogProbs(ctx, &batch.Tokens); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(batch.InputIDs)*len(batch.InputIDs[0]))/b.Elapsed().Seconds(), "tokens/s")
}
