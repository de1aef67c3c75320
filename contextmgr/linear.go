package contextmgr

import (
	"context"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// Linear is the reference's default strategy (§3.2): every prompt is the
// whole conversation so far, long environment observations clipped, and
// the episode becomes one Sample whose response runs from the first policy
// turn to the last.
type Linear struct {
	*core
}

// NewLinear returns a Linear context manager for one episode.
func NewLinear(cfg Config) (*Linear, error) {
	c, err := newCore(cfg, false)
	if err != nil {
		return nil, err
	}
	return &Linear{core: c}, nil
}

// Init implements ContextManager. Each initial message gets the ids it adds
// to the rendering of the messages before it.
func (l *Linear) Init(msgs []agentevolver.Message) error { return l.initMessages(msgs) }

// Prompt implements ContextManager. [BUG/QUIRK] fixed: the overflow check
// measures the clipped text the policy receives; the reference measured
// unclipped observations.
func (l *Linear) Prompt() ([]agentevolver.Message, error) {
	msgs := messagesOf(l.full)
	if err := l.checkFits(msgs); err != nil {
		return nil, err
	}
	return msgs, nil
}

// RecordLLM implements ContextManager.
func (l *Linear) RecordLLM(_ context.Context, prompt []agentevolver.Message, out llm.Completion) error {
	m, err := l.policyMessage(prompt, out)
	if err != nil {
		return err
	}
	l.recordPolicy(m)
	return nil
}

// Action implements ContextManager: the latest policy turn, verbatim.
func (l *Linear) Action() (agentevolver.Message, error) { return l.rawAction() }

// RecordEnv implements ContextManager.
func (l *Linear) RecordEnv(obs agentevolver.Message) error {
	m, err := l.observation(obs)
	if err != nil {
		return err
	}
	l.full = append(l.full, m)
	return nil
}

// Samples implements ContextManager: one Sample for the whole episode.
func (l *Linear) Samples(traj agentevolver.Trajectory) ([]agentevolver.Sample, error) {
	s, err := l.sample(l.full, traj)
	if err != nil {
		return nil, err
	}
	return []agentevolver.Sample{s}, nil
}
