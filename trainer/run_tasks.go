package trainer

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/taskgen"
	"github.com/org/agentevolver/taskgen/grader"
)

// setupTasks loads the original training tasks (data.train_files, else
// the environment's training split, already in r.train) and, when the
// task_manager mixture asks for them, the synthetic tasks of
// task_manager.train_data_path, which a mixtureTaskSource then mixes into
// each epoch. Tasks whose evaluator needs a grader other than the
// environment's get one (taskgen/grader.ByEvaluator over the judge model),
// unless Options.Reward scores every episode already. Validation stays on
// the environment's validation split: a synthetic task made from a
// validation task is refused, as it would leak the held-out set.
func (r *run) setupTasks(ctx context.Context, cfg Config, opts Options) error {
	tm := cfg.Tasks
	if files := cfg.Data.TrainFiles; len(files) > 0 {
		originals, err := readTaskFiles(files)
		if err != nil {
			return err
		}
		for i := range originals {
			originals[i].EnvType = cmp.Or(originals[i].EnvType, r.env.envType)
			originals[i].Evaluator = cmp.Or(originals[i].Evaluator, tm.Grader.OriginalGrader, agentevolver.EvaluatorEnv)
		}
		r.train = originals
	}
	configured := taskgen.UnifiedMixtureStrategy{
		UseOriginal: tm.Mixture.UseOriginalTasks, SyntheticRatio: tm.Mixture.SyntheticDataRatio,
		Shuffle: tm.Mixture.Shuffle, Logger: r.log,
	}
	var strategy taskgen.MixtureStrategy = configured
	// A caller's strategy always chooses the epochs; the configured one
	// only when it is more than all the original tasks.
	mix := configured.NeedSynthetic() || !configured.UseOriginal
	if opts.Mixture != nil {
		strategy, mix = opts.Mixture, true
	}
	if tm.N > 0 && !strategy.NeedSynthetic() {
		// The original accepts this too and synthesises nothing (its
		// mixture asks for no synthetic task); its overall example does so.
		r.log.Warn("trainer: task_manager.n > 0 but task_manager.mixture.synthetic_data_ratio is 0: nothing is synthesised; set the ratio to train on synthetic tasks",
			"n", tm.N)
	}
	if mix {
		if r.hooks.Tasks != nil {
			return fmt.Errorf("%w: Hooks.Tasks and the task mixture (task_manager.mixture or Options.Mixture) both choose the training tasks; choose one", ErrConfig)
		}
		var synth *synthesizer
		if strategy.NeedSynthetic() {
			var err error
			if synth, err = r.newSynthesizer(ctx, cfg, opts); err != nil {
				return err
			}
		}
		var synthetic []agentevolver.Task
		var err error
		if strategy.NeedSynthetic() && synth == nil {
			if tm.TrainDataPath == "" {
				return fmt.Errorf("%w: the task mixture needs synthetic tasks: set task_manager.n (synthesis during training) or task_manager.train_data_path (a task file)", ErrConfig)
			}
			if synthetic, err = readTaskFiles([]string{tm.TrainDataPath}); err != nil {
				return err
			}
			if err := r.checkSynthetic(synthetic); err != nil {
				return err
			}
		}
		src := &mixtureTaskSource{strategy: strategy, synthetic: synthetic, original: r.train, seed: cfg.Trainer.Seed,
			synth: synth, every: tm.RegenerateEvery}
		first, err := src.epoch(ctx, 0)
		if err != nil {
			return err
		}
		r.hooks.Tasks, r.mixture = src, src
		r.log.Info("trainer: task mixture", "original", len(r.train), "synthetic_available", len(src.roundTasks(0)),
			"per_epoch", len(first), "strategy", fmt.Sprintf("%T", strategy), "synthesised", synth != nil)
	}
	if r.reward != nil {
		return nil
	}
	needs := map[string]bool{}
	if tm.N > 0 && tm.Explorer == taskgen.ExplorerLLM {
		needs[agentevolver.EvaluatorSynthetic] = true // an LLM's tasks have no verifiable check
	}
	for _, ts := range [][]agentevolver.Task{r.train, r.synthetic()} {
		for _, t := range ts {
			if e := t.EvaluatorOrDefault(); e != agentevolver.EvaluatorEnv {
				needs[e] = true
			}
		}
	}
	if len(needs) == 0 {
		return nil // the environment grades every task, as without a task manager
	}
	model, err := judgeModel("task_manager.grader.llm", tm.Grader.LLM, opts.JudgeModel)
	if err != nil {
		return fmt.Errorf("%w (tasks name the graders %s)", err, strings.Join(slices.Sorted(maps.Keys(needs)), ", "))
	}
	by := grader.NewByEvaluator(grader.Config{
		Model: model, MaxConcurrency: tm.Grader.LLM.Concurrency,
		SyntheticGrader: tm.Grader.SyntheticGrader, Logger: r.log,
	})
	for name := range needs {
		if _, err := by.Grader(name); err != nil {
			return fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	r.reward = by
	return nil
}

// checkSynthetic refuses synthetic tasks that could not train honestly:
// one made from (or equal to) a validation task, which would leak the
// held-out set into training, and one of another environment type.
//
// It also marks each task synthetic (Metadata[MetadataSynthetic]), for the
// step metrics, and names the run's env type and, when it has none, the
// "synthetic" evaluator (graded by task_manager.grader.synthetic_grader).
func (r *run) checkSynthetic(tasks []agentevolver.Task) error {
	val := map[string]bool{}
	for _, t := range r.val {
		val[t.TaskID] = true
	}
	for i, t := range tasks {
		seed, _ := t.Metadata["seed_task_id"].(string)
		if val[t.TaskID] || (seed != "" && val[seed]) {
			return fmt.Errorf("%w: synthetic task %d (%s) comes from validation task %s: it would leak the held-out set into training",
				ErrConfig, i, t.TaskID, cmp.Or(seed, t.TaskID))
		}
		if t.EnvType != "" && t.EnvType != r.env.envType {
			return fmt.Errorf("%w: synthetic task %d (%s) is for env %q, the run trains on %q", ErrConfig, i, t.TaskID, t.EnvType, r.env.envType)
		}
		tasks[i].EnvType = r.env.envType
		if t.Evaluator == "" {
			tasks[i].Evaluator = agentevolver.EvaluatorSynthetic
		}
		meta := maps.Clone(t.Metadata)
		if meta == nil {
			meta = map[string]any{}
		}
		meta[MetadataSynthetic] = true
		tasks[i].Metadata = meta
	}
	return nil
}

// MetadataSynthetic is the Task.Metadata key the trainer sets to true on
// the synthetic tasks it loads from task_manager.train_data_path.
const MetadataSynthetic = "synthetic"

// isSynthetic reports a task the trainer loaded as synthetic.
func isSynthetic(t agentevolver.Task) bool {
	v, _ := t.Metadata[MetadataSynthetic].(bool)
	return v
}

// synthetic returns the synthetic tasks the mixture's first epoch draws
// from, if any.
func (r *run) synthetic() []agentevolver.Task {
	if r.mixture == nil {
		return nil
	}
	return r.mixture.roundTasks(0)
}

// mixtureMetrics adds the share of a step's tasks that are synthetic and
// the mean outcome of its synthetic and original episodes (each only when
// there are such episodes).
func mixtureMetrics(m map[string]float64, tasks []agentevolver.Task, results []agentflow.Result) {
	synth := 0
	for _, t := range tasks {
		if isSynthetic(t) {
			synth++
		}
	}
	m["tasks/synthetic_share"] = float64(synth) / float64(max(1, len(tasks)))
	var s, o []float64
	for _, res := range results {
		i, err := strconv.Atoi(res.Trajectory.DataID) // the task's index in the step (agentflow.Expand)
		if err != nil || i < 0 || i >= len(tasks) {
			continue
		}
		if isSynthetic(tasks[i]) {
			s = append(s, res.Trajectory.Reward.Outcome)
		} else {
			o = append(o, res.Trajectory.Reward.Outcome)
		}
	}
	if len(s) > 0 {
		m["reward/synthetic"] = mean(s)
	}
	if len(o) > 0 {
		m["reward/original"] = mean(o)
	}
}

// readTaskFiles reads task files into tasks, in order.
func readTaskFiles(paths []string) ([]agentevolver.Task, error) {
	var out []agentevolver.Task
	for _, p := range paths {
		objs, err := taskgen.ReadTaskFile(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		for _, o := range objs {
			out = append(out, o.Task)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: task files %v hold no tasks", ErrConfig, paths)
	}
	return out, nil
}

// mixtureTaskSource is the task_manager mixture as a TaskSource: each epoch
// is strategy.Mix of the synthetic and original tasks, seeded by the run's
// seed and the epoch (a pure function of both, so a resumed run draws the
// same tasks), and step s takes positions s*n .. s*n+n-1 of the epochs
// laid end to end. The synthetic tasks are a file's, or with a synthesizer
// those of the epoch's synthesis round (epoch / every; one round when every
// is 0), made when the epoch is first needed. It is not safe for
// concurrent use (the RL loop asks for one step at a time).
type mixtureTaskSource struct {
	strategy  taskgen.MixtureStrategy
	synthetic []agentevolver.Task
	original  []agentevolver.Task
	seed      int64
	cache     map[int][]agentevolver.Task
	// synth makes the synthetic tasks of each round (nil: synthetic is
	// used); rounds holds them.
	synth  *synthesizer
	every  int
	rounds map[int][]agentevolver.Task
	// sizes are the lengths of the epochs mixed so far, in order.
	sizes []int
}

// roundOf is the synthesis round of epoch e.
func (s *mixtureTaskSource) roundOf(e int) int {
	if s.every <= 0 {
		return 0
	}
	return e / s.every
}

// roundTasks returns the synthetic tasks of a round made so far.
func (s *mixtureTaskSource) roundTasks(round int) []agentevolver.Task {
	if s.synth == nil {
		return s.synthetic
	}
	return s.rounds[round]
}

// syntheticFor returns the synthetic tasks epoch e mixes, synthesising
// its round when needed.
func (s *mixtureTaskSource) syntheticFor(ctx context.Context, e int) ([]agentevolver.Task, error) {
	if s.synth == nil {
		return s.synthetic, nil
	}
	round := s.roundOf(e)
	if t, ok := s.rounds[round]; ok {
		return t, nil
	}
	t, err := s.synth.round(ctx, round)
	if err != nil {
		return nil, err
	}
	if s.rounds == nil {
		s.rounds = map[int][]agentevolver.Task{}
	}
	s.rounds[round] = t
	return t, nil
}

// epoch returns the mixed tasks of epoch e.
func (s *mixtureTaskSource) epoch(ctx context.Context, e int) ([]agentevolver.Task, error) {
	if t, ok := s.cache[e]; ok {
		return t, nil
	}
	synthetic, err := s.syntheticFor(ctx, e)
	if err != nil {
		return nil, err
	}
	st := s.strategy
	if u, ok := st.(taskgen.UnifiedMixtureStrategy); ok {
		seed := int64(uint64(s.seed)*0x9e3779b97f4a7c15 + uint64(e))
		u.Seed = &seed
		st = u
	}
	tasks, err := st.Mix(synthetic, s.original)
	if err != nil {
		return nil, fmt.Errorf("%w: task mixture: %w", ErrConfig, err)
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("%w: the task mixture is empty (%d original, %d synthetic tasks)", ErrConfig, len(s.original), len(synthetic))
	}
	if s.cache == nil || len(s.cache) > 4 {
		s.cache = map[int][]agentevolver.Task{} // the loop only moves forward
	}
	s.cache[e] = tasks
	return tasks, nil
}

// NextTasks implements TaskSource. Epochs may differ in length when their
// synthesis rounds made different numbers of tasks.
func (s *mixtureTaskSource) NextTasks(ctx context.Context, step, n int) ([]agentevolver.Task, error) {
	out := make([]agentevolver.Task, 0, n)
	for i := range n {
		pos := step*n + i
		e, start := 0, 0
		for {
			if e == len(s.sizes) {
				tasks, err := s.epoch(ctx, e)
				if err != nil {
					return nil, err
				}
				s.sizes = append(s.sizes, len(tasks))
			}
			if pos < start+s.sizes[e] {
				break
			}
			start += s.sizes[e]
			e++
		}
		tasks, err := s.epoch(ctx, e)
		if err != nil {
			return nil, err
		}
		out = append(out, tasks[pos-start])
	}
	return out, nil
}
