package tokenizer

import (
	"fmt"
)

// Token texts of the ChatML family (Qwen2.5, Qwen3).
const (
	// EndOfText ends a document; Qwen pads with it.
	EndOfText = "<|endoftext|>"
	// IMStart opens a message, followed by its role and a newline.
	IMStart = "<|im_start|>"
	// IMEnd closes a message; it is the end-of-turn token of Qwen instruct
	// models.
	IMEnd = "<|im_end|>"
	// ThinkStart opens a Qwen3 reasoning block.
	ThinkStart = "<think>"
	// ThinkEnd closes a Qwen3 reasoning block.
	ThinkEnd = "</think>"
	// ToolCallStart opens a tool call written by the model.
	ToolCallStart = "<tool_call>"
	// ToolCallEnd closes a tool call.
	ToolCallEnd = "</tool_call>"
	// ToolRespStart opens a tool's answer.
	ToolRespStart = "<tool_response>"
	// ToolRespEnd closes a tool's answer.
	ToolRespEnd = "</tool_response>"
)

// ByteLevelOptions configure NewByteLevel. The zero value gives the bytes
// plus the ChatML tokens.
type ByteLevelOptions struct {
	// ExtraTokens are added tokens appended after the ChatML ones, each
	// matched literally in the input.
	ExtraTokens []string
}

// ByteLevel is a tokenizer for small models trained from scratch: ids 0..255
// are the bytes, and the ChatML tokens follow (256 "<|endoftext|>", 257
// "<|im_start|>", 258 "<|im_end|>", 259 "<think>", 260 "</think>", 261
// "<tool_call>", 262 "</tool_call>", 263 "<tool_response>", 264
// "</tool_response>"), then ByteLevelOptions.ExtraTokens. Every byte string
// round-trips exactly. Its chat template is Qwen3ChatML.
//
// It is safe for concurrent use.
type ByteLevel struct {
	added  *addedMatcher
	tokens []AddedToken // tokens[i] has id 256+i
	byText map[string]int
}

// NewByteLevel returns a byte-level tokenizer. It fails with ErrInvalid on an
// empty or repeated extra token.
func NewByteLevel(opts ByteLevelOptions) (*ByteLevel, error) {
	t := &ByteLevel{byText: make(map[string]int)}
	add := func(content string, special bool) error {
		if content == "" {
			return fmt.Errorf("%w: empty added token", ErrInvalid)
		}
		if _, dup := t.byText[content]; dup {
			return fmt.Errorf("%w: added token %q twice", ErrInvalid, content)
		}
		id := 256 + len(t.tokens)
		t.tokens = append(t.tokens, AddedToken{ID: id, Content: content, Special: special})
		t.byText[content] = id
		return nil
	}
	for _, c := range []string{EndOfText, IMStart, IMEnd} {
		_ = add(c, true)
	}
	for _, c := range []string{ThinkStart, ThinkEnd, ToolCallStart, ToolCallEnd, ToolRespStart, ToolRespEnd} {
		_ = add(c, false)
	}
	for _, c := range opts.ExtraTokens {
		if err := add(c, false); err != nil {
			return nil, err
		}
	}
	t.added = newAddedMatcher(t.tokens)
	return t, nil
}

// Encode returns one id per byte of text, except where an added token
// appears literally, which becomes its single id.
func (t *ByteLevel) Encode(text string) []int {
	ids := make([]int, 0, len(text))
	t.added.split(text, func(seg string, tok *AddedToken) {
		if tok != nil {
			ids = append(ids, tok.ID)
			return
		}
		for i := 0; i < len(seg); i++ {
			ids = append(ids, int(seg[i]))
		}
	})
	return ids
}

// Decode returns the bytes of ids, exactly.
func (t *ByteLevel) Decode(ids []int) (string, error) {
	buf := make([]byte, 0, len(ids))
	for _, id := range ids {
		switch {
		case id >= 0 && id < 256:
			buf = append(buf, byte(id))
		case id >= 256 && id < 256+len(t.tokens):
			buf = append(buf, t.tokens[id-256].Content...)
		default:
			return "", fmt.Errorf("%w: %d", ErrUnknownID, id)
		}
	}
	return string(buf), nil
}

// VocabSize is 256 plus the number of added tokens.
func (t *ByteLevel) VocabSize() int { return 256 + len(t.tokens) }

// TokenID returns the id of an added token, or of a single byte given as a
// one-byte string.
func (t *ByteLevel) TokenID(token string) (int, bool) {
	if id, ok := t.byText[token]; ok {
		return id, true
	}
	if len(token) == 1 {
		return int(token[0]), true
	}
	return 0, false
}

// IsSpecial reports whether id is one of the special ChatML tokens
// ("<|endoftext|>", "<|im_start|>", "<|im_end|>").
func (t *ByteLevel) IsSpecial(id int) bool {
	return id >= 256 && id < 256+len(t.tokens) && t.tokens[id-256].Special
}

// AddedTokens returns the added tokens, in id order.
func (t *ByteLevel) AddedTokens() []AddedToken { return append([]AddedToken(nil), t.tokens...) }

// EOSID returns the id of "<|im_end|>".
func (t *ByteLevel) EOSID() (int, bool) { return t.byText[IMEnd], true }

// PadID returns the id of "<|endoftext|>".
func (t *ByteLevel) PadID() (int, bool) { return t.byText[EndOfText], true }

// ChatTemplate returns Qwen3ChatML, so a small model speaks the Qwen3 chat
// format.
func (t *ByteLevel) ChatTemplate() (ChatTemplate, error) { return Qwen3ChatML(), nil }

// Token returns the text of id as a one-byte string or added token content.
func (t *ByteLevel) Token(id int) (string, bool) {
	switch {
	case id >= 0 && id < 256:
		return string([]byte{byte(id)}), true
	case id >= 256 && id < 256+len(t.tokens):
		return t.tokens[id-256].Content, true
	}
	return "", false
}

var (
	_ Tokenizer        = (*ByteLevel)(nil)
	_ SpecialTokens    = (*ByteLevel)(nil)
	_ TemplateProvider = (*ByteLevel)(nil)
)
