package pretrain

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/llm"
)

// Conditions of a held-out measurement: what the task message carries.
const (
	// CondNone: no worked example.
	CondNone = "none"
	// CondRelevant: the worked example of a task of the same family in
	// the same world (for tasks of several goals, the most similar
	// family).
	CondRelevant = "relevant"
	// CondUnrelated: the worked example of a task of another family in
	// the same world.
	CondUnrelated = "unrelated"
)

// evaluator measures greedy success on the held-out worlds.
type evaluator struct {
	env         *toolworld.Env
	replay      *replayer // of env: episodes and worked examples
	pool        *examplePool
	context     contextmgr.Config
	maxSteps    int
	concurrency int
	seed        int64
}

// heldOutEnv is the environment of the card's measurements: worlds drawn
// with EvalConfig.WorldSeed, TasksPerLevel validation tasks per level, a
// training split as the source of worked examples.
func heldOutEnv(cfg Config) (*toolworld.Env, error) {
	n := 3 * max(cfg.Eval.TasksPerLevel, cfg.Eval.QuickTasksPerLevel, cfg.Eval.CheckTasks)
	env, err := toolworld.New(toolworld.Config{
		Seed: cfg.Seed, Worlds: cfg.Eval.Worlds, WorldSeed: cfg.Eval.WorldSeed, ValuesOnly: cfg.Eval.ValuesOnly, Drift: cfg.Eval.Drift, SystemPrompt: cfg.Context.SystemPrompt,
		TrainSize: max(3000, 50*cfg.Eval.Worlds), ValSize: n, TestSize: 3,
	})
	if err != nil {
		return nil, fmt.Errorf("pretrain: held-out environment: %w", err)
	}
	return env, nil
}

func newEvaluator(ctx context.Context, cfg Config, ctxCfg contextmgr.Config, log *slog.Logger) (*evaluator, error) {
	env, err := heldOutEnv(cfg)
	if err != nil {
		return nil, err
	}
	rp, err := newReplayer(env, ctxCfg, log)
	if err != nil {
		return nil, err
	}
	pool, err := newExamplePool(ctx, env, nil, 0)
	if err != nil {
		rp.close()
		return nil, err
	}
	return &evaluator{env: env, replay: rp, pool: pool, context: ctxCfg, maxSteps: cfg.Context.MaxSteps,
		concurrency: cfg.Eval.Concurrency, seed: cfg.Seed}, nil
}

func (e *evaluator) close() { e.replay.close() }

// heldOutInstructions returns the instructions of the held-out tasks, which
// the corpus leaves out.
func heldOutInstructions(ctx context.Context, cfg Config) (map[string]bool, error) {
	env, err := heldOutEnv(cfg)
	if err != nil {
		return nil, err
	}
	ids, err := env.TaskIDs(ctx, toolworld.SplitVal, nil)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		info, err := env.Task(id)
		if err != nil {
			return nil, err
		}
		out[info.Instruction] = true
	}
	return out, nil
}

// levelTasks returns the first n validation tasks of each level.
func (e *evaluator) levelTasks(ctx context.Context, n int) (map[int][]string, error) {
	ids, err := e.env.TaskIDs(ctx, toolworld.SplitVal, nil)
	if err != nil {
		return nil, err
	}
	out := map[int][]string{}
	for _, id := range ids {
		info, err := e.env.Task(id)
		if err != nil {
			return nil, err
		}
		if len(out[info.Level]) < n {
			out[info.Level] = append(out[info.Level], id)
		}
	}
	return out, nil
}

// examples returns, per task, the worked example of cond (none for
// CondNone, and none where the world has no fitting task).
func (e *evaluator) examples(ctx context.Context, tasks []string, cond string) (map[string][]string, error) {
	out := map[string][]string{}
	if cond == CondNone {
		return out, nil
	}
	for i, id := range tasks {
		info, err := e.env.Task(id)
		if err != nil {
			return nil, err
		}
		// A fixed stream per task and condition: every policy measured
		// sees the same examples.
		r := rand.New(rand.NewPCG(uint64(e.seed), uint64(i)<<8|uint64(len(cond))))
		var ex string
		var ok bool
		if cond == CondRelevant {
			ex, ok = e.pool.relevant(r, info, nil)
		} else {
			ex, ok = e.pool.unrelated(r, info, nil)
		}
		if !ok {
			continue
		}
		text, err := e.replay.example(ctx, ex)
		if err != nil {
			return nil, err
		}
		out[id] = []string{text}
	}
	return out, nil
}

// success runs one greedy episode of every task with policy, the worked
// examples of cond in the prompt, and reports which succeeded (score 1).
// An episode that fails in the environment or the policy is an error: a
// measurement must not count it as a failure of the policy.
func (e *evaluator) success(ctx context.Context, policy llm.ChatModel, tasks []string, cond string) ([]bool, error) {
	examples, err := e.examples(ctx, tasks, cond)
	if err != nil {
		return nil, err
	}
	flow := &agentflow.Flow{
		Env: e.replay.env, Policy: policy, Context: e.context, EnvType: toolworld.Name,
		Chat:     llm.ChatOptions{Temperature: llm.Float(0), MaxTokens: e.context.ResponseLength},
		MaxSteps: e.maxSteps, Sparse: true, Experience: taskExperience{texts: examples},
	}
	rollouts := make([]agentflow.Rollout, len(tasks))
	for i, id := range tasks {
		rollouts[i] = agentflow.Rollout{
			Task: agentevolver.Task{TaskID: id, EnvType: toolworld.Name}, DataID: strconv.Itoa(i), RolloutID: "0",
			AddExperience: len(examples[id]) > 0,
		}
	}
	runner := &agentflow.Runner{Flow: flow, Concurrency: e.concurrency, MaxAttempts: 1}
	results, err := runner.Run(ctx, rollouts)
	if err != nil {
		return nil, fmt.Errorf("pretrain: evaluation: %w", err)
	}
	if len(results) != len(tasks) {
		return nil, fmt.Errorf("pretrain: evaluation finished %d of %d episodes", len(results), len(tasks))
	}
	out := make([]bool, len(tasks))
	for _, r := range results {
		i, err := strconv.Atoi(r.Trajectory.DataID)
		if err != nil || i < 0 || i >= len(tasks) {
			return nil, fmt.Errorf("pretrain: evaluation result with data id %q", r.Trajectory.DataID)
		}
		out[i] = r.Trajectory.Reward.Outcome >= 1
	}
	return out, nil
}

// rate is the share of true values.
func rate(xs []bool) float64 {
	if len(xs) == 0 {
		return 0
	}
	n := 0
	for _, x := range xs {
		if x {
			n++
		}
	}
	return float64(n) / float64(len(xs))
}

// LevelSuccess is the greedy success on one level's held-out tasks under
// each condition.
type LevelSuccess struct {
	Level     int     `json:"level"`
	Tasks     int     `json:"tasks"`
	None      float64 `json:"none"`
	Relevant  float64 `json:"relevant"`
	Unrelated float64 `json:"unrelated"`
	// WithRelevant is the number of tasks that had a relevant example
	// (the others ran without one), likewise WithUnrelated.
	WithRelevant  int `json:"with_relevant"`
	WithUnrelated int `json:"with_unrelated"`
}

// measure runs the card's measurement: every level, every condition.
func (e *evaluator) measure(ctx context.Context, policy llm.ChatModel, perLevel int, conds []string) ([]LevelSuccess, error) {
	byLevel, err := e.levelTasks(ctx, perLevel)
	if err != nil {
		return nil, err
	}
	var out []LevelSuccess
	for level := 1; level <= toolworld.NumLevels; level++ {
		tasks := byLevel[level]
		ls := LevelSuccess{Level: level, Tasks: len(tasks)}
		for _, cond := range conds {
			ok, err := e.success(ctx, policy, tasks, cond)
			if err != nil {
				return nil, err
			}
			switch cond {
			case CondNone:
				ls.None = rate(ok)
			case CondRelevant:
				ls.Relevant = rate(ok)
				ex, _ := e.examples(ctx, tasks, cond)
				ls.WithRelevant = len(ex)
			case CondUnrelated:
				ls.Unrelated = rate(ok)
				ex, _ := e.examples(ctx, tasks, cond)
				ls.WithUnrelated = len(ex)
			}
		}
		out = append(out, ls)
	}
	return out, nil
}

// checkTasks is the fixed task set of the card's check: the first n
// validation tasks of the held-out environment (levels 1, 2, 3 in turn).
func (e *evaluator) checkTasks(ctx context.Context, n int) ([]string, error) {
	ids, err := e.env.TaskIDs(ctx, toolworld.SplitVal, nil)
	if err != nil {
		return nil, err
	}
	return ids[:min(n, len(ids))], nil
}
