package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// TestLogProbsMatchReference compares the graph's response log-probs and
// entropies with the float64 reference forward, for several shapes,
// temperatures and with tied and untied heads.
func TestLogProbsMatchReference(t *testing.T) {
	tied := tinyConfig()
	tied.TieWordEmbeddings = true
	tests := []struct {
		name        string
		cfg         Config
		rows, cols  int
		promptLen   int
		temperature float64
	}{
		{"untied", tinyConfig(), 3, 9, 4, 0},
		{"tied", tied, 2, 7, 1, 0},
		{"temperature", tinyConfig(), 2, 6, 3, 0.7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestModel(t, tc.cfg, 1)
			ref := newRefModel(t, m)
			rng := rand.New(rand.NewPCG(2, 3))
			batch := Batch{Tokens: Tokens{PromptLen: tc.promptLen}, Temperature: tc.temperature}
			for range tc.rows {
				batch.InputIDs = append(batch.InputIDs, randomIDs(rng, tc.cols, tc.cfg.VocabSize))
			}
			got := mustLogProbs(t, m, batch)
			temperature := tc.temperature
			if temperature == 0 {
				temperature = 1
			}
			for b, ids := range batch.InputIDs {
				pos := make([]int, len(ids))
				real := make([]bool, len(ids))
				for j := range ids {
					pos[j], real[j] = j, true
				}
				logits := ref.logits(ids, pos, real)
				if len(got.LogProbs[b]) != tc.cols-tc.promptLen {
					t.Fatalf("row %d: %d log-probs, want %d", b, len(got.LogProbs[b]), tc.cols-tc.promptLen)
				}
				for r := range got.LogProbs[b] {
					logp, entropy := logSoftmax(logits[tc.promptLen+r-1], temperature)
					want := logp[ids[tc.promptLen+r]]
					if !closeTo(float64(got.LogProbs[b][r]), want, 1e-4) {
						t.Errorf("row %d token %d: log-prob %.6f, reference %.6f", b, r, got.LogProbs[b][r], want)
					}
					if !closeTo(float64(got.Entropy[b][r]), entropy, 1e-4) {
						t.Errorf("row %d token %d: entropy %.6f, reference %.6f", b, r, got.Entropy[b][r], entropy)
					}
				}
			}
		})
	}
}

// TestLogProbsPaddingInvariance checks that left-padding the prompt and
// right-padding the response change nothing on the real tokens.
func TestLogProbsPaddingInvariance(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 4)
	rng := rand.New(rand.NewPCG(5, 6))
	prompt, response := randomIDs(rng, 5, 37), randomIDs(rng, 4, 37)
	plain := mustLogProbs(t, m, Batch{Tokens: Tokens{InputIDs: [][]int{append(append([]int{}, prompt...), response...)}, PromptLen: len(prompt)}})

	// Row 0: prompt left-padded by 3, response right-padded by 2; row 1 is
	// a different, unpadded sequence sharing the batch.
	const leftPad, rightPad = 3, 2
	var padded, mask []int
	for range leftPad {
		padded, mask = append(padded, 7), append(mask, 0)
	}
	for _, id := range prompt {
		padded, mask = append(padded, id), append(mask, 1)
	}
	for _, id := range response {
		padded, mask = append(padded, id), append(mask, 1)
	}
	for range rightPad {
		padded, mask = append(padded, 0), append(mask, 0)
	}
	other := randomIDs(rng, len(padded), 37)
	ones := make([]int, len(other))
	for i := range ones {
		ones[i] = 1
	}
	got := mustLogProbs(t, m, Batch{Tokens: Tokens{InputIDs: [][]int{padded, other}, AttentionMask: [][]int{mask, ones}, PromptLen: leftPad + len(prompt)}})
	for r := range response {
		if !closeTo(float64(got.LogProbs[0][r]), float64(plain.LogProbs[0][r]), 1e-5) {
			t.Errorf("token %d: padded %.7f, unpadded %.7f", r, got.LogProbs[0][r], plain.LogProbs[0][r])
		}
		if !closeTo(float64(got.Entropy[0][r]), float64(plain.Entropy[0][r]), 1e-5) {
			t.Errorf("token %d entropy: padded %.7f, unpadded %.7f", r, got.Entropy[0][r], plain.Entropy[0][r])
		}
	}
}

func TestLogProbsBadInput(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 1)
	tests := []struct {
		name  string
		batch Batch
	}{
		{"empty", Batch{Tokens: Tokens{PromptLen: 1}}},
		{"prompt too long", Batch{Tokens: Tokens{InputIDs: [][]int{{1, 2}}, PromptLen: 2}}},
		{"prompt zero", Batch{Tokens: Tokens{InputIDs: [][]int{{1, 2}}, PromptLen: 0}}},
		{"ragged", Batch{Tokens: Tokens{InputIDs: [][]int{{1, 2, 3}, {1, 2}}, PromptLen: 1}}},
		{"id out of vocabulary", Batch{Tokens: Tokens{InputIDs: [][]int{{1, 37}}, PromptLen: 1}}},
		{"negative id", Batch{Tokens: Tokens{InputIDs: [][]int{{-1, 3}}, PromptLen: 1}}},
		{"mask rows", Batch{Tokens: Tokens{InputIDs: [][]int{{1, 2}}, AttentionMask: [][]int{}, PromptLen: 1}}},
		{"negative temperature", Batch{Tokens: Tokens{InputIDs: [][]int{{1, 2}}, PromptLen: 1}, Temperature: -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := m.LogProbs(context.Background(), tc.batch)
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("err = %v, want ErrBadInput", err)
			}
		})
	}
}

func TestBucket(t *testing.T) {
	for _, tc := range []struct{ n, want int }{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 6}, {7, 8}, {9, 12}, {13, 16}, {17, 24}, {64, 64}, {65, 96}, {100, 128}} {
		if got := BucketSize(tc.n); got != tc.want {
			t.Errorf("BucketSize(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// TestTokenLogProbsIsLogSoftmax checks tokenLogProbs bit for bit against
// the log-softmax it stands for, (logits − max) − log Σ exp(logits − max),
// gathered at the targets: gathering the logit first and subtracting after
// is the same float32 arithmetic.
func TestTokenLogProbsIsLogSoftmax(t *testing.T) {
	backend, err := NewBackend("")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(31, 32))
	const b, r, v = 3, 5, 37
	logits := make([]float32, b*r*v)
	for i := range logits {
		logits[i] = float32(rng.NormFloat64() * 4)
	}
	targets := make([]int32, b*r)
	for i := range targets {
		targets[i] = int32(rng.IntN(v))
	}
	exec, err := graph.NewExec(backend, func(logits, targets *graph.Node) []*graph.Node {
		got, _ := tokenLogProbs(logits, targets)
		shifted := graph.Sub(logits, graph.ReduceAndKeep(logits, graph.ReduceMax, -1))
		logSoftmax := graph.Sub(shifted, graph.Log(graph.ReduceAndKeep(graph.Exp(shifted), graph.ReduceSum, -1)))
		oneHot := graph.OneHot(targets, v, dtypes.Float32)
		want := graph.ReduceSum(graph.Where(graph.GreaterThan(oneHot, graph.ScalarZero(logits.Graph(), dtypes.Float32)), logSoftmax, graph.ZerosLike(logSoftmax)), -1)
		return []*graph.Node{got, want}
	})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := exec.Exec(tensors.FromFlatDataAndDimensions(logits, b, r, v), tensors.FromFlatDataAndDimensions(targets, b, r))
	if err != nil {
		t.Fatal(err)
	}
	got, want := tensors.MustCopyFlatData[float32](outs[0]), tensors.MustCopyFlatData[float32](outs[1])
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Errorf("row %d: log-prob %v, log-softmax %v", i, got[i], want[i])
		}
	}
}
