package model

import (
	"slices"
	"strings"
	"sync"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/tokenizer"
)

// ownTokensCapacity bounds how many of its own answers a Policy remembers.
// An episode needs only its recent turns; the bound keeps a long-running
// policy's memory flat.
const ownTokensCapacity = 8192

// ownTokens remembers the exact token ids of the answers a Policy sampled,
// by their text. When a later prompt contains one of them (the next turn of
// an episode), the prompt is encoded with those ids instead of
// re-tokenising the text: a sampled token sequence is often not the
// tokenizer's canonical encoding of its own decoded text, and a policy that
// re-tokenised would condition later turns on tokens it never produced, so
// the training samples (which carry the sampled ids) would disagree with
// what the policy actually saw.
type ownTokens struct {
	mu    sync.Mutex
	ids   map[string][]int
	order []string // insertion order, for eviction
}

// remember records the ids an answer with text occupies in later prompts.
// An empty answer has ids only when the generation prompt ended in more
// than the assistant header (Qwen3's empty think block).
func (o *ownTokens) remember(text string, ids []int) {
	if len(ids) == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ids == nil {
		o.ids = make(map[string][]int)
	}
	if _, ok := o.ids[text]; !ok {
		o.order = append(o.order, text)
	}
	o.ids[text] = append([]int(nil), ids...)
	for len(o.order) > ownTokensCapacity {
		delete(o.ids, o.order[0])
		o.order = o.order[1:]
	}
}

func (o *ownTokens) lookup(text string) ([]int, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	ids, ok := o.ids[text]
	return ids, ok
}

// encodePrompt encodes the rendered prompt text of messages, splicing in
// the remembered ids of the assistant messages this policy wrote. An
// assistant message is spliced only where the rendering holds it as a whole
// assistant turn, directly between the end of an "assistant" header line
// and an end-of-turn token, so a quote of it elsewhere is never replaced;
// all other text is encoded in pieces cut at those points (which are token
// boundaries for ChatML templates: the header ends in a newline and the
// end-of-turn token is special).
//
// The turn is found as the template renders the message (see turnBodies)
// and replaced by the ids remembered for it, which are the turn as it was
// generated: a template that re-renders earlier answers (Qwen3 drops their
// reasoning, and with thinking disabled their empty think block) would
// otherwise condition later turns on a history that a training sample
// holding the sampled ids (contextmgr's Linear strategy) does not hold.
// Only the policy's own answers are shown this way; every other message is
// rendered as the template says.
func (o *ownTokens) encodePrompt(tok tokenizer.Tokenizer, tpl tokenizer.ChatTemplate, text string, messages []agentevolver.Message) []int {
	var ids []int
	pos := 0  // text[:pos] is encoded
	from := 0 // where the next turn may start: after the last spliced one's end-of-turn token
	for _, m := range messages {
		if m.Role != agentevolver.RoleAssistant {
			continue
		}
		own, ok := o.lookup(m.Content)
		if !ok {
			continue
		}
		start, end := -1, -1
		for _, body := range turnBodies(tpl, m) {
			if i := assistantTurn(text, from, body); i >= 0 && (start < 0 || i < start) {
				start, end = i, i+len(body)
			}
		}
		if start < 0 {
			continue
		}
		ids = append(ids, tok.Encode(text[pos:start])...)
		ids = append(ids, own...)
		pos, from = end, end+len(tokenizer.IMEnd)
	}
	return append(ids, tok.Encode(text[pos:])...)
}

// turnBodies returns the texts the template may render between the header
// and the end-of-turn token of the assistant message m: its content, and
// the body of m rendered as the only message (Qwen3: an earlier turn,
// reasoning dropped) and after a user query (Qwen3: the latest turn,
// reasoning in a think block).
func turnBodies(tpl tokenizer.ChatTemplate, m agentevolver.Message) []string {
	bodies := []string{m.Content}
	if tpl == nil {
		return bodies
	}
	query := agentevolver.Message{Role: agentevolver.RoleUser, Content: "?"}
	for _, msgs := range [][]agentevolver.Message{{m}, {query, m}} {
		text, err := tpl.Apply(msgs, tokenizer.TemplateOptions{})
		if err != nil {
			continue
		}
		i := strings.Index(text, assistantHeader)
		if i < 0 || !strings.HasSuffix(text, tokenizer.IMEnd+"\n") {
			continue
		}
		body := text[i+len(assistantHeader) : len(text)-len(tokenizer.IMEnd+"\n")]
		if !slices.Contains(bodies, body) {
			bodies = append(bodies, body)
		}
	}
	return bodies
}

// assistantTurn returns where content starts as a whole assistant turn in
// text at or after from ("assistant\n" before it, the end-of-turn token
// after it), or -1.
func assistantTurn(text string, from int, content string) int {
	needle := content + tokenizer.IMEnd
	for from <= len(text) {
		i := strings.Index(text[from:], needle)
		if i < 0 {
			return -1
		}
		start := from + i
		if strings.HasSuffix(text[:start], "assistant\n") {
			return start
		}
		from = start + 1
	}
	return -1
}
