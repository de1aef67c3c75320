package contextmgr_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/tokenizer"
)

// charTokenizer is a small, exact tokenizer for tests: the ChatML markers
// are single ids, every other code point is 256 + its value. Its encoding
// of a concatenation is the concatenation of encodings, like a byte-level
// BPE at chat-template boundaries.
type charTokenizer struct{}

var specialTokens = []string{"<|im_start|>", "<|im_end|>", "<|endoftext|>"}

const (
	imStartID = 1
	imEndID   = 2
	charBase  = 256
)

func (charTokenizer) Encode(text string) []int {
	var ids []int
	for len(text) > 0 {
		matched := false
		for i, sp := range specialTokens {
			if strings.HasPrefix(text, sp) {
				ids = append(ids, i+1)
				text = text[len(sp):]
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		r, size := utf8.DecodeRuneInString(text)
		ids = append(ids, charBase+int(r))
		text = text[size:]
	}
	return ids
}

func (charTokenizer) Decode(ids []int) (string, error) {
	var b strings.Builder
	for _, id := range ids {
		switch {
		case id >= 1 && id <= len(specialTokens):
			b.WriteString(specialTokens[id-1])
		case id >= charBase && id < charBase+0x110000:
			b.WriteRune(rune(id - charBase))
		default:
			return "", fmt.Errorf("%w: %d", tokenizer.ErrUnknownID, id)
		}
	}
	return b.String(), nil
}

func (charTokenizer) VocabSize() int { return charBase + 0x110000 }

func (charTokenizer) TokenID(token string) (int, bool) {
	for i, sp := range specialTokens {
		if sp == token {
			return i + 1, true
		}
	}
	if r := []rune(token); len(r) == 1 {
		return charBase + int(r[0]), true
	}
	return 0, false
}

// chatML renders messages the way Qwen2.5 does: a default system prompt
// when the first message is not a system message.
type chatML struct{ defaultSystem string }

func (c chatML) Apply(msgs []agentevolver.Message, opts tokenizer.TemplateOptions) (string, error) {
	var b strings.Builder
	if c.defaultSystem != "" && (len(msgs) == 0 || msgs[0].Role != agentevolver.RoleSystem) {
		fmt.Fprintf(&b, "<|im_start|>system\n%s<|im_end|>\n", c.defaultSystem)
	}
	for _, m := range msgs {
		if m.Role == "" {
			return "", fmt.Errorf("message without a role")
		}
		fmt.Fprintf(&b, "<|im_start|>%s\n%s<|im_end|>\n", m.Role, m.Content)
	}
	if opts.AddGenerationPrompt {
		b.WriteString("<|im_start|>assistant\n")
	}
	return b.String(), nil
}

// scriptedModel replies with the next of its replies, reporting token ids
// (the reply's encoding plus <|im_end|>) and log-probabilities when ids is
// set. It records the prompts it received.
type scriptedModel struct {
	mu      sync.Mutex
	replies []string
	ids     bool
	prompts [][]agentevolver.Message
}

func (s *scriptedModel) Chat(_ context.Context, msgs []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prompts = append(s.prompts, msgs)
	if len(s.replies) == 0 {
		return llm.Completion{}, fmt.Errorf("scriptedModel: no reply left")
	}
	text := s.replies[0]
	s.replies = s.replies[1:]
	c := llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: text}, FinishReason: "stop"}
	if s.ids {
		c.TokenIDs = append(charTokenizer{}.Encode(text), imEndID)
		c.LogProbs = make([]float64, len(c.TokenIDs))
		for i := range c.LogProbs {
			c.LogProbs[i] = -float64(i+1) / 100
		}
	}
	return c, nil
}

func tokenizerOpts() tokenizer.TemplateOptions { return tokenizer.TemplateOptions{} }

// reasoningChatML renders like Qwen3's template does at the end of a
// conversation: a final assistant turn gets an empty think block, so
// rendering a turn changes how the turn before it is rendered.
type reasoningChatML struct{}

func (reasoningChatML) Apply(msgs []agentevolver.Message, opts tokenizer.TemplateOptions) (string, error) {
	var b strings.Builder
	for i, m := range msgs {
		content := m.Content
		if m.Role == agentevolver.RoleAssistant && i == len(msgs)-1 && !opts.AddGenerationPrompt && !strings.HasPrefix(content, "<think>") {
			content = "<think>\n\n</think>\n\n" + content
		}
		fmt.Fprintf(&b, "<|im_start|>%s\n%s<|im_end|>\n", m.Role, content)
	}
	if opts.AddGenerationPrompt {
		b.WriteString("<|im_start|>assistant\n")
	}
	return b.String(), nil
}

func llmOpts() llm.ChatOptions { return llm.ChatOptions{LogProbs: true} }
