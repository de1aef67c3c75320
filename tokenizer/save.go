package tokenizer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/org/agentevolver/internal/fsutil"
)

// Save writes the tokenizer to dir as Hugging Face files: tokenizer.json
// (the BPE model, its pipeline and added tokens) and tokenizer_config.json
// (chat template, eos and pad tokens), creating dir if needed. Load(dir)
// gives back a tokenizer with the same ids, special tokens and chat
// template. Each file is written to a temporary file and renamed into place,
// so a reader never sees a half-written file.
//
// The written files are checked by building a tokenizer from them before
// anything is written.
func (t *BPE) Save(dir string) error {
	tokJSON, configJSON, err := t.definition().marshal()
	if err != nil {
		return fmt.Errorf("tokenizer: save %s: %w", dir, err)
	}
	if _, err := NewBPE(tokJSON, configJSON); err != nil {
		return fmt.Errorf("tokenizer: save %s: the written files would not load: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("tokenizer: save: %w", err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{"tokenizer.json", tokJSON}, {"tokenizer_config.json", configJSON}} {
		if err := fsutil.WriteFile(filepath.Join(dir, f.name), f.data); err != nil {
			return fmt.Errorf("tokenizer: save %s: %w", dir, err)
		}
	}
	return nil
}

// bpeDefinition is everything tokenizer.json and tokenizer_config.json say
// about a byte-level BPE tokenizer. TrainBPE builds one and Save recovers
// one from a BPE; both go through marshal and NewBPE, so a trained tokenizer
// and its saved copy are built by the same code.
type bpeDefinition struct {
	vocab        map[string]int // tokens in the byte alphabet
	merges       [][2]string    // in rank order
	ignoreMerges bool
	normalizer   *hfNormalizer
	preTokenizer *hfPreTokenizer
	decoder      *hfDecoder
	added        []AddedToken
	template     string // Jinja source, "" for none
	eos, pad     string // token names, "" for none
}

// definition recovers the files t was built from, up to formatting and
// sections the loader ignores.
func (t *BPE) definition() bpeDefinition {
	// Where several tokens share an id (a malformed but loadable vocab),
	// the smallest name is used, so that the output is deterministic.
	names := make([]string, len(t.tokenBytes))
	for tok, id := range t.vocab {
		if names[id] == "" || tok < names[id] {
			names[id] = tok
		}
	}
	type rankedMerge struct {
		rank uint32
		pair [2]string
	}
	ranked := make([]rankedMerge, 0, len(t.merges))
	for key, v := range t.merges {
		a, b := int32(key>>32), int32(uint32(key))
		ranked = append(ranked, rankedMerge{uint32(v >> 32), [2]string{names[a], names[b]}})
	}
	sort.Slice(ranked, func(i, j int) bool { return ranked[i].rank < ranked[j].rank })
	merges := make([][2]string, len(ranked))
	for i, m := range ranked {
		merges[i] = m.pair
	}
	name := func(id int, ok bool) string {
		if !ok {
			return ""
		}
		for _, a := range t.addedList {
			if a.ID == id {
				return a.Content
			}
		}
		return names[id]
	}
	return bpeDefinition{
		vocab:        t.vocab,
		merges:       merges,
		ignoreMerges: t.ignoreMerges,
		normalizer:   t.normalizer,
		preTokenizer: t.preTokenizer,
		decoder:      t.decoder,
		added:        t.addedList,
		template:     t.template,
		eos:          name(t.EOSID()),
		pad:          name(t.PadID()),
	}
}

// build makes the tokenizer the definition describes.
func (d bpeDefinition) build() (*BPE, error) {
	tokJSON, configJSON, err := d.marshal()
	if err != nil {
		return nil, err
	}
	return NewBPE(tokJSON, configJSON)
}

// marshal writes tokenizer.json and tokenizer_config.json.
func (d bpeDefinition) marshal() (tokJSON, configJSON []byte, err error) {
	model := outModel{
		Type:         "BPE",
		ByteFallback: false,
		IgnoreMerges: d.ignoreMerges,
		Vocab:        sortedVocab(d.vocab),
		Merges:       mergeList(d.merges),
	}
	added := d.added
	if added == nil {
		added = []AddedToken{}
	}
	tokJSON, err = marshalJSON(outTokenizer{
		Version:      "1.0",
		AddedTokens:  added,
		Normalizer:   outNormalizerOf(d.normalizer),
		PreTokenizer: outPreTokenizerOf(d.preTokenizer),
		Decoder:      outDecoderOf(d.decoder),
		Model:        model,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("tokenizer.json: %w", err)
	}
	config := outConfig{
		AddedTokensDecoder: make(map[string]outAddedTokenEntry, len(d.added)),
		ChatTemplate:       d.template,
		EOSToken:           optionalName(d.eos),
		PadToken:           optionalName(d.pad),
		Errors:             "replace",
		TokenizerClass:     "PreTrainedTokenizerFast",
	}
	for _, a := range d.added {
		config.AddedTokensDecoder[strconv.Itoa(a.ID)] = outAddedTokenEntry{
			Content: a.Content, LStrip: a.LStrip, Normalized: a.Normalized,
			RStrip: a.RStrip, SingleWord: a.SingleWord, Special: a.Special,
		}
	}
	configJSON, err = marshalJSON(config)
	if err != nil {
		return nil, nil, fmt.Errorf("tokenizer_config.json: %w", err)
	}
	return tokJSON, configJSON, nil
}

// marshalJSON writes v indented, without escaping "<" and ">" (which the
// special tokens are full of), as Hugging Face writes its files.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func optionalName(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// The output types below spell tokenizer.json and tokenizer_config.json the
// way the Hugging Face tokenizers library writes them (field names, nulls,
// the fields its deserialiser requires); the hf* input types are lenient
// readers and not fit for writing.

type outTokenizer struct {
	Version       string       `json:"version"`
	Truncation    *struct{}    `json:"truncation"`
	Padding       *struct{}    `json:"padding"`
	AddedTokens   []AddedToken `json:"added_tokens"`
	Normalizer    any          `json:"normalizer"`
	PreTokenizer  any          `json:"pre_tokenizer"`
	PostProcessor *struct{}    `json:"post_processor"`
	Decoder       any          `json:"decoder"`
	Model         outModel     `json:"model"`
}

type outModel struct {
	Type                    string      `json:"type"`
	Dropout                 *float64    `json:"dropout"`
	UnkToken                *string     `json:"unk_token"`
	ContinuingSubwordPrefix string      `json:"continuing_subword_prefix"`
	EndOfWordSuffix         string      `json:"end_of_word_suffix"`
	FuseUnk                 bool        `json:"fuse_unk"`
	ByteFallback            bool        `json:"byte_fallback"`
	IgnoreMerges            bool        `json:"ignore_merges"`
	Vocab                   orderedJSON `json:"vocab"`
	Merges                  any         `json:"merges"`
}

type outConfig struct {
	AddBOSToken               bool                          `json:"add_bos_token"`
	AddedTokensDecoder        map[string]outAddedTokenEntry `json:"added_tokens_decoder"`
	BOSToken                  *string                       `json:"bos_token"`
	ChatTemplate              string                        `json:"chat_template,omitempty"`
	CleanUpTokenizationSpaces bool                          `json:"clean_up_tokenization_spaces"`
	EOSToken                  *string                       `json:"eos_token"`
	Errors                    string                        `json:"errors"`
	PadToken                  *string                       `json:"pad_token"`
	SplitSpecialTokens        bool                          `json:"split_special_tokens"`
	TokenizerClass            string                        `json:"tokenizer_class"`
	UnkToken                  *string                       `json:"unk_token"`
}

type outAddedTokenEntry struct {
	Content    string `json:"content"`
	LStrip     bool   `json:"lstrip"`
	Normalized bool   `json:"normalized"`
	RStrip     bool   `json:"rstrip"`
	SingleWord bool   `json:"single_word"`
	Special    bool   `json:"special"`
}

type outNormalizer struct {
	Type        string          `json:"type"`
	Normalizers []outNormalizer `json:"normalizers,omitempty"`
}

func outNormalizerOf(n *hfNormalizer) *outNormalizer {
	if n == nil {
		return nil
	}
	o := &outNormalizer{Type: n.Type}
	for i := range n.Normalizers {
		o.Normalizers = append(o.Normalizers, *outNormalizerOf(&n.Normalizers[i]))
	}
	if n.Type == "Sequence" && o.Normalizers == nil {
		o.Normalizers = []outNormalizer{}
	}
	return o
}

// outPreTokenizer holds the fields of every pre-tokenizer type the loader
// accepts; the pointer fields are left nil for the types that lack them.
type outPreTokenizer struct {
	Type           string            `json:"type"`
	PreTokenizers  []outPreTokenizer `json:"pretokenizers,omitempty"`
	Pattern        *outPattern       `json:"pattern,omitempty"`
	Behavior       string            `json:"behavior,omitempty"`
	Invert         *bool             `json:"invert,omitempty"`
	AddPrefixSpace *bool             `json:"add_prefix_space,omitempty"`
	TrimOffsets    *bool             `json:"trim_offsets,omitempty"`
	UseRegex       *bool             `json:"use_regex,omitempty"`
}

type outPattern struct {
	Regex  *string `json:"Regex,omitempty"`
	String *string `json:"String,omitempty"`
}

func outPreTokenizerOf(p *hfPreTokenizer) *outPreTokenizer {
	if p == nil {
		return nil
	}
	o := &outPreTokenizer{Type: p.Type}
	switch p.Type {
	case "Sequence":
		o.PreTokenizers = []outPreTokenizer{}
		for i := range p.PreTokenizers {
			o.PreTokenizers = append(o.PreTokenizers, *outPreTokenizerOf(&p.PreTokenizers[i]))
		}
	case "Split":
		if p.Pattern != nil {
			o.Pattern = &outPattern{Regex: p.Pattern.Regex, String: p.Pattern.String}
		}
		o.Behavior = p.Behavior
		if o.Behavior == "" {
			o.Behavior = "Isolated"
		}
		o.Invert = &p.Invert
	case "ByteLevel":
		// The loader reads a missing use_regex as true, as Hugging Face
		// does; write it out either way.
		useRegex := p.UseRegex == nil || *p.UseRegex
		o.AddPrefixSpace, o.TrimOffsets, o.UseRegex = &p.AddPrefixSpace, new(false), &useRegex
	}
	return o
}

func outDecoderOf(d *hfDecoder) any {
	if d == nil {
		return nil
	}
	if d.Type == "Sequence" {
		list := make([]any, len(d.Decoders))
		for i := range d.Decoders {
			list[i] = outDecoderOf(&d.Decoders[i])
		}
		return map[string]any{"type": "Sequence", "decoders": list}
	}
	// The loader accepts only the ByteLevel decoder, whose options do not
	// change decoding; write the ones Hugging Face requires.
	return map[string]any{"type": d.Type, "add_prefix_space": false, "trim_offsets": false, "use_regex": false}
}

// mergeList spells the merges as "a b" strings, which every version of the
// Hugging Face library reads, unless a token holds a space (possible only
// outside the byte alphabet), in which case the [a, b] pair form is used.
func mergeList(merges [][2]string) any {
	lines := make([]string, len(merges))
	for i, m := range merges {
		if strings.Contains(m[0], " ") || strings.Contains(m[1], " ") {
			return merges
		}
		lines[i] = m[0] + " " + m[1]
	}
	return lines
}

// orderedJSON is a JSON object whose members are written in the given
// order.
type orderedJSON []orderedMember

type orderedMember struct {
	key   string
	value int
}

// sortedVocab orders a vocabulary by id (then name), as tokenizer.json
// lists it.
func sortedVocab(vocab map[string]int) orderedJSON {
	o := make(orderedJSON, 0, len(vocab))
	for k, v := range vocab {
		o = append(o, orderedMember{k, v})
	}
	sort.Slice(o, func(i, j int) bool {
		if o[i].value != o[j].value {
			return o[i].value < o[j].value
		}
		return o[i].key < o[j].key
	})
	return o
}

// MarshalJSON writes the members in order.
func (o orderedJSON) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	out := make([]byte, 0, 16*len(o)+2)
	out = append(out, '{')
	for i, m := range o {
		if i > 0 {
			out = append(out, ',')
		}
		buf.Reset()
		if err := enc.Encode(m.key); err != nil {
			return nil, err
		}
		out = append(out, bytes.TrimRight(buf.Bytes(), "\n")...)
		out = append(out, ':')
		out = strconv.AppendInt(out, int64(m.value), 10)
	}
	return append(out, '}'), nil
}
