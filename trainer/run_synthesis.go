package trainer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/taskgen"
)

// SynthesisDir holds the synthetic tasks of each round under the run's
// output directory (round_NNNN.jsonl) and the generator's checkpoint.
const SynthesisDir = "task_manager"

// synthesizer makes the synthetic tasks of one round during training: it
// explores the seed tasks' worlds N times each, summarises the
// explorations into tasks, filters them (realtime near-duplicate filter,
// then the environment's replay of each ground truth when it has an
// expert) and writes them to the run directory, from which a resumed run
// reads them back. A round is a pure function of the run's seed and its
// number.
type synthesizer struct {
	cfg   taskgen.Config
	seed  int64
	dir   string
	seeds []agentevolver.Task
	// difficulties is the profile's relation difficulty: explorations
	// cycle through 1..difficulties so that the tasks cover every
	// difficulty the profile names.
	difficulties int
	gen          func(round int) *taskgen.Generator
	log          *slog.Logger
	check        func([]agentevolver.Task) error
}

// newSynthesizer builds the round generator of cfg's task manager, or nil
// when in-training synthesis is off (task_manager.n == 0).
func (r *run) newSynthesizer(ctx context.Context, cfg Config, opts Options) (*synthesizer, error) {
	tm := cfg.Tasks
	if tm.N == 0 {
		return nil, nil
	}
	s := &synthesizer{cfg: tm, seed: cfg.Trainer.Seed, dir: filepath.Join(r.dir, SynthesisDir), log: r.log, check: r.checkSynthetic, difficulties: 1}
	switch cmp.Or(tm.ExploreSeeds, taskgen.ExploreSplit) {
	case taskgen.ExploreSplit:
		seeds, err := r.env.tasks(ctx, cfg, cfg.Data.TrainSplit)
		if err != nil {
			return nil, err
		}
		s.seeds = seeds
	case taskgen.ExploreOriginal:
		s.seeds = r.train
	}
	var profile *agentevolver.EnvProfile
	if pp, ok := r.env.impl.(envservice.ProfileProvider); ok {
		p := pp.Profile()
		profile = &p
		s.difficulties = max(1, p.TaskPreference.RelationDifficulty)
	}
	env, envType := r.env.env, r.env.envType
	switch cmp.Or(tm.Explorer, taskgen.ExplorerRandom) {
	case taskgen.ExplorerRandom:
		walker, ok := r.env.impl.(envservice.RandomExplorer)
		synth, ok2 := r.env.impl.(envservice.TaskSynthesizer)
		if !ok || !ok2 {
			return nil, fmt.Errorf("%w: task_manager.explorer %s needs a built-in environment with random actions and hindsight tasks (envservice.RandomExplorer and TaskSynthesizer); set task_manager.explorer: llm", ErrConfig, taskgen.ExplorerRandom)
		}
		expert, _ := r.env.impl.(envservice.Expert)
		s.gen = func(round int) *taskgen.Generator {
			g := s.generator(round, &difficultyWalker{
				inner: taskgen.RandomWalkExplorer{Env: env, Actions: walker, EnvType: envType, Profile: profile, Logger: r.log},
				max:   s.difficulties, seed: s.seed,
			}, &taskgen.HindsightSummarizer{Synthesizer: synth})
			if expert != nil {
				g.PostFilter = &taskgen.EnvPostFilter{Env: env, Expert: expert, EnvType: envType, Logger: r.log}
			}
			return g
		}
	case taskgen.ExplorerLLM:
		model, err := judgeModel("task_manager.llm", tm.LLM, opts.ExplorerModel)
		if err != nil {
			return nil, err
		}
		s.gen = func(round int) *taskgen.Generator {
			g := s.generator(round,
				&taskgen.LLMExplorer{Env: env, Model: model, EnvType: envType, Profile: profile, MaxSteps: tm.MaxExploreSteps, Logger: r.log},
				&taskgen.LLMSummarizer{Model: model, Profile: profile, Logger: r.log})
			g.PostFilter = &taskgen.LLMPostFilter{Env: env, Model: model, EnvType: envType, MaxSteps: tm.MaxExploreSteps, Seed: s.roundSeed(round), Logger: r.log}
			return g
		}
	}
	return s, nil
}

// generator is the round's generator over explorer and summarizer.
func (s *synthesizer) generator(round int, ex taskgen.Explorer, sum taskgen.Summarizer) *taskgen.Generator {
	return &taskgen.Generator{
		Explorer: ex, Summarizer: sum, N: s.cfg.N, Concurrency: s.cfg.Concurrency,
		CheckpointPath: filepath.Join(s.dir, fmt.Sprintf("round_%04d.checkpoint.json", round)),
		Logger:         s.log, Seed: s.roundSeed(round),
	}
}

func (s *synthesizer) roundSeed(round int) int64 {
	return int64(uint64(s.seed)*0x2545f4914f6cdd1d + uint64(round)*0x9e3779b97f4a7c15)
}

// round returns the synthetic tasks of round: read from its file when an
// earlier run of this output directory made it, else generated and
// written there.
//
// Round 0 also honours task_manager.train_data_path as the original's task
// cache: a file there is read instead of synthesising, and the tasks made
// otherwise are written there too, for the next run to read.
func (s *synthesizer) round(ctx context.Context, round int) ([]agentevolver.Task, error) {
	cache := ""
	if round == 0 {
		cache = s.cfg.TrainDataPath
	}
	if cache != "" {
		objs, err := taskgen.ReadTaskFile(cache)
		switch {
		case err == nil:
			s.log.Info("trainer: synthetic tasks read from task_manager.train_data_path (the task cache)", "path", cache, "tasks", len(objs))
			return s.tasks(objs, round)
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("%w: task_manager.train_data_path: %w", ErrConfig, err)
		}
	}
	path := filepath.Join(s.dir, fmt.Sprintf("round_%04d.jsonl", round))
	objs, err := taskgen.ReadTaskFile(path)
	switch {
	case err == nil:
		s.log.Info("trainer: synthetic tasks read", "round", round, "tasks", len(objs))
	case errors.Is(err, fs.ErrNotExist):
		seeds := s.seeds
		if n := s.cfg.MaxExploreSeeds; n > 0 && n < len(seeds) {
			rng := rand.New(rand.NewPCG(uint64(s.roundSeed(round)), 0x7365656473)) // "seeds"
			seeds = make([]agentevolver.Task, n)
			for i, j := range rng.Perm(len(s.seeds))[:n] {
				seeds[i] = s.seeds[j]
			}
		}
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return nil, fmt.Errorf("trainer: task synthesis: %w", err)
		}
		var rep taskgen.GenerateReport
		objs, rep, err = s.gen(round).Generate(ctx, seeds)
		if err != nil {
			return nil, fmt.Errorf("trainer: task synthesis round %d: %w", round, err)
		}
		if len(objs) == 0 {
			return nil, fmt.Errorf("trainer: task synthesis round %d made no task from %d explorations (%d failed, %d empty summaries)",
				round, rep.Items, rep.ExploreFailures, rep.EmptySummaries)
		}
		if err := taskgen.WriteTaskFile(path, objs); err != nil {
			return nil, fmt.Errorf("trainer: task synthesis round %d: %w", round, err)
		}
		s.log.Info("trainer: synthetic tasks made", "round", round, "explorations", rep.Items, "objectives", rep.Objectives,
			"after_realtime", rep.AfterRealtime, "kept", rep.AfterPostFilter)
	default:
		return nil, fmt.Errorf("trainer: synthetic tasks of round %d: %w", round, err)
	}
	if cache != "" {
		if err := taskgen.WriteTaskFile(cache, objs); err != nil {
			return nil, fmt.Errorf("trainer: task_manager.train_data_path: %w", err)
		}
		s.log.Info("trainer: synthetic tasks written to task_manager.train_data_path (the task cache)", "path", cache, "tasks", len(objs))
	}
	return s.tasks(objs, round)
}

// tasks returns the tasks of round's objectives, checked.
func (s *synthesizer) tasks(objs []agentevolver.TaskObjective, round int) ([]agentevolver.Task, error) {
	tasks := make([]agentevolver.Task, len(objs))
	for i, o := range objs {
		tasks[i] = o.Task
		if tasks[i].Query == "" && o.Task.Query == "" {
			return nil, fmt.Errorf("trainer: synthetic task %s of round %d has no query", o.Task.TaskID, round)
		}
	}
	if err := s.check(tasks); err != nil {
		return nil, err
	}
	return tasks, nil
}

// difficultyWalker is a random-walk explorer whose walk length follows a
// difficulty cycle, so that hindsight tasks cover every difficulty the
// environment's profile names: exploration i of a seed task (by its
// seed) has difficulty 1 + h mod max, and walks 1 call at difficulty 1
// (a one-call task), 2 or 3 at 2 (several calls) and 3 to 5 at 3 and
// above (long walks, where chained calls appear).
type difficultyWalker struct {
	inner taskgen.RandomWalkExplorer
	max   int
	seed  int64
}

// Explore implements taskgen.Explorer.
func (w *difficultyWalker) Explore(ctx context.Context, task agentevolver.Task, seed int64) (agentevolver.Trajectory, error) {
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(w.seed)))
	d := 1 + rng.IntN(max(1, w.max))
	steps := 1
	switch {
	case d == 2:
		steps = 2 + rng.IntN(2)
	case d >= 3:
		steps = 3 + rng.IntN(3)
	}
	ex := w.inner
	ex.MaxSteps = steps
	return ex.Explore(ctx, task, seed)
}

var _ taskgen.Explorer = (*difficultyWalker)(nil)
