package contextmgr

import (
	"context"
	"fmt"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// The four sections a Memory policy turn must contain.
const (
	// SectionStep summarises the step.
	SectionStep = "current step"
	// SectionPrevCode repeats the previous action.
	SectionPrevCode = "previous instruction code"
	// SectionFeedback keeps what the observation taught.
	SectionFeedback = "relevant environment feedback"
	// SectionNextCode is the action sent to the environment.
	SectionNextCode = "next-step instruction code"
)

// memorySections lists the sections of a Memory policy turn in order.
var memorySections = []string{SectionStep, SectionPrevCode, SectionFeedback, SectionNextCode}

// Instructions of the Memory strategy (reference §3.6).
const (
	// MemoryFirstInstruction follows the initial messages in the first
	// prompt.
	MemoryFirstInstruction = "Use strict markdown format\n# next-step instruction code\nCODE_PLACEHOLDER (use ``` ... ``` to wrap the code)"
	// MemoryEnvInstruction follows the latest observation in later prompts.
	MemoryEnvInstruction = "\n---\n1. Extract all useful information from the environment feedback above.\n2. Generate code as next-step instruction.\n3. Any information that is not extracted will be lost, so please extract all useful information relevant to current task such as accounts, keys, access tokens, etc.\n4. Use strict markdown format, and strictly answer with the following 4 sections:\n    - `# current step`\n    - `# previous instruction code`\n    - `# relevant environment feedback`\n    - `# next-step instruction code`\n\n---\n\n# current step\nSTEP_PLACEHOLDER (step index and step summary)\n\n# previous instruction code\nPREVIOUS_CODE_PLACEHOLDER (use ``` ... ``` to wrap the code)\n\n# relevant environment feedback\nFEEDBACK_PLACEHOLDER (list of information, or traceback)\n\n# next-step instruction code\nCODE_PLACEHOLDER (use ``` ... ``` to wrap the code)\n"
	// memoryHistoryHeader opens the memory message of a prompt.
	memoryHistoryHeader = "Previous steps:\n---\n"
	// memoryEntry formats one remembered step: step, code, feedback.
	memoryEntry = "\n>> step: %s\n>> instruction:\n%s\n>> feedback from environment:\n%s\n---\n"
)

// Memory is the reference's memory-style strategy (§3.6), which the
// reference could not run (it imports a markdown parser it lacks;
// ParseMarkdownSections is that parser). The policy answers every turn in
// four markdown sections; a turn that has all four adds a memory entry.
// Each prompt after the first holds the initial messages, the memory so
// far, the previous turn's next-step code and the latest observation
// followed by MemoryEnvInstruction. The environment receives only the
// next-step code (the whole turn when that section is missing). Every
// policy turn becomes its own Sample, at most MaxSamples of them.
//
// [BUG/QUIRK] fixed: the reference replays the previous turn's code as a
// trainable policy turn, so samples trained on re-tokenised text the
// policy did not sample at that position; here it is not trained on.
type Memory struct {
	*core
	socket []*ExtendedMessage
	groups [][]*ExtendedMessage
}

// NewMemory returns a Memory context manager for one episode.
func NewMemory(cfg Config) (*Memory, error) {
	c, err := newCore(cfg, true)
	if err != nil {
		return nil, err
	}
	return &Memory{core: c}, nil
}

// Init implements ContextManager.
func (m *Memory) Init(msgs []agentevolver.Message) error { return m.initMessages(msgs) }

// Prompt implements ContextManager.
func (m *Memory) Prompt() ([]agentevolver.Message, error) {
	var socket []*ExtendedMessage
	for _, msg := range m.authored(AuthorInit) {
		socket = append(socket, msg.clone())
	}
	add := func(author, role, content string) error {
		msg, err := m.newMessage(author, role, content, false)
		if err == nil {
			socket = append(socket, msg)
		}
		return err
	}
	last := m.lastAuthored(AuthorLLM)
	if last == nil {
		if err := add(AuthorInit, agentevolver.RoleUser, MemoryFirstInstruction); err != nil {
			return nil, err
		}
	} else {
		if mem := m.authored(AuthorMemory); len(mem) > 0 {
			var b strings.Builder
			b.WriteString(memoryHistoryHeader)
			for _, e := range mem {
				b.WriteString(e.FutureContent)
				b.WriteString("\n")
			}
			if err := add(AuthorMemory, agentevolver.RoleAssistant, b.String()); err != nil {
				return nil, err
			}
		}
		code := last.FutureContent
		if c, ok := ParseMarkdownSections(last.FutureContent, memorySections)[SectionNextCode]; ok {
			code = c
		}
		if code == last.Content {
			// The whole turn is replayed: keep its sampled ids (see replay).
			prev, err := m.replay(last, AuthorLLMNoTrain, code)
			if err != nil {
				return nil, err
			}
			socket = append(socket, prev)
		} else if err := add(AuthorLLMNoTrain, agentevolver.RoleAssistant, code); err != nil {
			return nil, err
		}
		if env := m.lastAuthored(AuthorEnv); env != nil {
			if err := add(AuthorEnv, agentevolver.RoleUser, env.FutureContent+MemoryEnvInstruction); err != nil {
				return nil, err
			}
		}
	}
	msgs := messagesOf(socket)
	if err := m.checkFits(msgs); err != nil {
		return nil, err
	}
	m.socket = socket
	return msgs, nil
}

// RecordLLM implements ContextManager.
func (m *Memory) RecordLLM(_ context.Context, prompt []agentevolver.Message, out llm.Completion) error {
	if m.socket == nil {
		return fmt.Errorf("%w: RecordLLM before Prompt", ErrSequence)
	}
	msg, err := m.policyMessage(prompt, out)
	if err != nil {
		return err
	}
	m.recordPolicy(msg)
	m.groups = append(m.groups, append(m.socket, msg.clone()))
	m.socket = nil

	sec := ParseMarkdownSections(out.Message.Content, memorySections)
	if len(sec) < len(memorySections) {
		return nil
	}
	entry, err := m.newMessage(AuthorMemory, agentevolver.RoleAssistant,
		fmt.Sprintf(memoryEntry, sec[SectionStep], sec[SectionNextCode], sec[SectionFeedback]), false)
	if err != nil {
		return err
	}
	m.full = append(m.full, entry)
	return nil
}

// Action implements ContextManager: the next-step code of the latest
// policy turn, or the whole turn when it has no such section.
func (m *Memory) Action() (agentevolver.Message, error) {
	last := m.lastAuthored(AuthorLLM)
	if last == nil {
		return agentevolver.Message{}, fmt.Errorf("%w: Action before a policy turn", ErrSequence)
	}
	content := last.Content
	if code, ok := ParseMarkdownSections(last.Content, memorySections)[SectionNextCode]; ok {
		content = code
	}
	return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: content, ToolCalls: last.ToolCalls}, nil
}

// RecordEnv implements ContextManager.
func (m *Memory) RecordEnv(obs agentevolver.Message) error {
	msg, err := m.observation(obs)
	if err != nil {
		return err
	}
	m.full = append(m.full, msg)
	return nil
}

// Samples implements ContextManager: one Sample per policy turn.
func (m *Memory) Samples(traj agentevolver.Trajectory) ([]agentevolver.Sample, error) {
	return groupSamples(m.core, m.groups, traj)
}
