package attribution

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envservice"
)

// OracleJudge is a step judge without an LLM: it asks an environment's
// envservice.StepOracle (toolworld's Env is one) for exact labels, so that
// credit assignment can be studied, or trained with, free of a judge
// model's cost and noise. Each episode's Steps become assistant messages
// with the Action texts, replayed on Episode.TaskID; observations, the
// query and the outcome are not used.
//
// An episode whose task the oracle cannot judge (an unknown task, say)
// falls back to OutcomeFlags with Judgment.Err set, as a failed LLM call
// does; so does an oracle answer of the wrong length (ErrJudgmentLength).
// Judge returns an error only when ctx ends or Oracle is nil. Episodes are
// judged one after another; an OracleJudge is safe for concurrent use when
// its oracle is, as StepOracle requires.
type OracleJudge struct {
	// Oracle labels the steps; required.
	Oracle envservice.StepOracle
}

var _ Judge = (*OracleJudge)(nil)

// Judge labels the steps of each episode with the oracle's verdicts.
func (o *OracleJudge) Judge(ctx context.Context, episodes []Episode) ([]Judgment, error) {
	if o == nil || o.Oracle == nil {
		return nil, errors.New("attribution: oracle judge has no oracle")
	}
	out := make([]Judgment, len(episodes))
	for i, ep := range episodes {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("attribution: judging %d episodes: %w", len(episodes), err)
		}
		actions := make([]agentevolver.Message, len(ep.Steps))
		for k, st := range ep.Steps {
			actions[k] = agentevolver.Message{Role: agentevolver.RoleAssistant, Content: st.Action}
		}
		began := time.Now()
		good, err := o.Oracle.JudgeSteps(ctx, ep.TaskID, actions)
		elapsed := time.Since(began)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, fmt.Errorf("attribution: judging %d episodes: %w", len(episodes), ctx.Err())
		case err != nil:
			out[i] = fallback(ep, Judgment{}, fmt.Errorf("attribution: step oracle on task %q: %w", ep.TaskID, err))
		case len(good) != len(ep.Steps):
			out[i] = fallback(ep, Judgment{}, fmt.Errorf("%w: the oracle gave %d for %d steps of task %q", ErrJudgmentLength, len(good), len(ep.Steps), ep.TaskID))
		default:
			out[i] = Judgment{Good: good, Source: SourceJudged}
		}
		out[i].Elapsed = elapsed
	}
	return out, nil
}
