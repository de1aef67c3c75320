package sqlworld

import (
	"context"
	"errors"
	"fmt"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/internal/envkit"
)

// Instance is one episode of a task. Like every envservice.Instance it is
// not safe for concurrent use; the server serialises calls on it. Many
// instances may run at once: their queries share the Env's connection
// pool.
type Instance struct {
	env  *Env
	task *task
	id   string

	actions   int
	finished  bool
	submitted bool
	correct   bool
	closed    bool
}

// InitState returns the system prompt and the question, with info
// {instance_id, task_id}.
func (in *Instance) InitState(ctx context.Context, _ map[string]any) (envclient.InitState, error) {
	if err := in.usable(ctx); err != nil {
		return envclient.InitState{}, err
	}
	return envclient.InitState{
		State: []agentevolver.Message{
			{Role: agentevolver.RoleSystem, Content: in.env.system},
			{Role: agentevolver.RoleUser, Content: in.task.info.Question},
		},
		Info: map[string]any{"instance_id": in.id, "task_id": in.task.info.ID},
	}, nil
}

// Step carries out one action and returns its observation as a single
// user message. A sql block runs the query and shows its result as a text
// table; a submit block runs the final query and ends the episode with
// reward 1 when its result equals the reference answer, else 0. Malformed
// actions and failing queries (syntax errors, refused statements, the time
// limit) are not errors: their observation starts with "error:" and the
// episode goes on; a submit whose query fails is not an answer. The
// episode ends unanswered, with reward 0, after Config.MaxActions actions.
// Only the step that ends the episode carries the score as its reward; a
// step after the end gets an error observation, IsTerminated and reward 0.
// Step returns an error only for a closed instance, bad params or when ctx
// ends.
func (in *Instance) Step(ctx context.Context, action agentevolver.Message, params map[string]any) (envclient.StepResult, error) {
	if err := in.usable(ctx); err != nil {
		return envclient.StepResult{}, err
	}
	if _, _, err := sparseParam(params); err != nil {
		return envclient.StepResult{}, err
	}
	wasFinished := in.finished
	obs, err := in.apply(ctx, action)
	if err != nil {
		return envclient.StepResult{}, err
	}
	res := envclient.StepResult{
		State:        []agentevolver.Message{{Role: agentevolver.RoleUser, Content: obs}},
		IsTerminated: in.finished,
		Info:         map[string]any{"actions": in.actions},
	}
	if in.finished && !wasFinished {
		res.Reward = in.score()
	}
	return res, nil
}

// apply performs one action and returns its observation.
func (in *Instance) apply(ctx context.Context, action agentevolver.Message) (string, error) {
	if in.finished {
		return "error: the episode is over; no more actions are accepted", nil
	}
	in.actions++
	obs, err := in.run(ctx, action)
	if err != nil {
		in.actions-- // the caller's failure, not the agent's action
		return "", err
	}
	if !in.finished && in.actions >= in.env.maxActions {
		in.finished = true
		obs += fmt.Sprintf("\n(the limit of %d actions is reached; the episode is over without an answer)", in.env.maxActions)
	}
	return obs, nil
}

func (in *Instance) run(ctx context.Context, action agentevolver.Message) (string, error) {
	a, err := ParseAction(action)
	if err != nil {
		var ae *ActionError
		if errors.As(err, &ae) {
			in.env.log.Debug("sqlworld: malformed action", "task_id", in.task.info.ID, "err", ae.Detail)
			return "error: " + ae.Detail, nil
		}
		return "", err
	}
	limit := in.env.maxRows
	if a.Kind == KindSubmit {
		limit = submitRows
	}
	res, err := in.env.query(ctx, a.SQL, limit)
	var qe *queryError
	switch {
	case errors.As(err, &qe) && a.Kind == KindSubmit:
		return "error: " + qe.msg + " (the answer was not accepted; fix the query and submit again)", nil
	case errors.As(err, &qe):
		return "error: " + qe.msg, nil
	case err != nil:
		return "", err
	}
	if a.Kind == KindQuery {
		return res.table(in.env.maxObs), nil
	}
	in.finished, in.submitted = true, true
	in.correct = sameAnswer(in.task.answer, res, in.task.ordered)
	n := fmt.Sprintf("%d rows", len(res.rows))
	if res.more {
		n = fmt.Sprintf("more than %d rows", submitRows)
	} else if len(res.rows) == 1 {
		n = "1 row"
	}
	return "answer submitted (" + n + "); the episode is over", nil
}

// Evaluate scores the episode: 1 when the submitted query's result equals
// the reference answer, else 0 (also before any submission). Sparse and
// dense scores are the same; params["sparse"] must be a bool if present.
func (in *Instance) Evaluate(ctx context.Context, params map[string]any) (float64, error) {
	if err := in.usable(ctx); err != nil {
		return 0, err
	}
	if _, _, err := sparseParam(params); err != nil {
		return 0, err
	}
	return in.score(), nil
}

func (in *Instance) score() float64 {
	if in.submitted && in.correct {
		return 1
	}
	return 0
}

// Info returns the schema description (the part of the system prompt that
// describes the tables), as text.
func (in *Instance) Info(ctx context.Context, _ map[string]any) (any, error) {
	if err := in.usable(ctx); err != nil {
		return nil, err
	}
	return schemaDoc, nil
}

// Close ends the instance; later calls fail with ErrClosed.
func (in *Instance) Close() error {
	in.closed = true
	return nil
}

func (in *Instance) usable(ctx context.Context) error {
	return envkit.Usable(ctx, in.closed, ErrClosed)
}
