package contextmgr

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// StateRecorder is implemented by context managers that take an
// environment's step state whole, every message with its role, instead of
// the one joined observation RecordEnv gets. The agent flow calls
// RecordState in place of RecordEnv when the context manager implements
// it.
type StateRecorder interface {
	RecordState(state []agentevolver.Message) error
}

// PerCall is the "per_call" strategy, the reference's AgentscopeCMT (one
// sample per model call, extension spec §1.4.4) for environments that
// build each prompt themselves, such as the arena's games: the initial
// state is the first call's prompt and every step's state (RecordState)
// is the next call's prompt, message for message; nothing of earlier
// calls is added. Each call becomes its own Sample: the prompt exactly as
// sent (all of it context, no loss) and the reply (the loss). Every
// sample carries the episode's reward.
//
// A state without a system message gets the initial system messages in
// front. When stepped through RecordEnv (one observation message), the
// next prompt is the initial system messages and that observation.
//
// MaxSamples bounds the samples; zero means no bound (the reference keeps
// every call). A call whose prompt is longer than MaxPromptLen is skipped
// with a warning, as in the reference, rather than failing the episode.
type PerCall struct {
	*core
	sys    []agentevolver.Message // the initial system messages
	next   []*ExtendedMessage     // the prompt of the next call
	groups [][]*ExtendedMessage   // one prompt + reply per call
}

var (
	_ ContextManager = (*PerCall)(nil)
	_ StateRecorder  = (*PerCall)(nil)
)

// NewPerCall returns a PerCall context manager for one episode.
func NewPerCall(cfg Config) (*PerCall, error) {
	if cfg.MaxSamples == 0 {
		cfg.MaxSamples = math.MaxInt
	}
	c, err := newCore(cfg, true)
	if err != nil {
		return nil, err
	}
	return &PerCall{core: c}, nil
}

// Init implements ContextManager: msgs are the first call's prompt.
func (p *PerCall) Init(msgs []agentevolver.Message) error {
	if err := p.initMessages(msgs); err != nil {
		return err
	}
	for _, m := range msgs {
		if m.Role == agentevolver.RoleSystem {
			p.sys = append(p.sys, m)
		}
	}
	return p.setNext(msgs)
}

// setNext tokenises msgs as the next call's prompt.
func (p *PerCall) setNext(msgs []agentevolver.Message) error {
	msgs = append([]agentevolver.Message(nil), msgs...)
	for i := range msgs {
		msgs[i].Content = futureContent(msgs[i].Content, false, 0, nil)
	}
	tokens, err := p.enc.prefixTokens(msgs)
	if err != nil {
		return err
	}
	next := make([]*ExtendedMessage, len(msgs))
	for i, m := range msgs {
		next[i] = &ExtendedMessage{
			Author: AuthorInit, Role: m.Role, Content: m.Content, FutureContent: m.Content,
			ToolCalls: m.ToolCalls, Tokens: tokens[i], UUID: newUUID(),
		}
	}
	p.next = next
	return nil
}

// Prompt implements ContextManager: the latest state, verbatim.
func (p *PerCall) Prompt() ([]agentevolver.Message, error) {
	if p.next == nil {
		return nil, fmt.Errorf("%w: Prompt without a state to answer", ErrSequence)
	}
	msgs := messagesOf(p.next)
	if err := p.checkFits(msgs); err != nil {
		return nil, err
	}
	return msgs, nil
}

// RecordLLM implements ContextManager.
func (p *PerCall) RecordLLM(_ context.Context, prompt []agentevolver.Message, out llm.Completion) error {
	if p.next == nil {
		return fmt.Errorf("%w: RecordLLM before Prompt", ErrSequence)
	}
	m, err := p.policyMessage(prompt, out)
	if err != nil {
		return err
	}
	p.recordPolicy(m)
	p.groups = append(p.groups, append(p.next, m.clone()))
	p.next = nil
	return nil
}

// Action implements ContextManager: the latest reply, verbatim.
func (p *PerCall) Action() (agentevolver.Message, error) { return p.rawAction() }

// RecordState implements StateRecorder: state is the next call's prompt.
// Its last message is recorded as the step's observation (Steps).
func (p *PerCall) RecordState(state []agentevolver.Message) error {
	var last agentevolver.Message
	if n := len(state); n > 0 {
		last = state[n-1]
	}
	m, err := p.observation(last)
	if err != nil {
		return err
	}
	p.full = append(p.full, m)
	hasSys := false
	for _, s := range state {
		hasSys = hasSys || s.Role == agentevolver.RoleSystem
	}
	if !hasSys {
		state = append(append([]agentevolver.Message(nil), p.sys...), state...)
	}
	return p.setNext(state)
}

// RecordEnv implements ContextManager: the next prompt is the initial
// system messages and obs.
func (p *PerCall) RecordEnv(obs agentevolver.Message) error {
	return p.RecordState([]agentevolver.Message{{Role: agentevolver.RoleUser, Content: obs.Content}})
}

// Finish implements ContextManager.
func (p *PerCall) Finish() {
	p.core.Finish()
	p.next = nil
}

// Samples implements ContextManager: one Sample per call, in call order.
func (p *PerCall) Samples(traj agentevolver.Trajectory) ([]agentevolver.Sample, error) {
	groups := p.groups
	if len(groups) > p.cfg.MaxSamples {
		p.cfg.Logger.Warn("contextmgr: more calls than MaxSamples; extra calls not sampled",
			"calls", len(groups), "max_samples", p.cfg.MaxSamples)
		groups = groups[:p.cfg.MaxSamples]
	}
	out := make([]agentevolver.Sample, 0, len(groups))
	for i, g := range groups {
		s, err := p.sample(g, traj)
		if errors.Is(err, ErrPromptTooLong) {
			p.cfg.Logger.Warn("contextmgr: call skipped: prompt longer than MaxPromptLen", "call", i, "err", err)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("call %d: %w", i, err)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, ErrNoResponse
	}
	return out, nil
}
