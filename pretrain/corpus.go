package pretrain

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/experience"
)

// episodeSpec is one corpus episode: the task the expert solves and the
// tasks whose worked examples its prompt carries, most relevant first.
type episodeSpec struct {
	taskID   string
	examples []string
	// level, hindsight and relevant describe the episode for the corpus
	// statistics.
	level               int
	hindsight, relevant bool
	// focus cuts the tool list to the tools the expert calls and a few
	// others (the curriculum, CorpusConfig.FocusStart).
	focus bool
	// drill, when set, makes the episode the copy drill of drillSeed
	// instead of taskID's (CorpusConfig.DrillShare).
	drill     bool
	drillSeed uint64
	// skipped marks an episode left out: too long for the context window
	// even without worked examples.
	skipped bool
}

// corpus draws episode specs: the i-th spec is a pure function of the seed
// and i, so batches can be rebuilt on resume.
type corpus struct {
	cfg          CorpusConfig
	seed         int64
	systemPrompt string
	env          *toolworld.Env
	train        []string
	pool         *examplePool
}

// newCorpus builds the corpus environment and indexes its tasks, leaving
// out every task whose instruction is reserved (CorpusConfig.ReserveShare)
// or in heldOut (the held-out tasks the
// card and the trainer's validation measure): in a classic world the
// level-1 instructions are few, and a held-out task the corpus imitated, or
// showed solved as a worked example, would not be held out.
func newCorpus(ctx context.Context, cfg CorpusConfig, seed int64, systemPrompt string, heldOut map[string]bool) (*corpus, error) {
	env, err := toolworld.New(toolworld.Config{
		Seed: seed, Worlds: cfg.Worlds, WorldSeed: cfg.WorldSeed, ValuesOnly: cfg.ValuesOnly, Drift: cfg.Drift, SystemPrompt: systemPrompt,
		TrainSize: cfg.TasksPerSplit, ValSize: cfg.TasksPerSplit, TestSize: cfg.TasksPerSplit,
	})
	if err != nil {
		return nil, fmt.Errorf("pretrain: corpus environment: %w", err)
	}
	c := &corpus{cfg: cfg, seed: seed, systemPrompt: systemPrompt, env: env}
	ids, err := env.TaskIDs(ctx, toolworld.SplitTrain, nil)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		info, err := env.Task(id)
		if err != nil {
			return nil, err
		}
		if !heldOut[info.Instruction] && !toolworld.ReservedInstruction(info.Instruction, cfg.ReserveShare) {
			c.train = append(c.train, id)
		}
	}
	if len(c.train) == 0 {
		return nil, fmt.Errorf("%w: every corpus task is held out", ErrConfig)
	}
	if c.pool, err = newExamplePool(ctx, env, heldOut, cfg.ReserveShare); err != nil {
		return nil, err
	}
	return c, nil
}

// corpusStream separates the corpus's random streams from others.
const corpusStream = 0x636f72707573 // "corpus"

// spec draws the i-th episode.
func (c *corpus) spec(ctx context.Context, i int64) (episodeSpec, error) {
	r := rand.New(rand.NewPCG(uint64(c.seed)^corpusStream, uint64(i)))
	// Drawn only with drills on, so that a corpus without them is the one
	// earlier runs (and the shipped bases) imitated.
	if c.cfg.DrillShare > 0 && r.Float64() < c.cfg.DrillShare {
		return episodeSpec{drill: true, drillSeed: r.Uint64()}, nil
	}
	base := c.train[r.IntN(len(c.train))]
	sp := episodeSpec{taskID: base}
	if r.Float64() < c.cfg.HindsightShare {
		id, err := c.walk(ctx, base, 1+r.IntN(c.cfg.WalkSteps), r.Int64())
		switch {
		case err == nil:
			sp.taskID, sp.hindsight = id, true
		case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			return episodeSpec{}, err
		}
		// A walk that achieved nothing leaves the seed task.
	}
	info, err := c.env.Task(sp.taskID)
	if err != nil {
		return episodeSpec{}, err
	}
	sp.level = info.Level
	sp.focus = r.Float64() < c.cfg.focusShare(i)
	// Drawn only with drift_example_share on, so that earlier corpora
	// keep their episodes.
	forceRelevant := false
	if c.cfg.DriftExampleShare > 0 && !sp.focus && r.Float64() < c.cfg.DriftExampleShare {
		if forceRelevant, err = c.callsDrifted(sp.taskID); err != nil {
			return episodeSpec{}, err
		}
	}
	if !forceRelevant && (r.Float64() >= c.cfg.ExampleShare || sp.focus) {
		return sp, nil
	}
	n := 1 + r.IntN(c.cfg.MaxExamples)
	if forceRelevant || r.Float64() < c.cfg.RelevantShare {
		for range 1 + r.IntN(n) {
			var ex string
			ok := false
			if r.Float64() < c.cfg.SameTaskShare && !slices.Contains(sp.examples, sp.taskID) {
				ex, ok = sp.taskID, true
			} else {
				ex, ok = c.pool.relevant(r, info, sp.examples)
			}
			if !ok {
				break
			}
			sp.examples = append(sp.examples, ex)
			sp.relevant = true
		}
	}
	for len(sp.examples) < n {
		ex, ok := c.pool.unrelated(r, info, sp.examples)
		if !ok {
			break
		}
		sp.examples = append(sp.examples, ex)
	}
	return sp, nil
}

// callsDrifted reports whether the expert's solution of taskID calls an
// API that the task's world renamed (toolworld.Config.Drift).
func (c *corpus) callsDrifted(taskID string) (bool, error) {
	drifted, err := c.env.Drifted(taskID)
	if err != nil || len(drifted) == 0 {
		return false, err
	}
	actions, err := c.env.Solve(taskID)
	if err != nil {
		return false, err
	}
	for _, a := range actions {
		call, err := toolworld.ParseAction(a)
		if err != nil {
			return false, err
		}
		for _, shown := range drifted {
			if shown == call.App+"."+call.API {
				return true, nil
			}
		}
	}
	return false, nil
}

// walk takes steps random calls on base's world and returns the hindsight
// task of what they achieved.
func (c *corpus) walk(ctx context.Context, base string, steps int, seed int64) (string, error) {
	var history []agentevolver.Message
	for range steps {
		a, err := c.env.RandomAction(ctx, base, history, seed)
		if err != nil {
			return "", err
		}
		history = append(history, a)
	}
	t, err := c.env.SynthesizeTask(ctx, base, history)
	if err != nil {
		return "", err
	}
	return t.TaskID, nil
}

// examplePool indexes tasks by world for choosing worked examples: a
// relevant example solves a task of the same family (or, for tasks of
// several goals, of the most similar family), an unrelated one a task of
// another family, both in the task's world so that their calls use the
// names the prompt lists.
type examplePool struct {
	byWorld map[int][]toolworld.TaskInfo
}

// newExamplePool indexes env's tasks except those whose instruction is in
// heldOut or reserved with reserveShare (toolworld.ReservedInstruction).
func newExamplePool(ctx context.Context, env *toolworld.Env, heldOut map[string]bool, reserveShare float64) (*examplePool, error) {
	p := &examplePool{byWorld: map[int][]toolworld.TaskInfo{}}
	for _, split := range []string{toolworld.SplitTrain, toolworld.SplitVal, toolworld.SplitTest} {
		ids, err := env.TaskIDs(ctx, split, nil)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			info, err := env.Task(id)
			if err != nil {
				return nil, err
			}
			if !heldOut[info.Instruction] && !toolworld.ReservedInstruction(info.Instruction, reserveShare) {
				p.byWorld[info.World] = append(p.byWorld[info.World], info)
			}
		}
	}
	return p, nil
}

// relevant picks a task of info's world whose family is info's, else the
// one sharing the largest share of goal kinds; never one in exclude or
// info itself. A hindsight task has no family to match.
func (p *examplePool) relevant(r *rand.Rand, info toolworld.TaskInfo, exclude []string) (string, bool) {
	if info.Family == toolworld.HindsightFamily {
		return "", false
	}
	want := strings.Split(info.Family, "+")
	best, bestScore := []string(nil), 0.0
	for _, t := range p.byWorld[info.World] {
		if t.ID == info.ID || slices.Contains(exclude, t.ID) {
			continue
		}
		score := familyOverlap(want, strings.Split(t.Family, "+"))
		switch {
		case score > bestScore:
			best, bestScore = []string{t.ID}, score
		case score == bestScore && score > 0:
			best = append(best, t.ID)
		}
	}
	if len(best) == 0 {
		return "", false
	}
	return best[r.IntN(len(best))], true
}

// unrelated picks a task of info's world that shares no goal kind with
// it, never one in exclude.
func (p *examplePool) unrelated(r *rand.Rand, info toolworld.TaskInfo, exclude []string) (string, bool) {
	want := strings.Split(info.Family, "+")
	tasks := p.byWorld[info.World]
	for range 64 {
		t := tasks[r.IntN(len(tasks))]
		if t.ID == info.ID || slices.Contains(exclude, t.ID) || t.Family == info.Family {
			continue
		}
		if familyOverlap(want, strings.Split(t.Family, "+")) == 0 {
			return t.ID, true
		}
	}
	return "", false
}

// familyOverlap is the Jaccard similarity of two families' goal kinds.
func familyOverlap(a, b []string) float64 {
	inter := 0
	for _, x := range a {
		if slices.Contains(b, x) {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// text is what the tokenizer learns from: the system prompt of every
// world, and for the first tasks of the corpus each task's instruction, its
// expert's calls and their observations, its worked example as the
// summariser writes it, and the experience template.
func (c *corpus) text(ctx context.Context) ([]string, error) {
	env, err := toolworld.New(toolworld.Config{
		Seed: c.seed, Worlds: c.cfg.Worlds, WorldSeed: c.cfg.WorldSeed, ValuesOnly: c.cfg.ValuesOnly, Drift: c.cfg.Drift, SystemPrompt: c.systemPrompt,
		TrainSize: min(c.cfg.TasksPerSplit, max(2*c.cfg.Worlds, 3000)), ValSize: 3, TestSize: 3,
	})
	if err != nil {
		return nil, fmt.Errorf("pretrain: tokenizer corpus: %w", err)
	}
	docs, err := env.Corpus(ctx, toolworld.SplitTrain)
	if err != nil {
		return nil, err
	}
	ids, err := env.TaskIDs(ctx, toolworld.SplitTrain, nil)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		info, err := env.Task(id)
		if err != nil {
			return nil, err
		}
		actions, err := env.Solve(id)
		if err != nil {
			return nil, err
		}
		lines := make([]string, len(actions))
		for i, a := range actions {
			lines[i] = callLine(a.Content)
		}
		docs = append(docs, "Task: "+info.Instruction+"\nSolved with:\n"+strings.Join(lines, "\n"))
	}
	docs = append(docs, experience.DefaultTemplate)
	if c.cfg.DrillShare > 0 {
		docs = append(docs, drillTemplateText)
	}
	return docs, nil
}
