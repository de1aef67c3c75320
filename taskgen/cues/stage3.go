package cues

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/internal/parallel"
)

// Strategy of every Stage-3 trajectory (the reference's "simple"
// strategy; its reflection strategy is commented out).
const strategySimple = "simple"

func trajectoryFile(taskID string) string {
	return "trajectories/trajectory_" + safeName(taskID) + ".json"
}
func rejectedFile(taskID string) string {
	return "trajectories/failed_tasks/trajectory_" + safeName(taskID) + ".json"
}
func failedFile(taskID string) string {
	return "trajectories/failed_tasks/failed_" + safeName(taskID) + ".json"
}

// verified reports whether a task is finished in Stage 3: accepted,
// rejected, or failed for a reason a new attempt cannot change.
func (p *Pipeline) verified(taskID string) (bool, error) {
	if p.Store.Exists(trajectoryFile(taskID)) || p.Store.Exists(rejectedFile(taskID)) {
		return true, nil
	}
	var f FailedRecord
	ok, err := p.Store.ReadJSON(failedFile(taskID), &f)
	return ok && f.Kind != FailError, err
}

// Verify is Stage 3, quality control (reference §2.9): each deduplicated
// task is re-executed by the actor (the model, with the ground truth as
// tips) on a fresh instance of its environment task, up to RetryAttempts
// times until one succeeds. A re-execution is judged by the model
// (JudgeLLM) and, where the environment can check it (EnvCheck), by the
// environment; with both, it succeeds only when both say so, and a
// difference is recorded as a disagreement. Accepted trajectories go to
// trajectories/, rejected ones to trajectories/failed_tasks/, and tasks
// that produced no trajectory to trajectories/failed_tasks/failed_<id>.json
// (an environment or model error there is tried again by a resumed run;
// Verify then returns an error after the other tasks).
func (p *Pipeline) Verify(ctx context.Context) error {
	if p.cfg.Stage3.Skip {
		return nil
	}
	tasks, err := p.loadTasks()
	if err != nil {
		return err
	}
	bar := p.progress("stage 3: tasks", len(tasks))
	var mu sync.Mutex
	var errs []error
	err = parallel.ForEach(ctx, len(tasks), p.cfg.Workers, func(i int) {
		t := tasks[i]
		err := p.verifyTask(ctx, t)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			mu.Lock()
			errs = append(errs, fmt.Errorf("task %s: %w", t.TaskID, err))
			mu.Unlock()
			p.Logger.Warn("cues: stage 3 task failed", "task", t.TaskID, "err", err)
		}
		bar.Add(1)
	})
	bar.Finish()
	if err != nil {
		return err
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%d tasks failed with an error (run again to retry them): %w", len(errs), err)
	}
	return p.writeStage3Stats()
}

// verifyTask runs Stage 3 on one task unless it is finished.
func (p *Pipeline) verifyTask(ctx context.Context, t Task) error {
	if done, err := p.verified(t.TaskID); err != nil || done {
		return err
	}
	fail := func(kind, reason string) error {
		return p.Store.WriteJSON(failedFile(t.TaskID), FailedRecord{Task: t, Kind: kind, FailureReason: reason, Timestamp: p.Now()})
	}
	if strings.TrimSpace(t.TaskID) == "" || strings.TrimSpace(t.Query) == "" || strings.TrimSpace(t.Description) == "" || t.EnvID == "" {
		return fail(FailInvalidTask, "the task lacks an id, an environment task, a description or a query")
	}
	var last *Trajectory
	for attempt := 1; attempt <= p.cfg.Stage3.RetryAttempts; attempt++ {
		tr, err := p.attempt(ctx, t, attempt)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if werr := fail(FailError, err.Error()); werr != nil {
				return werr
			}
			return err
		}
		if tr == nil {
			continue
		}
		last = tr
		if tr.Success {
			if err := p.Store.WriteJSON(trajectoryFile(t.TaskID), tr); err != nil {
				return err
			}
			return p.Store.Remove(failedFile(t.TaskID)) // an error of an earlier run
		}
	}
	if last == nil {
		return fail(FailNoTrajectory, "the actor's first reply held no action in every attempt")
	}
	if err := p.Store.WriteJSON(rejectedFile(t.TaskID), last); err != nil {
		return err
	}
	return p.Store.Remove(failedFile(t.TaskID))
}

// attempt re-executes t once and judges it; nil when the actor took no
// action.
func (p *Pipeline) attempt(ctx context.Context, t Task, attempt int) (*Trajectory, error) {
	steps, initial, err := p.execute(ctx, t, attempt)
	if err != nil || len(steps) == 0 {
		return nil, err
	}
	tr := &Trajectory{
		TaskID: t.TaskID, EnvID: t.EnvID, EnvType: t.EnvType, Description: t.Description, Query: t.Query,
		GroundTruth: t.GT, FinalReward: steps[len(steps)-1].Reward, TotalSteps: len(steps), Attempt: attempt,
		StrategyUsed: strategySimple, Steps: steps, Task: t,
	}
	tr.Messages = append(tr.Messages, agentevolver.Message{Role: agentevolver.RoleUser, Content: initial})
	for _, s := range steps {
		tr.Messages = append(tr.Messages, agentevolver.Message{Role: agentevolver.RoleAssistant, Content: s.Response})
		if s.Observation != "" {
			tr.Messages = append(tr.Messages, agentevolver.Message{Role: agentevolver.RoleUser, Content: s.Observation})
		}
	}
	var reasons []string
	if p.cfg.Stage3.Judge == JudgeLLM {
		reply, err := p.chat(ctx, chatMessages("", JudgePrompt(t, steps)), 0, p.seedOf("judge", t.TaskID, attempt))
		if err != nil {
			return nil, fmt.Errorf("judge: %w", err)
		}
		ok := ParseJudge(reply)
		tr.JudgeSuccess = &ok
		reasons = append(reasons, reply)
	}
	check, err := p.envCheck(ctx, t, steps)
	if err != nil {
		return nil, fmt.Errorf("environment check: %w", err)
	}
	tr.EnvCheck = check
	switch {
	case tr.JudgeSuccess != nil && check != nil:
		tr.Success = *tr.JudgeSuccess && check.Success
		tr.Disagreement = *tr.JudgeSuccess != check.Success
	case tr.JudgeSuccess != nil:
		tr.Success = *tr.JudgeSuccess
	case check != nil:
		tr.Success = check.Success
	}
	if check != nil {
		reasons = append(reasons, "environment check ("+check.Method+"): "+check.Detail)
	}
	tr.Reason = strings.Join(reasons, "\n\n")
	return tr, nil
}

// execute runs the actor on a fresh instance of t's environment task
// (reference §2.9.1) and returns its steps and the initial observation it
// was shown. An actor reply without an action ends the episode; "<finish>"
// ends it without a step sent to the environment.
func (p *Pipeline) execute(ctx context.Context, t Task, attempt int) ([]ExecStep, string, error) {
	inst, state, err := p.create(ctx, t.EnvID, nil)
	if err != nil {
		return nil, "", err
	}
	defer p.release(ctx, inst)
	initial := envDescription(state)
	var steps []ExecStep
	var previous []string
	var convo []agentevolver.Message
	base := slices.Clone(state)
	if n := len(base); n > 0 && base[n-1].Role == agentevolver.RoleUser {
		base[n-1].Content = t.Query
	} else {
		base = append(base, agentevolver.Message{Role: agentevolver.RoleUser, Content: t.Query})
	}
	for step := 0; step < p.cfg.Stage3.MaxSteps; step++ {
		var reply string
		var err error
		if seed := p.seedOf("actor", t.TaskID, attempt, step); p.cfg.Prompts == PromptsEnv {
			reply, err = p.chatEnv(ctx, base, convo, seed)
		} else {
			reply, err = p.chat(ctx, chatMessages("", ActorPrompt(t, initial, previous, p.cfg.ActionFormat)), 0, seed)
		}
		if err != nil {
			return nil, "", err
		}
		action, _ := ParseAction(reply)
		if p.cfg.Prompts == PromptsEnv {
			action = strings.TrimSpace(reply)
		}
		if action == "" {
			break
		}
		hist := initial
		if step > 0 {
			hist = steps[step-1].Observation
		}
		s := ExecStep{History: hist, Action: action, StepNumber: step, Response: reply}
		if strings.Contains(action, FinishAction) {
			s.Observation, s.Done = FinishAction, true
			steps = append(steps, s)
			break
		}
		msg := agentevolver.Message{Role: agentevolver.RoleAssistant, Content: action}
		res, err := p.Env.Step(ctx, inst, msg, nil)
		if err != nil {
			return nil, "", fmt.Errorf("step %d: %w", step, err)
		}
		s.Observation, s.Reward, s.Done = observation(res), res.Reward, res.IsTerminated
		steps = append(steps, s)
		previous = append(previous, "Action: "+action+" -> Observation: "+s.Observation)
		convo = append(convo, msg)
		convo = append(convo, res.State...)
		if res.IsTerminated {
			break
		}
	}
	return steps, initial, nil
}

// actions returns the actions of steps that reached the environment.
func actions(steps []ExecStep) []agentevolver.Message {
	var out []agentevolver.Message
	for _, s := range steps {
		if s.Observation == FinishAction && s.Done && strings.Contains(s.Action, FinishAction) {
			continue
		}
		out = append(out, agentevolver.Message{Role: agentevolver.RoleAssistant, Content: s.Action})
	}
	return out
}
