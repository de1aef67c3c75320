package contextmgr

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// Think hints LinearThink appends to the latest observation (reference
// §3.4).
const (
	// ThinkHint asks for a short thought before answering.
	ThinkHint = "\n\nThink about the next step before answering. Your thought (<think>...</think>) should be as short and concise as possible."
	// ForceThinkBox demands a thought and then an answer in \box{...}.
	ForceThinkBox = "\nAdditional requirements: Think before action! You must think step by step before your next action, and you must use <think>...</think> to wrap your thinking process before finally produce your answer with \\box{}.\nFor example:\n<think>...your thinking process...</think>\n\\box{...your final answer...}\n"
	// ForceThinkCode demands a thought and then a python code block.
	ForceThinkCode = "\nAdditional requirements: Think before action! You must think step by step before your next action, and you must use <think>...</think> to wrap your thinking process before finally produce the next-step action.\nFor example:\n<think>...your thinking process...</think>\n```python\n# your action here\n```\n"
)

// LinearThink is the reference's "linear_think" strategy (§3.4). Each
// prompt replays the initial messages, earlier policy turns with their
// <think> blocks removed, and the observations, with a think hint after
// the latest one. Every policy turn becomes its own Sample: the prompt it
// saw followed by its reply, at most MaxSamples of them.
//
// The reference asserts MaxModelLen-ResponseLength <= MaxPromptLen so that
// every prompt that fits the context window fits a sample; the defaults of
// this strategy (MaxPromptLen = MaxModelLen-ResponseLength, MaxResponseLen =
// ResponseLength) satisfy it, and NewLinearThink checks it.
type LinearThink struct {
	*core
	hint   string
	socket []*ExtendedMessage   // the messages of the latest prompt
	groups [][]*ExtendedMessage // one prompt + reply per policy turn
}

// NewLinearThink returns a LinearThink context manager for one episode.
func NewLinearThink(cfg Config) (*LinearThink, error) {
	c, err := newCore(cfg, true)
	if err != nil {
		return nil, err
	}
	if c.cfg.maxContext() > c.cfg.MaxPromptLen {
		return nil, fmt.Errorf("%w: MaxModelLen-ResponseLength (%d) exceeds MaxPromptLen (%d)", ErrConfig, c.cfg.maxContext(), c.cfg.MaxPromptLen)
	}
	hint := ThinkHint
	if c.cfg.ForceThink {
		hint = ForceThinkCode
		if c.cfg.ThinkPreference == PreferBox {
			hint = ForceThinkBox
		}
	}
	return &LinearThink{core: c, hint: hint}, nil
}

// Init implements ContextManager.
func (l *LinearThink) Init(msgs []agentevolver.Message) error { return l.initMessages(msgs) }

// Prompt implements ContextManager.
func (l *LinearThink) Prompt() ([]agentevolver.Message, error) {
	src := l.authored(AuthorInit, AuthorLLM, AuthorEnv)
	socket := make([]*ExtendedMessage, len(src))
	for i, m := range src {
		last := i == len(src)-1
		var err error
		switch m.Author {
		case AuthorLLM:
			author := AuthorLLMNoTrain
			if l.cfg.TrainHistory {
				author = AuthorLLM
			}
			socket[i], err = l.replay(m, author, StripThink(m.Content))
		default:
			content := m.FutureContent
			switch {
			case last:
				content += l.hint
			case l.cfg.TrainHistory:
				content += noThinkInit
			}
			socket[i], err = l.derive(m, m.Author, content)
		}
		if err != nil {
			return nil, err
		}
	}
	msgs := messagesOf(socket)
	if err := l.checkFits(msgs); err != nil {
		return nil, err
	}
	l.socket = socket
	return msgs, nil
}

// RecordLLM implements ContextManager.
func (l *LinearThink) RecordLLM(_ context.Context, prompt []agentevolver.Message, out llm.Completion) error {
	_, err := l.recordTurn(prompt, out)
	return err
}

// recordTurn records a policy turn and its prompt as one group, returning
// the group.
func (l *LinearThink) recordTurn(prompt []agentevolver.Message, out llm.Completion) ([]*ExtendedMessage, error) {
	if l.socket == nil {
		return nil, fmt.Errorf("%w: RecordLLM before Prompt", ErrSequence)
	}
	m, err := l.policyMessage(prompt, out)
	if err != nil {
		return nil, err
	}
	l.recordPolicy(m)
	group := append(l.socket, m.clone())
	l.groups = append(l.groups, group)
	l.socket = nil
	return group, nil
}

// Action implements ContextManager: the latest policy turn, verbatim.
func (l *LinearThink) Action() (agentevolver.Message, error) { return l.rawAction() }

// RecordEnv implements ContextManager.
func (l *LinearThink) RecordEnv(obs agentevolver.Message) error {
	m, err := l.observation(obs)
	if err != nil {
		return err
	}
	l.full = append(l.full, m)
	return nil
}

// Samples implements ContextManager: one Sample per policy turn.
func (l *LinearThink) Samples(traj agentevolver.Trajectory) ([]agentevolver.Sample, error) {
	return groupSamples(l.core, l.groups, traj)
}

func groupSamples(c *core, groups [][]*ExtendedMessage, traj agentevolver.Trajectory) ([]agentevolver.Sample, error) {
	if len(groups) == 0 {
		return nil, ErrNoResponse
	}
	if len(groups) > c.cfg.MaxSamples {
		c.cfg.Logger.Warn("contextmgr: more policy turns than MaxSamples; extra turns not sampled",
			"turns", len(groups), "max_samples", c.cfg.MaxSamples)
		groups = groups[:c.cfg.MaxSamples]
	}
	out := make([]agentevolver.Sample, 0, len(groups))
	for i, g := range groups {
		s, err := c.sample(g, traj)
		if err != nil {
			return nil, fmt.Errorf("turn %d: %w", i, err)
		}
		out = append(out, s)
	}
	return out, nil
}

var thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)

// StripThink removes <think>...</think> blocks and stray think tags from a
// policy turn, as the reference does before replaying it.
func StripThink(text string) string {
	text = strings.TrimFunc(thinkBlock.ReplaceAllLiteralString(text, ""), pyIsSpace)
	text = strings.ReplaceAll(text, "<think>", "")
	return strings.ReplaceAll(text, "</think>", "")
}

// pyIsSpace matches the characters Python's str.strip() removes.
func pyIsSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }
