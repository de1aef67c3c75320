package trainer

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/experience"
)

// TestWarmStartWithExperience replays a share of the demonstrations with
// the other demonstrations' experience in the prompt, never a task's own.
func TestWarmStartWithExperience(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.WarmStart.Steps, cfg.WarmStart.Demos, cfg.WarmStart.ExperienceShare = 1, 8, 0.5
	cfg.Experience.RetrieveTopK = 2
	cfg.Env.Toolworld.TrainSize = 24 // every third is a training task
	pool := &memoryPool{}
	tr := mustNew(t, cfg, Options{ExperiencePool: pool})
	ctx := context.Background()
	r, err := tr.open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	samples, err := r.demonstrations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(pool.exps) != 8 {
		t.Fatalf("the pool holds %d experiences, want one per demonstration (8); %d samples, updates %d", len(pool.exps), len(samples), len(pool.updates))
	}
	if len(r.train) != 8 {
		t.Fatalf("%d training tasks, want 8", len(r.train))
	}
	perTask := map[string]int{}
	withExp := 0
	for _, s := range samples {
		perTask[s.TaskID]++
		prompt, err := r.tok.Decode(s.PromptIDs)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(prompt, "was tried") {
			continue
		}
		withExp++
		if strings.Contains(prompt, "task "+s.TaskID+" was tried") {
			t.Errorf("%s's prompt holds its own experience", s.TaskID)
		}
		if n := strings.Count(prompt, "was tried"); n != 2 {
			t.Errorf("%s's prompt holds %d experiences, want retrieve_top_k 2", s.TaskID, n)
		}
	}
	twice := 0
	for _, n := range perTask {
		if n > 1 {
			twice++
		}
	}
	if len(perTask) != 8 || withExp == 0 || twice != 4 {
		t.Errorf("%d tasks, %d samples with experience, %d tasks replayed twice: want 8 tasks, 4 of them twice", len(perTask), withExp, twice)
	}
	// Replaying the same configuration picks the same tasks.
	pool.exps = nil
	again, err := r.demonstrations(ctx)
	if err != nil || len(again) != len(samples) {
		t.Fatalf("again: %d samples, err %v; want %d", len(again), err, len(samples))
	}
}

func TestWarmStartWithExperienceNeedsPool(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.WarmStart.Steps, cfg.WarmStart.ExperienceShare = 1, 0.5
	if _, err := mustNew(t, cfg, Options{}).Fit(context.Background()); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "experience_share") {
		t.Errorf("without a pool: err = %v", err)
	}
	for _, share := range []float64{-0.1, 1.5} {
		c := FromScratchConfig()
		c.WarmStart.ExperienceShare = share
		if err := c.Validate(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "experience_share") {
			t.Errorf("share %v: Validate = %v", share, err)
		}
	}
}

// TestPoolInitFrom starts a run's local pool as a copy of another store
// file (exp_manager.pool.init_from), leaving the source unchanged, and
// refuses a missing file or the run's own.
func TestPoolInitFrom(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "start.db")
	f, err := experience.OpenStoreFile(src, experience.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := f.Workspace("default", experience.NewLocalEmbedder(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Add(ctx, []experience.Experience{{Text: "Task: Call Bob.\nSolved with:\nphone.call name=Bob", Key: "Call Bob.", TaskID: "t2", Score: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(src)

	cfg := tinyConfig(t)
	cfg.Experience.Pool.Type, cfg.Experience.Pool.InitFrom = experience.PoolLocal, src
	r, err := mustNew(t, cfg, Options{}).open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	exps, err := r.pool.Retrieve(ctx, []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "Call Amy."}}, 3)
	r.close()
	if err != nil || len(exps) != 1 || exps[0].TaskID != "t2" {
		t.Fatalf("retrieved %+v, err %v: want the source's experience", exps, err)
	}
	if got := cfg.ExperiencePoolFile(); got != filepath.Join(cfg.Trainer.OutputDir, ExperienceFile) {
		t.Errorf("ExperiencePoolFile = %q", got)
	}
	if after, _ := os.ReadFile(src); !bytes.Equal(before, after) {
		t.Error("the source store changed")
	}

	for _, from := range []string{filepath.Join(t.TempDir(), "missing.db"), "own"} {
		cfg := tinyConfig(t)
		cfg.Experience.Pool.Type, cfg.Experience.Pool.InitFrom = experience.PoolLocal, from
		if from == "own" {
			cfg.Experience.Pool.InitFrom = cfg.ExperiencePoolFile()
		}
		if _, err := mustNew(t, cfg, Options{}).Fit(ctx); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "init_from") {
			t.Errorf("init_from %s: err = %v", from, err)
		}
	}
}
