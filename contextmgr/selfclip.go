package contextmgr

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// Prompts of SelfContextClip (reference §3.5).
const (
	// ForceThinkBoxConcise is ForceThinkBox with a request for a short
	// thought, as SelfContextClip words it.
	ForceThinkBoxConcise = "\nAdditional requirements: Think before action! You must think step by step before your next action, and you must use <think>...</think> to wrap your thinking process before finally produce your answer with \\box{}.\nYour thought (<think>...</think>) should be as short and concise as possible.\nFor example:\n<think>...your thinking process...</think>\n\\box{...your final answer...}\n"
	// ForceThinkCodeConcise is ForceThinkCode with a request for a short
	// thought.
	ForceThinkCodeConcise = "\nAdditional requirements: Think before action! You must think step by step before your next action, and you must use <think>...</think> to wrap your thinking process before finally produce the next-step action.\nYour thought (<think>...</think>) should be as short and concise as possible.\nFor example:\n<think>...your thinking process...</think>\n```python\n# your action here\n```\n"

	// ClipDecisionPrompt asks the clip model which messages to keep.
	ClipDecisionPrompt = "\nYour new task is to inspect each `Environment Response` and `Assistant Response` messages,\nand determine whether each message is useful for the next-step decision-making.\nGenerate a json structure following the format below:\n```json\n[\n    {\"id\":\"ARXXX or ERXXX\", \"useful\":true or false, \"action\": \"keep or remove or compress\"},\n    ...,\n    {\"id\":\"ARXXX or ERXXX\", \"useful\":true or false, \"action\": \"keep or remove or compress\"},\n]\n```\n\nFor example:\n```json\n[\n    {\"id\":\"ER001\", \"useful\":true, \"action\": \"keep\"},\n    {\"id\":\"AR001\", \"useful\":false, \"action\": \"remove\"},\n    ...\n]\n```\n\nRules:\n- If the message contains useful information for future decisions, set \"useful\":true and \"action\":\"keep\".\n- If the message records important previous action or environment feedback, set \"useful\":true and \"action\":\"keep\".\n- If the message is very long and very redundant, set \"useful\":true and \"action\":\"compress\".\n- If the message is completely irrelevant, set \"useful\":false and \"action\":\"remove\". Note that important failures should be preserved, because learning from past is vital.\n- Ignore messages without id=XXX tags, where XXX is a 3-digit number.\n- Ensure the JSON is properly formatted and valid.\n- Remove or compress at least one message, because token limit is already reached.\n- At least remove (or compress) one message.\n- There must be no more than 2 \"compress\" actions in total, because \"compress\" action will cost considerable amount of time.\n\n"

	// clipCompressPrompt asks the clip model to shorten one message; %[1]s
	// is its id.
	clipCompressPrompt = "\nYour new task is to inspect %[1]s, and filter out all redundant information, and only keep the most important information that is useful for future decision-making.\nFor example, if the content is a long text with multiple paragraphs, you should only preseve the key paragraphs and use ... to replace the rest.\nIf the content is a long list of data / dict / json, you should only preseve the key items and use ... to replace the rest.\nBe careful to preserve all information that might be useful in the future. You should at least reduce 50%% of %[1]s.\nRemember： wrap your answer with ```\n\nYour response should be like:\n```\n...content after filtering...\n```\n"
)

// maxCompressions bounds the compress calls of one clip, as the decision
// prompt asks.
const maxCompressions = 2

// SelfContextClip is the reference's "context_selfclip" strategy (§3.5):
// LinearThink whose prompts tag every observation and earlier policy turn
// with an id (ER001, AR001, ...). Once a prompt plus reply reaches
// ClipTriggerTokens, ClipModel is asked, once per episode, which tagged
// messages to keep, remove (hidden from later prompts) or compress
// (replaced by a shorter text it writes).
//
// [BUG/QUIRK] fixed: the reference could not construct this strategy (the
// episode worker passes a chat function it does not have) and called a
// hard-wired external service; here the clip model is injected. Decisions
// are validated as a whole before any is applied, ids are matched by their
// tags rather than by substring, turn numbers are not capped at 98, and at
// most two messages are compressed.
type SelfContextClip struct {
	*LinearThink
	force   string
	clipped bool
	// tags maps the ids of the latest prompt to the UUIDs of the messages
	// they stand for; envTag is the id of its latest observation.
	tags   map[string]string
	envTag string
}

// NewSelfContextClip returns a SelfContextClip context manager for one
// episode. cfg.ClipModel is required.
func NewSelfContextClip(cfg Config) (*SelfContextClip, error) {
	if cfg.ClipModel == nil {
		return nil, fmt.Errorf("%w: SelfContextClip needs a ClipModel", ErrConfig)
	}
	lt, err := NewLinearThink(cfg)
	if err != nil {
		return nil, err
	}
	s := &SelfContextClip{LinearThink: lt}
	if lt.cfg.ForceThink {
		s.force = ForceThinkCodeConcise
		if lt.cfg.ThinkPreference == PreferBox {
			s.force = ForceThinkBoxConcise
		}
	}
	return s, nil
}

// Prompt implements ContextManager.
func (s *SelfContextClip) Prompt() ([]agentevolver.Message, error) {
	src := s.authored(AuthorInit, AuthorLLM, AuthorEnv)
	socket := make([]*ExtendedMessage, len(src))
	tags := map[string]string{}
	envTag := ""
	envTurn, llmTurn := 1, 1
	for i, m := range src {
		last := i == len(src)-1
		var err error
		switch m.Author {
		case AuthorLLM:
			tag := fmt.Sprintf("AR%03d", llmTurn)
			llmTurn++
			tags[tag] = m.UUID
			content := "[Assistant Response, id=" + tag + "]\n---\n" + strings.TrimFunc(StripThink(m.Content), pyIsSpace)
			socket[i], err = s.derive(m, AuthorLLMNoTrain, content)
		case AuthorEnv:
			tag := fmt.Sprintf("ER%03d", envTurn)
			envTurn++
			tags[tag] = m.UUID
			envTag = tag
			content := "[Environment Response, id=" + tag + "]\n---\n" + strings.TrimFunc(m.FutureContent, pyIsSpace)
			if last {
				content += s.force
			}
			socket[i], err = s.derive(m, m.Author, content)
		default:
			content := m.FutureContent
			if last {
				content = strings.TrimFunc(content, pyIsSpace) + s.force
			}
			socket[i], err = s.derive(m, m.Author, strings.TrimFunc(content, pyIsSpace))
		}
		if err != nil {
			return nil, err
		}
	}
	msgs := messagesOf(socket)
	if err := s.checkFits(msgs); err != nil {
		return nil, err
	}
	s.socket, s.tags, s.envTag = socket, tags, envTag
	return msgs, nil
}

// RecordLLM implements ContextManager. Failures of the clip model are
// logged, never returned: clipping is an optimisation of later prompts.
func (s *SelfContextClip) RecordLLM(ctx context.Context, prompt []agentevolver.Message, out llm.Completion) error {
	group, err := s.recordTurn(prompt, out)
	if err != nil {
		return err
	}
	if s.envTag == "" || s.clipped {
		return nil
	}
	n, err := s.enc.count(messagesOf(group))
	if err != nil {
		return err
	}
	if n < s.cfg.ClipTriggerTokens {
		return nil
	}
	s.clipped = true
	if err := s.clip(ctx, group); err != nil {
		s.cfg.Logger.Warn("contextmgr: context clip abandoned", "err", err)
	}
	return nil
}

// clip asks the clip model about the tagged messages of group and applies
// its decisions to the full record.
func (s *SelfContextClip) clip(ctx context.Context, group []*ExtendedMessage) error {
	reply, err := s.askClipModel(ctx, group, ClipDecisionPrompt)
	if err != nil {
		return err
	}
	decisions, err := ParseClipDecision(reply)
	if err != nil {
		return err
	}
	targets := make([]int, len(decisions))
	for i, d := range decisions {
		id, ok := s.tags[d.ID]
		if !ok {
			return fmt.Errorf("%w: unknown message id %q", ErrClipReply, d.ID)
		}
		targets[i] = slices.IndexFunc(s.full, func(m *ExtendedMessage) bool { return m.UUID == id })
		if targets[i] < 0 {
			return fmt.Errorf("%w: message %q is no longer recorded", ErrClipReply, d.ID)
		}
	}
	compressions := 0
	for i, d := range decisions {
		target := s.full[targets[i]]
		switch d.Action {
		case ClipRemove:
			if !strings.HasSuffix(target.Author, DiscardSuffix) {
				target.Author += DiscardSuffix
			}
		case ClipCompress:
			if compressions == maxCompressions {
				s.cfg.Logger.Warn("contextmgr: clip model asked for too many compressions", "id", d.ID)
				continue
			}
			compressions++
			reply, err := s.askClipModel(ctx, group[:len(group)-1], fmt.Sprintf(clipCompressPrompt, d.ID))
			if err == nil {
				var body string
				if body, err = fencedBody(reply); err == nil {
					err = s.replaceContent(targets[i], body)
				}
			}
			if err != nil {
				s.cfg.Logger.Warn("contextmgr: compression skipped", "id", d.ID, "err", err)
			}
		}
	}
	return nil
}

// replaceContent gives the message at index i of the record new content,
// keeping its author and UUID.
func (s *SelfContextClip) replaceContent(i int, content string) error {
	old := s.full[i]
	m, err := s.newMessage(old.Author, old.Role, content, false)
	if err != nil {
		return err
	}
	m.UUID, m.BuildFromUUID = old.UUID, old.BuildFromUUID
	s.full[i] = m
	return nil
}

// askClipModel sends interaction (think blocks stripped from policy turns)
// followed by a user request to the clip model and returns its reply text.
// With TrainClipDecisions the exchange is also recorded as a training
// group.
func (s *SelfContextClip) askClipModel(ctx context.Context, interaction []*ExtendedMessage, request string) (string, error) {
	msgs := make([]*ExtendedMessage, 0, len(interaction)+1)
	for _, m := range interaction {
		if m.Author == AuthorLLM || m.Author == AuthorLLMNoTrain {
			d, err := s.replay(m, m.Author, StripThink(m.Content))
			if err != nil {
				return "", err
			}
			if m.BuildFromUUID != "" {
				d.BuildFromUUID = m.BuildFromUUID
			}
			m = d
		}
		msgs = append(msgs, m)
	}
	req, err := s.newMessage(AuthorUser, agentevolver.RoleUser, request, false)
	if err != nil {
		return "", err
	}
	msgs = append(msgs, req)
	prompt := messagesOf(msgs)
	out, err := s.cfg.ClipModel.Chat(ctx, prompt, llm.ChatOptions{Temperature: llm.Float(0), MaxTokens: s.cfg.ClipReplyTokens})
	if err != nil {
		return "", fmt.Errorf("clip model: %w", err)
	}
	if s.cfg.TrainClipDecisions {
		reply, err := s.policyMessage(prompt, out)
		if err != nil {
			return "", err
		}
		s.groups = append(s.groups, append(msgs, reply))
	}
	return strings.TrimFunc(out.Message.Content, pyIsSpace), nil
}
