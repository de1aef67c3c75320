package trainer

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/experience"
)

// allocateExperience sets the experience fields of rollouts, n per task
// in task order, from a, seeded by (seed, phase, step) so a resumed run
// allocates as the uninterrupted one did. Without an injector no rollout
// asks for experience.
func (r *run) allocateExperience(rollouts []agentflow.Rollout, n int, a experience.Allocation, phase, step int) error {
	if r.hooks.Experience == nil || n == 0 {
		return nil
	}
	seed := uint64(*rolloutSeed(r.cfg.Trainer.Seed, phase, step, -1, -1)) // -1: no episode's seed
	alloc, err := experience.Allocate(a, seed, len(rollouts)/n, n)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	for i := range rollouts {
		t := alloc[i/n]
		rollouts[i].AddExperience = t.AddExperience[i%n]
		rollouts[i].TrainMode = t.TrainMode
	}
	return nil
}

// ExperienceFile is the local experience store's file name in the output
// directory (exp_manager.pool.type local without a path).
const ExperienceFile = "experience.db"

// setupExperience wires Options.ExperiencePool, or the pool
// exp_manager.pool builds: an injector over it becomes the rollouts'
// Hooks.Experience.
func (r *run) setupExperience(cfg Config, opts Options) error {
	pool := opts.ExperiencePool
	if pool == nil && cfg.Experience.Pool.Type != "" {
		if from := cfg.Experience.Pool.InitFrom; from != "" && !opts.Resume && cfg.Experience.Pool.Type == experience.PoolLocal {
			if err := copyPoolFile(from, localPoolPath(cfg)); err != nil {
				return err
			}
		}
		p, closeFn, err := openExperiencePool(cfg)
		if err != nil {
			return err
		}
		pool, r.closePool = p, closeFn
	}
	if pool == nil {
		if cfg.Experience.InitExpOnly {
			return fmt.Errorf("%w: exp_manager.init_exp_only without a pool (exp_manager.pool or Options.ExperiencePool)", ErrConfig)
		}
		return nil
	}
	if r.hooks.Experience != nil {
		return fmt.Errorf("%w: Options.ExperiencePool (or exp_manager.pool) and Hooks.Experience both inject experience; choose one", ErrConfig)
	}
	r.pool = pool
	r.injector = &experience.Injector{Pool: r.pool, Template: cfg.Experience.ExperienceTemplate, TopK: cfg.Experience.RetrieveTopK}
	r.hooks.Experience = r.injector
	return nil
}

// initExperience fills the pool before RL (exp_manager.
// init_exp_before_training): episodes of the init split's tasks at the
// validation temperature, summarised per task in chunks of
// summary_batch_size trajectories. Failed episodes are left out, as
// everywhere.
func (r *run) initExperience(ctx context.Context) error {
	ec := r.cfg.Experience
	if r.pool == nil || !ec.InitExpBeforeTraining {
		return nil
	}
	began := time.Now()
	tasks, err := r.env.tasks(ctx, r.cfg, cmp.Or(ec.InitSplit, r.cfg.Data.TrainSplit))
	if err != nil {
		return err
	}
	if ec.InitTasks > 0 && ec.InitTasks < len(tasks) {
		tasks = tasks[:ec.InitTasks]
	}
	if ec.InitFromExpert {
		return r.initExperienceFromExpert(ctx, tasks, began)
	}
	k := r.cfg.Rollout.ValN
	rollouts := agentflow.Expand(tasks, k)
	for i := range rollouts {
		rollouts[i].Seed = rolloutSeed(r.cfg.Trainer.Seed, phaseInitExperience, 0, i/k, i%k)
	}
	if err := r.allocateExperience(rollouts, k, r.cfg.Experience.ValAllocation(), phaseInitExperience, 0); err != nil {
		return err
	}
	results, failures, err := r.runEpisodes(ctx, r.runner(r.flow(r.policy, r.cfg.Rollout.ValTemperature)), rollouts, "init_experience", 0)
	retrievals := r.retrievalsSince() // logged below, not counted as the first validation's
	if err != nil {
		return fmt.Errorf("trainer: experience initialisation: %w", err)
	}
	trajs := make([]agentevolver.Trajectory, len(results))
	for i, res := range results {
		trajs[i] = res.Trajectory
	}
	requests, err := r.addToPool(ctx, trajs)
	if err != nil {
		return fmt.Errorf("trainer: experience initialisation: %w", err)
	}
	r.log.Info("trainer: experience pool initialised", "split", cmp.Or(ec.InitSplit, r.cfg.Data.TrainSplit), "tasks", len(tasks),
		"episodes", len(trajs), "failed", failures.failed, "requests", requests, "retrieval_hits", retrievals.Hits,
		"seconds", time.Since(began).Seconds())
	return nil
}

// initExperienceFromExpert fills the pool from the expert's
// demonstrations of tasks (exp_manager.init_from_expert), replayed through
// the policy's episode loop so that they are trajectories like a
// rollout's. A demonstration that fails or scores below 1 is left out and
// counted.
func (r *run) initExperienceFromExpert(ctx context.Context, tasks []agentevolver.Task, began time.Time) error {
	expert, ok := r.env.impl.(envservice.Expert)
	if !ok {
		return fmt.Errorf("%w: exp_manager.init_from_expert needs an environment with demonstrations (envservice.Expert)", ErrConfig)
	}
	_, errs, results, err := r.replayExpert(ctx, expert, tasks)
	if err != nil {
		return err
	}
	var trajs []agentevolver.Trajectory
	for i, res := range results {
		if errs[i] == nil {
			trajs = append(trajs, res.Trajectory)
		}
	}
	if len(trajs) == 0 {
		return fmt.Errorf("trainer: experience initialisation: no usable demonstration: %w", agentflow.JoinFailures(errs...))
	}
	requests, err := r.addToPool(ctx, trajs)
	if err != nil {
		return fmt.Errorf("trainer: experience initialisation: %w", err)
	}
	r.log.Info("trainer: experience pool initialised from demonstrations", "tasks", len(tasks),
		"demonstrations", len(trajs), "skipped", len(tasks)-len(trajs), "requests", requests, "seconds", time.Since(began).Seconds())
	return nil
}

// addToPool adds trajectories to the pool before RL, grouped by task in
// requests of exp_manager.summary_batch_size, and takes the pool's counts
// as the baseline the steps' metrics count their own updates from. It
// returns the number of requests.
func (r *run) addToPool(ctx context.Context, trajs []agentevolver.Trajectory) (int, error) {
	chunks := summaryChunks(trajs, cmp.Or(r.cfg.Experience.SummaryBatchSize, 8))
	for _, c := range chunks {
		if err := r.pool.Update(ctx, c); err != nil {
			return 0, err
		}
	}
	if ps, ok := r.pool.(poolWithStats); ok {
		r.updated = ps.Stats()
	}
	return len(chunks), nil
}

// summaryChunks groups trajectories by task (sorted by task id, as the
// reference does) and cuts each group into chunks of at most size.
func summaryChunks(trajs []agentevolver.Trajectory, size int) [][]agentevolver.Trajectory {
	sorted := slices.Clone(trajs)
	slices.SortStableFunc(sorted, func(a, b agentevolver.Trajectory) int { return strings.Compare(a.TaskID, b.TaskID) })
	var out [][]agentevolver.Trajectory
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j].TaskID == sorted[i].TaskID && j-i < size {
			j++
		}
		out = append(out, sorted[i:j])
		i = j
	}
	return out
}

// pendingUpdate is a pool update running in the background.
type pendingUpdate struct {
	done chan error
	took time.Duration // set before done is sent
}

// startPoolUpdate updates the pool with a step's trajectories in the
// background when exp_manager.updated_freq says so (the 1-based step is a
// multiple of it); nil otherwise.
func (r *run) startPoolUpdate(ctx context.Context, step int, trajs []agentevolver.Trajectory) *pendingUpdate {
	f := r.cfg.Experience.UpdatedFreq
	if r.pool == nil || f <= 0 || step%f != 0 || len(trajs) == 0 {
		return nil
	}
	u := &pendingUpdate{done: make(chan error, 1)}
	trajs = slices.Clone(trajs)
	go func() {
		began := time.Now()
		err := r.pool.Update(ctx, trajs)
		u.took = time.Since(began)
		u.done <- err
	}()
	return u
}

// finish waits for the update and adds its metrics. A failed update is
// logged and counted, not fatal: the pool keeps what it had and training
// goes on, as in the reference.
func (u *pendingUpdate) finish(r *run, step int, m map[string]float64) {
	if u == nil {
		return
	}
	err := <-u.done
	m["exp/update_s"] = u.took.Seconds() // the update's own time, not the wait for it
	m["exp/update_failed"] = 0
	if err != nil {
		m["exp/update_failed"] = 1
		r.log.Warn("trainer: experience pool update failed; the pool keeps what it had", "step", step, "err", err)
	}
}

// poolWithStats is a pool that counts its updates (experience.LocalPool).
type poolWithStats interface {
	Stats() experience.PoolStats
}

// storeWithLen is a store that knows its size (experience.Workspace).
type storeWithLen interface {
	Len() int
}

// updateMetrics adds the summariser calls and distilled experiences since
// the last call, and the pool's size, for a pool that reports them.
func (r *run) updateMetrics(m map[string]float64) {
	ps, ok := r.pool.(poolWithStats)
	if !ok {
		return
	}
	now := ps.Stats()
	m["exp/summarizer_calls"] = float64(now.SummarizerCalls - r.updated.SummarizerCalls)
	m["exp/distilled"] = float64(now.Distilled - r.updated.Distilled)
	r.updated = now
	if lp, ok := r.pool.(*experience.LocalPool); ok {
		if st, ok := lp.Store().(storeWithLen); ok {
			m["exp/pool_size"] = float64(st.Len())
		}
	}
}

// injectionMetrics adds the retrievals since the last call.
func (r *run) injectionMetrics(m map[string]float64, finished []agentevolver.Trajectory) {
	if r.injector == nil {
		return
	}
	// Whether experience helps the rollouts that see it: the mean outcome
	// of the episodes with injected experience and of the others.
	var with, without []float64
	for _, t := range finished {
		if len(t.Experience.Injected) > 0 {
			with = append(with, t.Reward.Outcome)
		} else {
			without = append(without, t.Reward.Outcome)
		}
	}
	if len(with) > 0 {
		m["exp/reward_with"] = mean(with)
	}
	if len(without) > 0 {
		m["exp/reward_without"] = mean(without)
	}
	d := r.retrievalsSince()
	m["exp/retrieval_hits"] = float64(d.Hits)
	m["exp/retrieval_misses"] = float64(d.Misses)
	m["exp/retrieval_errors"] = float64(d.Errors)
}

// retrievalsSince returns the injector's retrievals since the last call
// (zero without an injector).
func (r *run) retrievalsSince() experience.InjectorStats {
	if r.injector == nil {
		return experience.InjectorStats{}
	}
	now := r.injector.Stats()
	d := experience.InjectorStats{Hits: now.Hits - r.injected.Hits, Misses: now.Misses - r.injected.Misses, Errors: now.Errors - r.injected.Errors}
	r.injected = now
	return d
}

// openExperiencePool builds the pool of cfg's exp_manager.pool section
// and returns it with the function that closes it.
func openExperiencePool(cfg Config) (experience.Pool, func() error, error) {
	p := cfg.Experience.Pool
	switch p.Type {
	case experience.PoolReMe:
		c, err := experience.NewReMe(experience.ReMeConfig{BaseURL: p.BaseURL, WorkspaceID: p.WorkspaceID})
		if err != nil {
			return nil, nil, fmt.Errorf("%w: exp_manager.pool: %w", ErrConfig, err)
		}
		return c, func() error { return nil }, nil
	case experience.PoolLocal:
		f, err := experience.OpenStoreFile(localPoolPath(cfg), experience.StoreOptions{})
		if err != nil {
			return nil, nil, fmt.Errorf("trainer: experience pool: %w", err)
		}
		ws, err := f.Workspace(cmp.Or(p.WorkspaceID, "default"), experience.NewLocalEmbedder(0))
		if err != nil {
			_ = f.Close()
			return nil, nil, fmt.Errorf("trainer: experience pool: %w", err)
		}
		return experience.NewLocalPool(ws, &experience.WorkedExampleSummarizer{}), f.Close, nil
	}
	return nil, nil, fmt.Errorf("%w: exp_manager.pool.type %q", ErrConfig, p.Type)
}

// localPoolPath is the store file of a local pool: exp_manager.pool.path,
// relative to the output directory, or ExperienceFile there.
func localPoolPath(cfg Config) string {
	path := cmp.Or(cfg.Experience.Pool.Path, ExperienceFile)
	if !filepath.IsAbs(path) {
		path = filepath.Join(cfg.Trainer.OutputDir, path)
	}
	return path
}

// ExperiencePoolFile is the store file a run with the built-in local pool
// (exp_manager.pool.type local) keeps its experience in, "" for a run
// without one.
func (c Config) ExperiencePoolFile() string {
	if c.Experience.Pool.Type != experience.PoolLocal {
		return ""
	}
	return localPoolPath(c)
}

// copyPoolFile makes dst a copy of the store file src (exp_manager.pool.
// init_from), written beside dst and renamed into place, so that a copy
// cut short never passes for a pool. The store checks the copy when it
// opens it, as it checks any file. Not fsutil.WriteFileAtomic: that makes
// files readable by everyone, and a store is private (0600).
func copyPoolFile(src, dst string) error {
	if filepath.Clean(src) == filepath.Clean(dst) {
		return fmt.Errorf("%w: exp_manager.pool.init_from is the run's own pool file %s", ErrConfig, dst)
	}
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("%w: exp_manager.pool.init_from: %w", ErrConfig, err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("trainer: experience pool: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), filepath.Base(dst)+".copy-*")
	if err != nil {
		return fmt.Errorf("trainer: experience pool: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return fmt.Errorf("trainer: experience pool: copying %s: %w", src, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("trainer: experience pool: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("trainer: experience pool: %w", err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("trainer: experience pool: %w", err)
	}
	return nil
}
