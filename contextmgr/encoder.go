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

// increment returns the ids that rendering `to` adds to rendering `from`:
// the ids of `to` after the longest common prefix of both tokenisations.
// For templates that render a message the same whatever follows it (ChatML
// without reasoning) that is exactly the ids after those of `from`, as in
// the reference.
func (e *encoder) increment(from, to []agentevolver.Message, fromGen, toGen bool) ([]int, error) {
	a, err := e.render(from, fromGen)
	if err != nil {
		return nil, err
	}
	b, err := e.render(to, toGen)
	if err != nil {
		return nil, err
	}
	ids := e.tok.Encode(b)
	return ids[commonPrefix(e.tok.Encode(a), ids):], nil
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// dummyContexts are the contexts tried, in order, before a message whose
// tokens are computed on their own, so the template renders it as a
// continuation rather than as the first message. The reference always uses
// one assistant turn; a template that re-renders earlier turns depending on
// what follows (Qwen3 adds an empty think block to a final assistant turn)
// or that insists on alternating roles needs another, so the first context
// whose rendering stays a prefix is used.
func dummyContexts() [][]agentevolver.Message {
	u := agentevolver.Message{Role: agentevolver.RoleUser, Content: "dummy text"}
	a := agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "dummy text"}
	return [][]agentevolver.Message{{a}, {u}, {u, a}}
}

// auto returns the ids of one message rendered as a continuation.
func (e *encoder) auto(m agentevolver.Message) ([]int, error) {
	var lastErr error
	for _, ctx := range dummyContexts() {
		a, err := e.render(ctx, false)
		if err != nil {
			lastErr = err
			continue
		}
		b, err := e.render(append(ctx, m), false)
		if err != nil {
			lastErr = err
			continue
		}
		ea, eb := e.tok.Encode(a), e.tok.Encode(b)
		if commonPrefix(ea, eb) == len(ea) {
			return eb[len(ea):], nil
		}
		lastErr = fmt.Errorf("%w: rendering a %s turn changes the turns before it", ErrTemplate, m.Role)
	}
	return nil, lastErr
}

// prefixTokens splits the tokenised rendering of msgs into one increment
// per message. [BUG/QUIRK] fixed: the reference appends each full prefix to
// its accumulator instead of replacing it, which only splits two messages
// correctly; here every message gets exactly the ids it adds.
func (e *encoder) prefixTokens(msgs []agentevolver.Message) ([][]int, error) {
	out := make([][]int, len(msgs))
	var prev []int
	for i := range msgs {
		text, err := e.render(msgs[:i+1], false)
		if err != nil {
			return nil, err
		}
		ids := e.tok.Encode(text)
		out[i] = ids[commonPrefix(prev, ids):]
		prev = ids
	}
	return out, nil
}

// generationHeader returns the ids of the generation prompt: the header of
// a policy turn.
func (e *encoder) generationHeader() ([]int, error) {
	ctx := []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "dummy text"}}
	return e.increment(ctx, ctx, false, true)
}
