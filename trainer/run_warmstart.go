package trainer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/experience"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/runlog"
	"github.com/org/agentevolver/trainer/optim"
)

// WarmStartMetricsFile records the supervised warm start, one line per
// step.
const WarmStartMetricsFile = "warm_start.jsonl"

// demonstrations replays the environment's expert (envservice.Expert) on
// training tasks through the same episode loop and context manager as the
// policy, so the samples carry exactly the tokens the policy will see and
// produce. A demonstration that fails in the environment or scores below
// 1 is no training data: it is skipped and logged. With
// warm_start.experience_share the demonstrations then fill the experience
// pool and a share of them is replayed once more with experience in the
// prompt (withExperience).
func (r *run) demonstrations(ctx context.Context) ([]agentevolver.Sample, error) {
	expert, ok := r.env.impl.(envservice.Expert)
	if !ok {
		return nil, fmt.Errorf("%w: warm_start.steps > 0 needs an environment with demonstrations (envservice.Expert); set warm_start.steps: 0", ErrConfig)
	}
	share := r.cfg.WarmStart.ExperienceShare
	if share > 0 && r.pool == nil {
		return nil, fmt.Errorf("%w: warm_start.experience_share needs an experience pool (exp_manager.pool or Options.ExperiencePool)", ErrConfig)
	}
	tasks, err := r.warmStartTasks(ctx)
	if err != nil {
		return nil, err
	}
	if n := r.cfg.WarmStart.Demos; n > 0 && n < len(tasks) {
		tasks = tasks[:n]
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("%w: no training tasks to demonstrate", ErrConfig)
	}
	actions, errs, results, err := r.replayExpert(ctx, expert, tasks)
	if err != nil {
		return nil, err
	}
	var out []agentevolver.Sample
	var trajs []agentevolver.Trajectory
	skipped := 0
	for i, res := range results {
		if errs[i] != nil {
			if errors.Is(errs[i], agentflow.ErrPromptTooLong) {
				return nil, fmt.Errorf("%w: %w", ErrConfig, errs[i])
			}
			if skipped == 0 {
				r.log.Warn("trainer: demonstration skipped", "err", errs[i])
			}
			skipped++
			continue
		}
		out = append(out, res.Samples...)
		trajs = append(trajs, res.Trajectory)
	}
	if skipped > 0 {
		r.log.Warn("trainer: demonstrations skipped", "skipped", skipped, "of", len(tasks))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("trainer: no usable demonstration (%d failed): %w", skipped, agentflow.JoinFailures(errs...))
	}
	if share > 0 {
		more, err := r.withExperience(ctx, tasks, actions, errs, trajs, share)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// replayExpert asks the expert for each task's actions and replays them
// through the policy's episode loop (replayDemonstrations, no
// experience). A task the expert cannot demonstrate, or whose replay fails
// or scores below 1, gets its error in errs and a zero result. Only a
// cancelled context is an error.
func (r *run) replayExpert(ctx context.Context, expert envservice.Expert, tasks []agentevolver.Task) ([][]agentevolver.Message, []error, []agentflow.Result, error) {
	actions := make([][]agentevolver.Message, len(tasks))
	errs := make([]error, len(tasks))
	for i, task := range tasks {
		a, err := expert.Demonstrate(ctx, task.TaskID)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, nil, ctx.Err()
			}
			errs[i] = fmt.Errorf("trainer: expert on %s: %w", task.TaskID, err)
			continue
		}
		actions[i] = a
	}
	results := r.replayDemonstrations(ctx, tasks, actions, errs, nil)
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	return actions, errs, results, nil
}

// replayDemonstrations replays each task's expert actions (those whose
// errs entry is nil) concurrently and records failures in errs. With an
// injector every episode asks it for experience and keeps it in its
// samples.
func (r *run) replayDemonstrations(ctx context.Context, tasks []agentevolver.Task, actions [][]agentevolver.Message, errs []error, in agentflow.ExperienceInjector) []agentflow.Result {
	results := make([]agentflow.Result, len(tasks))
	sem := make(chan struct{}, max(1, r.cfg.Rollout.Concurrency))
	var wg sync.WaitGroup
	for i, task := range tasks {
		if errs[i] != nil || ctx.Err() != nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f := r.flow(llm.NewScripted(actions[i]), 0)
			f.MaxSteps = len(actions[i])
			ro := rolloutFor(task)
			if in != nil {
				f.Experience = in
				ro.AddExperience, ro.TrainMode = true, agentevolver.TrainKeep
			}
			res, err := f.Run(ctx, ro)
			switch {
			case err != nil:
				errs[i] = err
			case res.Trajectory.Reward.Outcome < 1:
				errs[i] = fmt.Errorf("trainer: the expert scored %v on %s", res.Trajectory.Reward.Outcome, task.TaskID)
			default:
				results[i] = res
			}
		}()
	}
	wg.Wait()
	return results
}

// withExperience adds the demonstrations' worked examples to the pool,
// then replays a share of the demonstrated tasks (drawn per seed) with
// experience from the pool in the prompt, leaving out each task's own
// example: the policy learns to act with worked examples of similar tasks
// in view, as it will in rollouts with experience, instead of meeting them
// first in RL. An episode whose prompt no longer fits, or whose task finds
// no other experience, is skipped.
func (r *run) withExperience(ctx context.Context, tasks []agentevolver.Task, actions [][]agentevolver.Message, firstErrs []error, trajs []agentevolver.Trajectory, share float64) ([]agentevolver.Sample, error) {
	if _, err := r.addToPool(ctx, trajs); err != nil {
		return nil, fmt.Errorf("trainer: warm start: adding demonstrations to the experience pool: %w", err)
	}
	var picked []agentevolver.Task
	var pickedActions [][]agentevolver.Message
	order := epochOrder(r.cfg.Trainer.Seed, streamDemoExperience, 0, len(tasks), true)
	for _, i := range order[:int(math.Round(share*float64(len(tasks))))] {
		if firstErrs[i] == nil {
			picked, pickedActions = append(picked, tasks[i]), append(pickedActions, actions[i])
		}
	}
	errs := make([]error, len(picked))
	in := &experience.Injector{Pool: r.pool, Template: r.cfg.Experience.ExperienceTemplate, TopK: r.cfg.Experience.RetrieveTopK, ExcludeOwnTask: true}
	results := r.replayDemonstrations(ctx, picked, pickedActions, errs, in)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []agentevolver.Sample
	withExp, skipped := 0, 0
	for i, res := range results {
		switch {
		case errs[i] != nil:
			if skipped == 0 {
				r.log.Debug("trainer: demonstration with experience skipped", "err", errs[i])
			}
			skipped++
		case len(res.Trajectory.Experience.Injected) == 0:
			// nothing retrieved: the first pass has its samples
		default:
			withExp++
			out = append(out, res.Samples...)
		}
	}
	st := in.Stats()
	r.log.Info("trainer: demonstrations with experience", "replayed", len(picked), "with_experience", withExp,
		"skipped", skipped, "retrieval_misses", st.Misses, "retrieval_errors", st.Errors)
	if len(picked) > 0 && withExp == 0 {
		return nil, fmt.Errorf("trainer: warm_start.experience_share: none of %d demonstrations could be replayed with experience (%d skipped, %d found none, %d retrieval errors)",
			len(picked), skipped, st.Misses, st.Errors)
	}
	return out, nil
}

// warmStartTasks are the tasks whose demonstrations the warm start
// imitates: the training tasks, which with a task_manager mixture are the
// first epoch's mix, synthetic tasks included. An environment that
// demonstrates its synthetic tasks (toolworld replays a hindsight task's
// ground truth, the calls the exploration made) thus lets a few seed tasks
// and their explorations stand in for many demonstrations. Only synthetic
// tasks the environment itself grades (evaluator "env") are demonstrated:
// for a task an LLM wrote (evaluator "synthetic") the environment's expert
// knows only the seed task, whose solution would be a wrong answer to the
// synthetic query.
func (r *run) warmStartTasks(ctx context.Context) ([]agentevolver.Task, error) {
	if r.mixture == nil {
		return r.train, nil
	}
	mixed, err := r.mixture.epoch(ctx, 0)
	if err != nil {
		return nil, err
	}
	var out []agentevolver.Task
	for _, t := range mixed {
		if !isSynthetic(t) || t.EvaluatorOrDefault() == agentevolver.EvaluatorEnv {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return r.train, nil // a mix of judged synthetic tasks only: the original tasks' demonstrations
	}
	return out, nil
}

// warmStart takes the configured supervised steps on expert
// demonstrations.
func (r *run) warmStart(ctx context.Context) error {
	ws := r.cfg.WarmStart
	if ws.Steps == 0 {
		return nil
	}
	began := time.Now()
	demos, err := r.demonstrations(ctx)
	if err != nil {
		return err
	}
	if len(demos) == 0 {
		return fmt.Errorf("%w: no demonstrations", ErrConfig)
	}
	sft, err := optim.NewSupervised(r.backend, r.m.Context(), optim.ModelPolicy(r.m), optim.SupervisedConfig{
		Optimizer:      optim.AdamWConfig{LearningRate: ws.LR, WeightDecay: r.cfg.Actor.WeightDecay, NoWeightDecay: r.cfg.Actor.WeightDecay == 0},
		Clip:           optim.ClipConfig{MaxGradNorm: r.cfg.Actor.GradClip, NoClip: r.cfg.Actor.GradClip == 0},
		MicroBatchSize: r.cfg.Actor.MicroBatchSize,
		Logger:         r.log,
	})
	if err != nil {
		return asConfigErr(err)
	}
	mw, err := runlog.NewMetricsWriter(filepath.Join(r.dir, WarmStartMetricsFile))
	if err != nil {
		return err
	}
	defer mw.Close()
	r.log.Info("trainer: warm start", "demonstrations", len(demos), "steps", ws.Steps)
	bar := runlog.NewProgress(r.out, int64(ws.Steps), runlog.ProgressOptions{Description: "warm start"})
	batch := min(ws.BatchSize, len(demos))
	epoch, order := -1, []int(nil)
	for step := range ws.Steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		picked := make([]agentevolver.Sample, batch)
		for i := range batch {
			pos := step*batch + i
			if e := pos / len(demos); e != epoch || order == nil {
				epoch, order = e, epochOrder(r.cfg.Trainer.Seed, streamDemos, e, len(demos), true)
			}
			picked[i] = demos[order[pos%len(demos)]]
		}
		p, err := optim.PadSamples(picked, r.pad)
		if err != nil {
			return err
		}
		m, err := sft.Step(ctx, &optim.SupervisedBatch{Tokens: p.Tokens, LossMask: p.LossMask})
		if err != nil {
			return fmt.Errorf("trainer: warm-start step %d: %w", step+1, err)
		}
		if err := mw.Write(int64(step+1), map[string]float64{"warm/loss": m.Loss, "warm/grad_norm": m.GradNorm, "warm/tokens": m.Tokens}); err != nil {
			return err
		}
		bar.Describe(fmt.Sprintf("warm start loss %.3f", m.Loss))
		bar.Add(1)
	}
	bar.Finish()
	r.log.Info("trainer: warm start done", "seconds", time.Since(began).Seconds())
	return nil
}
