package contextmgr

import (
	"fmt"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/tokenizer"
)

// encoder renders messages with the chat template and tokenises renderings.
// Token arrays of single messages are increments: the ids a message adds to
// the tokenised rendering of what precedes it.
type encoder struct {
	tok  tokenizer.Tokenizer
	tpl  tokenizer.ChatTemplate
	opts tokenizer.TemplateOptions
}

// dummyContext precedes a message whose tokens are computed on their own
// (the reference's "auto" token generation), so the template renders it as
// a continuation rather than as the first message.
var dummyContext = agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "dummy text"}

func (e *encoder) render(msgs []agentevolver.Message, generationPrompt bool) (string, error) {
	opts := e.opts
	opts.AddGenerationPrompt = generationPrompt
	text, err := e.tpl.Apply(msgs, opts)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrTemplate, err)
	}
	return text, nil
}

// count returns the token count of msgs rendered as a prompt (with the
// generation prompt), which is what the policy receives.
func (e *encoder) count(msgs []agentevolver.Message) (int, error) {
	text, err := e.render(msgs, true)
	if err != nil {
		return 0, err
	}
	return len(e.tok.Encode(text)), nil
}

// increment returns the ids that rendering `to` adds to rendering `from`.
func (e *encoder) increment(from, to []agentevolver.Message, fromGen, toGen bool) ([]int, error) {
	a, err := e.render(from, fromGen)
	if err != nil {
		return nil, err
	}
	b, err := e.render(to, toGen)
	if err != nil {
		return nil, err
	}
	return tail(e.tok.Encode(b), len(e.tok.Encode(a))), nil
}

// tail returns ids[from:], or nil when ids is shorter.
func tail(ids []int, from int) []int {
	if from > len(ids) {
		return nil
	}
	return ids[from:]
}

// auto returns the ids of one message rendered after dummyContext.
func (e *encoder) auto(m agentevolver.Message) ([]int, error) {
	return e.increment([]agentevolver.Message{dummyContext}, []agentevolver.Message{dummyContext, m}, false, false)
}

// prefixTokens splits the tokenised rendering of msgs into one increment
// per message. [BUG/QUIRK] fixed: the reference appends each full prefix to
// its accumulator instead of replacing it, which only splits two messages
// correctly; here every message gets exactly the ids it adds.
func (e *encoder) prefixTokens(msgs []agentevolver.Message) ([][]int, error) {
	out := make([][]int, len(msgs))
	prev := 0
	for i := range msgs {
		text, err := e.render(msgs[:i+1], false)
		if err != nil {
			return nil, err
		}
		ids := e.tok.Encode(text)
		if prev > len(ids) {
			prev = len(ids)
		}
		out[i] = ids[prev:]
		prev = len(ids)
	}
	return out, nil
}
