package model

import (
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// benchTiny is the "tiny" shape of testdata/bench/models.json.
func benchTiny() (Config, int, int, int) {
	return Config{VocabSize: 512, HiddenSize: 64, NumHiddenLayers: 2, NumAttentionHeads: 4, NumKeyValueHeads: 2,
		IntermediateSize: 192, RMSNormEps: 1e-6, RopeTheta: 10000}, 8, 128, 64
}

// BenchmarkTrainStepTiny measures forward + backward of sum(log-probs) on
// the tiny bench shape: the part of a training step the model owns.
func BenchmarkTrainStepTiny(b *testing.B) {
	cfg, rows, cols, promptLen := benchTiny()
	m, err := New(cfg, 1, Options{})
	if err != nil {
		b.Fatal(err)
	}
	exec, err := mlctx.NewExec(m.Backend(), m.Context(), func(ctx *mlctx.Context, ids, pos, mask, targets *graph.Node) []*graph.Node {
		logp, _ := m.ResponseLogProbs(ctx, ids, pos, mask, targets, promptLen)
		loss := graph.ReduceAllSum(logp)
		return append([]*graph.Node{loss}, ctx.BuildTrainableVariablesGradientsGraph(loss)...)
	})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	ids, pos, mask := make([]int32, rows*cols), make([]int32, rows*cols), make([]bool, rows*cols)
	targets := make([]int32, rows*(cols-promptLen))
	for i := range ids {
		ids[i], pos[i], mask[i] = int32(rng.IntN(cfg.VocabSize)), int32(i%cols), true
	}
	for r := range rows {
		for j := range cols - promptLen {
			targets[r*(cols-promptLen)+j] = ids[r*cols+promptLen+j]
		}
	}
	args := []any{
		tensors.FromFlatDataAndDimensions(ids, rows, cols), tensors.FromFlatDataAndDimensions(pos, rows, cols),
		tensors.FromFlatDataAndDimensions(mask, rows, cols), tensors.FromFlatDataAndDimensions(targets, rows, cols-promptLen),
	}
	run := func() {
		outs, err := exec.Exec(args...)
		if err != nil {
			b.Fatal(err)
		}
		finalizeAll(outs)
	}
	run() // compile
	measure(b, rows*cols, run)
}

// measure runs step b.N times and reports tokens/s of wall time and of
// process CPU time: on a shared machine the second is the steadier one
// (the pure-Go backend uses at most the machine's cores, here 2).
func measure(b *testing.B, tokensPerStep int, step func()) {
	b.Helper()
	cpu0 := cpuSeconds()
	b.ResetTimer()
	for range b.N {
		step()
	}
	b.StopTimer()
	cpu := cpuSeconds() - cpu0
	tokens := float64(b.N * tokensPerStep)
	b.ReportMetric(tokens/b.Elapsed().Seconds(), "tokens/s")
	b.ReportMetric(cpu*1e3/float64(b.N), "cpu-ms/op")
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkLogProbsTiny measures Model.LogProbs on the tiny bench shape.
func BenchmarkLogProbsTiny(b *testing.B) {
	cfg, rows, cols, promptLen := benchTiny()
	m, err := New(cfg, 1, Options{})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	batch := Batch{Tokens: Tokens{PromptLen: promptLen}}
	for range rows {
		batch.InputIDs = append(batch.InputIDs, randomIDs(rng, cols, cfg.VocabSize))
	}
	step := func() {
		if _, err := m.LogProbs(b.Context(), batch); err != nil {
			b.Fatal(err)
		}
	}
	step()
	measure(b, rows*cols, step)
}

// BenchmarkGenerateTiny measures Model.Generate on the tiny bench shape
// (64 new tokens after a 64-token prompt, temperature 1).
func BenchmarkGenerateTiny(b *testing.B) {
	cfg, rows, _, promptLen := benchTiny()
	const newTokens = 64
	m, err := New(cfg, 1, Options{})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	prompts := make([][]int, rows)
	for i := range prompts {
		prompts[i] = randomIDs(rng, promptLen, cfg.VocabSize)
	}
	step := func() {
		if _, err := m.Generate(b.Context(), prompts, SampleOptions{MaxTokens: newTokens, Temperature: 1}); err != nil {
			b.Fatal(err)
		}
	}
	step()
	measure(b, rows*newTokens, step)
}
