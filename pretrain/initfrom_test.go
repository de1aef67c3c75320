package pretrain

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/org/agentevolver/runlog"
)

// TestInitFromContinuesAPolicy: a run with init_from starts from the given
// policy's weights and tokenizer (its first loss is that policy's, far
// below a fresh model's), and a policy of another shape is refused.
func TestInitFromContinuesAPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("pretrains a tiny model three times")
	}
	ctx := context.Background()
	first := tinyConfig(t)
	first.Train.Steps, first.Train.EvalEvery, first.Train.SaveEvery = 40, 0, 0
	first.Train.LR, first.Train.MinLR = 3e-3, 3e-3
	res, err := Run(ctx, first, Options{})
	if err != nil {
		t.Fatal(err)
	}

	fresh := tinyConfig(t)
	fresh.Train.Steps, fresh.Train.EvalEvery, fresh.Train.SaveEvery = 1, 0, 0
	if _, err := Run(ctx, fresh, Options{}); err != nil {
		t.Fatal(err)
	}
	cont := fresh
	cont.OutputDir = t.TempDir()
	cont.InitFrom = res.PolicyDir
	cont.TokenizerVocab = 999 // ignored: the tokenizer is the policy's
	contRes, err := Run(ctx, cont, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if contRes.Card.VocabSize != res.Card.VocabSize {
		t.Fatalf("vocabulary %d, the initial policy's is %d", contRes.Card.VocabSize, res.Card.VocabSize)
	}
	if !strings.Contains(contRes.Card.Markdown(), "continuing from") {
		t.Fatal("the card does not say what the run continued from")
	}
	firstLoss := func(dir string) float64 {
		t.Helper()
		recs, err := runlog.ReadMetrics(filepath.Join(dir, MetricsFile))
		if err != nil || len(recs) == 0 {
			t.Fatalf("metrics of %s: %v", dir, err)
		}
		return recs[0].Values["pretrain/loss"]
	}
	lastTrained, freshLoss, contLoss := res.Card.FinalLoss, firstLoss(fresh.OutputDir), firstLoss(cont.OutputDir)
	if !(contLoss < freshLoss-0.5) {
		t.Fatalf("first loss continuing %.3f, from scratch %.3f (the initial policy ended at %.3f)", contLoss, freshLoss, lastTrained)
	}

	// No step at all: the run measures the policy and writes its card.
	measure := cont
	measure.OutputDir = t.TempDir()
	measure.Train.Steps = 0
	measureRes, err := Run(ctx, measure, Options{})
	if err != nil {
		t.Fatalf("a run of 0 steps: %v", err)
	}
	if !strings.Contains(measureRes.Card.Markdown(), "No training step") {
		t.Fatal("the card of a run of 0 steps does not say it trained nothing")
	}

	wrong := cont
	wrong.OutputDir = t.TempDir()
	wrong.Shape.IntermediateSize *= 2
	if _, err := Run(ctx, wrong, Options{}); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "init_from") {
		t.Fatalf("a policy of another shape: %v", err)
	}
}
