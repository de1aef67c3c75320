package toolworld

import (
	"context"
	"errors"
	"fmt"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/internal/envkit"
)

// Instance is one episode of a task. Like every envservice.Instance it is
// not safe for concurrent use; the server serialises calls on it.
type Instance struct {
	env    *Env
	task   *task
	id     string
	sparse bool // default scoring of step rewards, from the create params

	world    *world
	done     []bool // done[i]: solution[i] has been performed
	finished bool
	answer   string
	closed   bool
}

// InitState returns the system prompt and the task instruction, with info
// {instance_id, task_id}.
func (in *Instance) InitState(ctx context.Context, _ map[string]any) (envclient.InitState, error) {
	if err := in.usable(ctx); err != nil {
		return envclient.InitState{}, err
	}
	return envclient.InitState{
		State: []agentevolver.Message{
			{Role: agentevolver.RoleSystem, Content: in.env.systemPrompt(in.task)},
			{Role: agentevolver.RoleUser, Content: in.task.info.Instruction},
		},
		Info: map[string]any{"instance_id": in.id, "task_id": in.task.info.ID},
	}, nil
}

// Step runs the one API call of the action and returns its result as a
// single user message. A malformed action is not an error: its observation
// says what was wrong and how to fix it. The episode terminates when the
// agent calls task.finish; the reward is then Evaluate's score (sparse per
// params["sparse"], or the create params when absent), else 0.
func (in *Instance) Step(ctx context.Context, action agentevolver.Message, params map[string]any) (envclient.StepResult, error) {
	if err := in.usable(ctx); err != nil {
		return envclient.StepResult{}, err
	}
	sparse, present, err := sparseParam(params)
	if err != nil {
		return envclient.StepResult{}, err
	}
	if !present {
		sparse = in.sparse
	}
	out := in.apply(action)
	res := envclient.StepResult{
		State:        []agentevolver.Message{{Role: agentevolver.RoleUser, Content: out.observation}},
		IsTerminated: in.finished,
		Info:         map[string]any{},
	}
	if in.finished {
		res.Reward = in.score(sparse)
	}
	return res, nil
}

// Evaluate scores the current state: with params["sparse"] == true, 1 when
// every check passes and 0 otherwise; else the fraction of checks passed.
// It can be called at any time; a question's answer only counts once given
// to task.finish.
func (in *Instance) Evaluate(ctx context.Context, params map[string]any) (float64, error) {
	if err := in.usable(ctx); err != nil {
		return 0, err
	}
	sparse, _, err := sparseParam(params)
	if err != nil {
		return 0, err
	}
	return in.score(sparse), nil
}

// Info describes the APIs: the documentation text by default, or the
// OpenAI function tools with params["format"] == "openai".
func (in *Instance) Info(ctx context.Context, params map[string]any) (any, error) {
	if err := in.usable(ctx); err != nil {
		return nil, err
	}
	switch f := params["format"]; f {
	case nil, "", "text":
		return in.env.cat.apiDoc(in.env.shown(in.task)), nil
	case "openai":
		return in.env.cat.openAITools(in.env.shown(in.task)), nil
	default:
		return nil, fmt.Errorf("%w: format must be \"text\" or \"openai\", got %v", ErrBadParams, f)
	}
}

// Close ends the instance; later calls fail with ErrClosed.
func (in *Instance) Close() error {
	in.closed = true
	return nil
}

// Expected returns the expert's next action from the current state: the
// first call of the solution not yet performed, or task.finish once all
// are. ok is false after the episode has ended. After a wrong step the
// task may no longer reach a perfect score; Expected still names the
// remaining expert calls.
func (in *Instance) Expected() (action agentevolver.Message, ok bool) {
	if in.finished || in.closed {
		return agentevolver.Message{}, false
	}
	s := in.env.shown(in.task)
	for i, d := range in.done {
		if !d {
			return s.render(in.task.solution[i]).Message(), true
		}
	}
	return s.render(in.task.solution[len(in.task.solution)-1]).Message(), true
}

func (in *Instance) usable(ctx context.Context) error {
	return envkit.Usable(ctx, in.closed, ErrClosed)
}

func (in *Instance) score(sparse bool) float64 {
	passed, failed := in.task.score(in.world, in.finished, in.answer)
	switch {
	case sparse && failed == 0:
		return 1
	case sparse:
		return 0
	case passed+failed == 0:
		return 1
	}
	return float64(passed) / float64(passed+failed)
}

// outcome is what one action did.
type outcome struct {
	observation string
	// useful reports a correct step: a still-needed expert call that
	// succeeded, or a task.finish that completed the task perfectly.
	useful bool
}

// apply performs one action.
func (in *Instance) apply(action agentevolver.Message) outcome {
	if in.finished {
		return outcome{observation: "error: the task is already finished; no more calls are accepted"}
	}
	s := in.env.shown(in.task)
	call, err := ParseAction(action)
	if err != nil {
		var ae *ActionError
		if errors.As(err, &ae) {
			in.env.log.Debug("toolworld: malformed action", "task_id", in.task.info.ID, "err", ae.Detail)
			return outcome{observation: "error: " + s.rewriteHints(in.env.cat, ae.Detail)}
		}
		return outcome{observation: "error: " + err.Error()}
	}
	a, vals, err := in.env.cat.bindOn(s, call)
	if err != nil {
		return outcome{observation: "error: " + err.Error()}
	}
	obs, err := a.run(in.world, vals, s)
	if err != nil {
		return outcome{observation: "error: " + err.Error()}
	}
	if a.finish {
		in.finished = true
		in.answer = vals["answer"]
		return outcome{observation: obs, useful: in.score(true) == 1}
	}
	key := a.matchKey(vals)
	for i, k := range in.task.keys {
		if !in.done[i] && k == key {
			in.done[i] = true
			return outcome{observation: obs, useful: true}
		}
	}
	return outcome{observation: obs}
}
