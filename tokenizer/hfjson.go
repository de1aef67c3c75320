package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/org/agentevolver/internal/fsutil"
)

// Size bounds of the files Load reads.
const (
	maxTokenizerJSON = 256 << 20
	maxConfigJSON    = 16 << 20
)

// hfTokenizerFile is the part of a Hugging Face tokenizer.json that a
// byte-level BPE tokenizer needs.
type hfTokenizerFile struct {
	AddedTokens  []AddedToken    `json:"added_tokens"`
	Normalizer   *hfNormalizer   `json:"normalizer"`
	PreTokenizer *hfPreTokenizer `json:"pre_tokenizer"`
	Decoder      *hfDecoder      `json:"decoder"`
	Model        hfModel         `json:"model"`
}

type hfNormalizer struct {
	Type        string         `json:"type"`
	Normalizers []hfNormalizer `json:"normalizers"`
}

type hfPreTokenizer struct {
	Type           string           `json:"type"`
	PreTokenizers  []hfPreTokenizer `json:"pretokenizers"`
	Pattern        *hfPattern       `json:"pattern"`
	Behavior       string           `json:"behavior"`
	Invert         bool             `json:"invert"`
	AddPrefixSpace bool             `json:"add_prefix_space"`
	UseRegex       *bool            `json:"use_regex"`
}

type hfPattern struct {
	Regex  *string `json:"Regex"`
	String *string `json:"String"`
}

type hfDecoder struct {
	Type     string      `json:"type"`
	Decoders []hfDecoder `json:"decoders"`
}

type hfModel struct {
	Type                    string          `json:"type"`
	Vocab                   map[string]int  `json:"vocab"`
	Merges                  json.RawMessage `json:"merges"`
	UnkToken                *string         `json:"unk_token"`
	ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
	ByteFallback            bool            `json:"byte_fallback"`
	IgnoreMerges            bool            `json:"ignore_merges"`
	Dropout                 *float64        `json:"dropout"`
}

// mergePairs decodes the merges in either of their two spellings: a list of
// ["a", "b"] pairs or a list of "a b" strings.
func (m hfModel) mergePairs() ([][2]string, error) {
	if len(m.Merges) == 0 || string(m.Merges) == "null" {
		return nil, nil
	}
	var pairs [][2]string
	if err := json.Unmarshal(m.Merges, &pairs); err == nil {
		return pairs, nil
	}
	var lines []string
	if err := json.Unmarshal(m.Merges, &lines); err != nil {
		return nil, fmt.Errorf("model.merges: want [[a, b], ...] or [\"a b\", ...]: %w", err)
	}
	pairs = make([][2]string, len(lines))
	for i, l := range lines {
		a, b, ok := strings.Cut(l, " ")
		if !ok {
			return nil, fmt.Errorf("model.merges[%d] %q: want two tokens separated by a space", i, l)
		}
		pairs[i] = [2]string{a, b}
	}
	return pairs, nil
}

// hfConfigFile is the part of tokenizer_config.json used here.
type hfConfigFile struct {
	ChatTemplate json.RawMessage `json:"chat_template"`
	EOSToken     json.RawMessage `json:"eos_token"`
	PadToken     json.RawMessage `json:"pad_token"`
}

// tokenName reads a special-token entry, written either as a string or as an
// AddedToken object with a content field.
func tokenName(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var obj struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return "", fmt.Errorf("want a string or {\"content\": ...}: %w", err)
	}
	return obj.Content, nil
}

// chatTemplate reads the chat_template entry: a string, or a list of named
// templates of which "default" is used.
func (c hfConfigFile) chatTemplate() (string, error) {
	raw := c.ChatTemplate
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var named []struct {
		Name     string `json:"name"`
		Template string `json:"template"`
	}
	if err := json.Unmarshal(raw, &named); err != nil {
		return "", fmt.Errorf("chat_template: want a string or a list of {name, template}: %w", err)
	}
	for _, n := range named {
		if n.Name == "default" {
			return n.Template, nil
		}
	}
	return "", nil
}

// readBounded reads a whole file of at most limit bytes; a larger one is
// ErrTooLarge.
func readBounded(path string, limit int64) ([]byte, error) {
	data, err := fsutil.ReadFile(path, limit)
	if errors.Is(err, fsutil.ErrTooLarge) {
		return nil, fmt.Errorf("%s: %w (more than %d bytes)", path, ErrTooLarge, limit)
	}
	return data, err
}
