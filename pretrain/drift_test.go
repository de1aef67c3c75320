package pretrain

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestDriftCorpus: with drift_example_share 1 and no other examples,
// every episode whose expert calls a renamed API carries a relevant
// worked example first, and no other episode carries one.
func TestDriftCorpus(t *testing.T) {
	ctx := context.Background()
	cfg := DefaultConfig().Corpus
	cfg.Worlds, cfg.ValuesOnly, cfg.Drift, cfg.DriftExampleShare = 10, true, 0.5, 1
	cfg.TasksPerSplit, cfg.ExampleShare, cfg.HindsightShare, cfg.SameTaskShare = 300, 0, 0, 0
	c, err := newCorpus(ctx, cfg, 3, DefaultSystemPrompt, nil)
	if err != nil {
		t.Fatal(err)
	}
	touched := 0
	for i := range int64(200) {
		sp, err := c.spec(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		drifted, err := c.callsDrifted(sp.taskID)
		if err != nil {
			t.Fatal(err)
		}
		if !drifted {
			if len(sp.examples) > 0 {
				t.Fatalf("spec %d (%s) calls no renamed API but has examples %v", i, sp.taskID, sp.examples)
			}
			continue
		}
		touched++
		if sp.relevant {
			continue
		}
		// Only where the world has no task of a similar family.
		info, err := c.env.Task(sp.taskID)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := c.pool.relevant(rand.New(rand.NewPCG(1, 2)), info, nil); ok {
			t.Fatalf("spec %d (%s) calls a renamed API without a relevant example: %+v", i, sp.taskID, sp)
		}
	}
	if touched < 40 || touched > 180 {
		t.Errorf("%d of 200 episodes call a renamed API; want about half or more", touched)
	}
}
