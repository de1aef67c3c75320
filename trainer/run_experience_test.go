package trainer

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/experience"
	"github.com/org/agentevolver/runlog"
)

// memoryPool is an experience pool in memory: every update adds one
// experience per trajectory; retrieval returns the latest k.
type memoryPool struct {
	mu      sync.Mutex
	exps    []experience.Experience
	updates [][]agentevolver.Trajectory
}

func (p *memoryPool) Retrieve(_ context.Context, _ []agentevolver.Message, k int) ([]experience.Experience, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exps[max(0, len(p.exps)-k):], nil
}

func (p *memoryPool) Update(_ context.Context, trajs []agentevolver.Trajectory) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.updates = append(p.updates, trajs)
	for _, tr := range trajs {
		p.exps = append(p.exps, experience.Experience{Text: "task " + tr.TaskID + " was tried", TaskID: tr.TaskID})
	}
	return nil
}

// TestFitWithExperiencePool fills a pool before RL from the training
// split, retrieves from it in the rollouts exp_manager selects (every
// validation rollout, with val_rollout_mode all), counts a validation's
// retrievals apart from a step's, and updates the pool from every RL step.
func TestFitWithExperiencePool(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := tinyConfig(t)
	cfg.WarmStart.Steps = 1
	cfg.Experience.TrainRolloutMode, cfg.Experience.RolloutRatio = "mixed", 0.5
	cfg.Experience.TrainSampleMode, cfg.Experience.TrainSampleKeepRatio = "hybrid", 0.5
	cfg.Experience.InitExpBeforeTraining, cfg.Experience.InitTasks, cfg.Experience.SummaryBatchSize = true, 3, 8
	cfg.Experience.UpdatedFreq = 1
	cfg.Experience.ValRolloutMode = "all"
	pool := &memoryPool{}
	if _, err := mustNew(t, cfg, Options{ExperiencePool: pool}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Initialisation: 3 tasks x val_n 1, one request per task; then one
	// update per RL step with its 4 episodes.
	if len(pool.updates) != 5 || len(pool.updates[0]) != 1 || len(pool.updates[3]) != 4 || len(pool.updates[4]) != 4 {
		t.Fatalf("%d updates: %v", len(pool.updates), pool.updates)
	}
	if !strings.HasPrefix(pool.updates[0][0].TaskID, "tw-train-") {
		t.Errorf("initialised from %s, want the training split", pool.updates[0][0].TaskID)
	}
	checkMetricsDocumented(t, cfg.Trainer.OutputDir)
	records, err := runlog.ReadMetrics(filepath.Join(cfg.Trainer.OutputDir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	validations := 0
	for _, r := range records {
		if _, ok := r.Value("val/success"); ok {
			validations++
			hits, _ := r.Value("val/exp_retrieval_hits")
			misses, _ := r.Value("val/exp_retrieval_misses")
			if want := float64(cfg.Data.ValTasks * cfg.Rollout.ValN); hits != want || misses != 0 {
				t.Errorf("validation at step %d: %v hits, %v misses, want %v hits (every rollout)", r.Step, hits, misses, want)
			}
		}
		if _, ok := r.Value("reward/mean"); !ok {
			continue
		}
		hits, _ := r.Value("exp/retrieval_hits")
		upd, ok := r.Value("exp/update_s")
		if hits != 2 || !ok || upd < 0 {
			t.Errorf("step %d: %v retrieval hits (want 2: one rollout of each task), update %v s", r.Step, hits, upd)
		}
	}
	if validations == 0 {
		t.Error("no validation recorded")
	}
}

func TestExperiencePoolConfigErrors(t *testing.T) {
	cfg := tinyConfig(t)
	_, err := New(cfg, withToolworld(Options{ExperiencePool: &memoryPool{}, Hooks: Hooks{Experience: &experience.Injector{}}}))
	if err == nil {
		tr, _ := New(cfg, withToolworld(Options{ExperiencePool: &memoryPool{}, Hooks: Hooks{Experience: &experience.Injector{}}}))
		_, err = tr.Fit(context.Background())
	}
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "ExperiencePool") {
		t.Errorf("pool and injector: err = %v", err)
	}
	for _, bad := range []func(*experience.Config){
		func(c *experience.Config) { c.TrainRolloutMode = "often" },
		func(c *experience.Config) { c.TrainSampleMode = "hybrid"; c.TrainSampleKeepRatio = 2 },
		func(c *experience.Config) { c.ExperienceTemplate = "no placeholder" },
		func(c *experience.Config) { c.UpdatedFreq = -1 },
		func(c *experience.Config) { c.InitExpOnly = true },    // without init_exp_before_training
		func(c *experience.Config) { c.InitFromExpert = true }, // without init_exp_before_training
	} {
		c := FromScratchConfig()
		bad(&c.Experience)
		if err := c.Validate(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "exp_manager") {
			t.Errorf("Validate = %v", err)
		}
	}
}

func TestSummaryChunks(t *testing.T) {
	var trajs []agentevolver.Trajectory
	for _, id := range []string{"b", "a", "b", "a", "a", "c"} {
		trajs = append(trajs, agentevolver.Trajectory{TaskID: id})
	}
	var got []string
	for _, c := range summaryChunks(trajs, 2) {
		var ids []string
		for _, tr := range c {
			ids = append(ids, tr.TaskID)
		}
		got = append(got, strings.Join(ids, ""))
	}
	if strings.Join(got, " ") != "aa a bb c" {
		t.Errorf("chunks %v", got)
	}
}

// TestFitWithLocalPool trains with the built-in pool (embedded store, local
// embedder, worked examples) from exp_manager.pool alone, then resumes
// with the same store file.
func TestFitWithLocalPool(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := tinyConfig(t)
	cfg.WarmStart.Steps = 1
	cfg.Trainer.RLSteps = 1
	cfg.Experience.Pool.Type = experience.PoolLocal
	cfg.Experience.TrainRolloutMode, cfg.Experience.RolloutRatio = "mixed", 0.5
	cfg.Experience.UpdatedFreq = 1
	if _, err := mustNew(t, cfg, Options{}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkMetricsDocumented(t, cfg.Trainer.OutputDir)
	records, err := runlog.ReadMetrics(filepath.Join(cfg.Trainer.OutputDir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if _, ok := r.Value("reward/mean"); !ok {
			continue
		}
		calls, _ := r.Value("exp/summarizer_calls")
		_, sized := r.Value("exp/pool_size")
		if calls != 1 || !sized {
			t.Errorf("step %d: %v summariser calls (want 1: updated_freq 1), pool size reported %v", r.Step, calls, sized)
		}
	}
	path := filepath.Join(cfg.Trainer.OutputDir, ExperienceFile)
	f, err := experience.OpenStoreFile(path, experience.StoreOptions{})
	if err != nil {
		t.Fatalf("the run left no readable store: %v", err)
	}
	_ = f.Close()
	cfg.Trainer.RLSteps = 2
	if _, err := mustNew(t, cfg, Options{Resume: true}).Fit(context.Background()); err != nil {
		t.Fatalf("resume with the pool: %v", err)
	}
	bad := FromScratchConfig()
	bad.Experience.Pool = experience.PoolConfig{Type: experience.PoolLocal, Path: "../outside.db"}
	if err := bad.Validate(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "exp_manager.pool.path") {
		t.Errorf("a pool path leaving the output dir: %v", err)
	}
}

// TestFitInitExpOnly builds the pool and stops (the reference's "Init
// Only" mode): the store holds worked examples, no RL step is taken and
// the summary says so; a later run trains with the pool it left.
func TestFitInitExpOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := tinyConfig(t)
	cfg.WarmStart.Steps = 1
	cfg.Experience.InitExpOnly, cfg.Experience.InitExpBeforeTraining = true, true
	if _, err := mustNew(t, cfg, Options{}).Fit(context.Background()); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "without a pool") {
		t.Fatalf("init_exp_only without a pool: %v", err)
	}
	pool := &memoryPool{}
	summary, err := mustNew(t, cfg, Options{ExperiencePool: pool}).Fit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if summary.RLSteps != 0 || summary.Extras["init_exp_only"] != true || len(pool.updates) == 0 {
		t.Fatalf("summary %+v after %d pool updates; want no RL step, init_exp_only, updates", summary, len(pool.updates))
	}
	records, err := runlog.ReadMetrics(filepath.Join(cfg.Trainer.OutputDir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	validations := 0
	for _, r := range records {
		if _, ok := r.Value("reward/mean"); ok {
			t.Errorf("an RL step was recorded: %+v", r)
		}
		if _, ok := r.Value("val/success"); ok {
			validations++
		}
	}
	if validations != 1 {
		t.Errorf("%d validations recorded, want 1 (before RL, which is also the final one)", validations)
	}
}

// TestFitInitFromExpert fills the pool from the expert's demonstrations
// (exp_manager.init_from_expert): one successful trajectory per init task,
// whatever the untrained policy would have done.
func TestFitInitFromExpert(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := tinyConfig(t)
	cfg.WarmStart.Steps = 0
	cfg.Experience.InitExpOnly, cfg.Experience.InitExpBeforeTraining, cfg.Experience.InitFromExpert = true, true, true
	cfg.Experience.InitTasks = 3 // of the 4 level-1 training tasks
	pool := &memoryPool{}
	if _, err := mustNew(t, cfg, Options{ExperiencePool: pool}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	tasks := map[string]bool{}
	for _, u := range pool.updates {
		for _, tr := range u {
			if tr.Reward.Outcome != 1 {
				t.Errorf("%s: demonstration scored %v", tr.TaskID, tr.Reward.Outcome)
			}
			tasks[tr.TaskID] = true
		}
	}
	if len(tasks) != 3 {
		t.Errorf("the pool saw %d tasks, want the 3 init tasks", len(tasks))
	}
}
