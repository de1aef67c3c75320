package cues

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envservice"
)

// envCheck is the environment's verdict on a re-execution, nil when the
// configuration runs none.
//
// The environment's own evaluation scores an instance against the
// environment task it was created for, not against a CuES query written
// over that task's world, so evaluating the re-execution's instance would
// check the wrong goal. The two checks ask the environment about the
// task's ground truth instead:
//
//   - hindsight (an environment that relabels episodes,
//     envservice.TaskSynthesizer: toolworld): the environment names the
//     task whose goal is what the ground truth's actions achieve (the
//     task's CheckTaskID when Stage 2 already has one), the re-execution's
//     actions are replayed on a fresh instance of that task, and its
//     sparse evaluation must be 1. A ground truth that achieves nothing
//     fails.
//   - replay (any environment, remote ones too: sqlworld, MCP): the ground
//     truth's actions (SplitActions) are replayed on a fresh instance of
//     the environment task, and every informative observation of that
//     replay (neither empty nor starting with "error") must be among the
//     re-execution's observations (white space collapsed, case ignored):
//     the re-execution reached every state the ground truth shows (for
//     sqlworld, the result tables of its queries and the submission).
//     A replay that observes nothing informative fails.
func (p *Pipeline) envCheck(ctx context.Context, t Task, steps []ExecStep) (*EnvCheck, error) {
	method := p.cfg.Stage3.EnvCheck
	if method == CheckAuto {
		method = CheckReplay
		if p.synth != nil {
			method = CheckHindsight
		}
	}
	switch method {
	case CheckHindsight:
		return p.hindsightCheck(ctx, t, steps)
	case CheckReplay:
		return p.replayCheck(ctx, t, steps)
	}
	return nil, nil
}

func messages(actions []string) []agentevolver.Message {
	out := make([]agentevolver.Message, len(actions))
	for i, a := range actions {
		out[i] = agentevolver.Message{Role: agentevolver.RoleAssistant, Content: a}
	}
	return out
}

func (p *Pipeline) hindsightCheck(ctx context.Context, t Task, steps []ExecStep) (*EnvCheck, error) {
	c := &EnvCheck{Method: CheckHindsight, TaskID: t.CheckTaskID}
	if c.TaskID == "" {
		gt := SplitActions(t.GT)
		if len(gt) == 0 {
			c.Detail = "the ground truth holds no action"
			return c, nil
		}
		target, err := p.synth.SynthesizeTask(ctx, t.EnvID, messages(gt))
		if errors.Is(err, envservice.ErrNothingAchieved) {
			c.Detail = "the ground truth achieves nothing in the environment"
			return c, nil
		}
		if err != nil {
			return nil, fmt.Errorf("relabel the ground truth: %w", err)
		}
		c.TaskID = target.TaskID
	}
	inst, _, err := p.create(ctx, c.TaskID, nil)
	if err != nil {
		return nil, err
	}
	defer p.release(ctx, inst)
	for i, a := range actions(steps) {
		res, err := p.Env.Step(ctx, inst, a, nil)
		if err != nil {
			return nil, fmt.Errorf("replay step %d: %w", i, err)
		}
		if res.IsTerminated {
			break
		}
	}
	score, err := p.Env.Evaluate(ctx, inst, map[string]any{"sparse": true})
	if err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	c.Score, c.Success = score, score >= 1
	c.Detail = fmt.Sprintf("the re-execution scores %g on %s, the task of what the ground truth achieves", score, c.TaskID)
	return c, nil
}

func (p *Pipeline) replayCheck(ctx context.Context, t Task, steps []ExecStep) (*EnvCheck, error) {
	c := &EnvCheck{Method: CheckReplay}
	gt := SplitActions(t.GT)
	if len(gt) == 0 {
		c.Detail = "the ground truth holds no action"
		return c, nil
	}
	seen := map[string]bool{}
	for _, s := range steps {
		seen[normalise(s.Observation)] = true
	}
	inst, _, err := p.create(ctx, t.EnvID, nil)
	if err != nil {
		return nil, err
	}
	defer p.release(ctx, inst)
	var want []string
	for i, a := range messages(gt) {
		res, err := p.Env.Step(ctx, inst, a, nil)
		if err != nil {
			return nil, fmt.Errorf("replay step %d: %w", i, err)
		}
		if o := normalise(observation(res)); informative(o) {
			want = append(want, o)
		}
		if res.IsTerminated {
			break
		}
	}
	if len(want) == 0 {
		c.Detail = "the ground truth's replay observes nothing but errors"
		return c, nil
	}
	for _, o := range want {
		if !seen[o] {
			c.Detail = fmt.Sprintf("the re-execution never observed %.200q, which the ground truth's replay does", o)
			return c, nil
		}
	}
	c.Success, c.Score = true, 1
	c.Detail = fmt.Sprintf("the re-execution observed all %d observations of the ground truth's replay", len(want))
	return c, nil
}

// informative reports an observation that shows something: not empty, not
// an error message.
func informative(normalised string) bool {
	return normalised != "" && !strings.HasPrefix(normalised, "error")
}

func normalise(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
