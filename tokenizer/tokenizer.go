package tokenizer

import (
	"encoding/json"
	"errors"

	"github.com/org/agentevolver"
)

// Tokenizer turns text into token ids and back. Implementations are safe for
// concurrent use.
type Tokenizer interface {
	// Encode returns the ids of text. Added (special) tokens that appear
	// literally in text are encoded as their single ids, as Hugging Face
	// tokenizers do by default.
	Encode(text string) []int
	// Decode returns the text of ids. It fails on an id outside the
	// vocabulary.
	Decode(ids []int) (string, error)
	// VocabSize is the number of ids, added tokens included.
	VocabSize() int
	// TokenID returns the id of a token given by its text form (for example
	// "<|im_end|>"), and whether it exists.
	TokenID(token string) (id int, ok bool)
}

// ChatTemplate renders a message list into the text a model is trained on.
type ChatTemplate interface {
	Apply(messages []agentevolver.Message, opts TemplateOptions) (string, error)
}

// TemplateOptions tune a ChatTemplate rendering. The zero value renders the
// messages without a generation prompt, with thinking enabled.
type TemplateOptions struct {
	// AddGenerationPrompt appends the header of the next assistant turn.
	AddGenerationPrompt bool
	// DisableThinking renders as the Qwen3 template does with
	// enable_thinking=false (an empty <think></think> block after the
	// generation prompt).
	DisableThinking bool
	// Tools are the JSON descriptions of the functions the model may call
	// (OpenAI "tools" entries), rendered into the system message.
	Tools []json.RawMessage
}

// ErrUnknownID reports a token id outside the vocabulary.
var ErrUnknownID = errors.New("tokenizer: unknown token id")
