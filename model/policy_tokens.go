package model

import (
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

func (o *ownTokens) remember(text string, ids []int) {
	if text == "" || len(ids) == 0 {
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
// assistant message is spliced only where the rendering holds its content
// directly between the end of an "assistant" header line and an
// end-of-turn token, so a quote of it elsewhere is never replaced; all
// other text is encoded in pieces cut at those points (which are token
// boundaries for ChatML templates: the header ends in a newline and the
// end-of-turn token is special).
func (o *ownTokens) encodePrompt(tok tokenizer.Tokenizer, text string, messages []agentevolver.Message) []int {
	var ids []int
	pos := 0
	for _, m := range messages {
		if m.Role != agentevolver.RoleAssistant || m.Content == "" {
			continue
		}
		own, ok := o.lookup(m.Content)
		if !ok {
			continue
		}
		start := assistantTurn(text, pos, m.Content)
		if start < 0 {
			continue
		}
		ids = append(ids, tok.Encode(text[pos:start])...)
		ids = append(ids, own...)
		pos = start + len(m.Content)
	}
	return append(ids, tok.Encode(text[pos:])...)
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
