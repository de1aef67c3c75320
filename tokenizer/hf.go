package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// BPE is a byte-level BPE tokenizer loaded from a Hugging Face tokenizer.json,
// as shipped with the GPT-2, Qwen2, Qwen2.5 and Qwen3 families. It produces
// the ids of the Hugging Face tokenizers library with add_special_tokens
// false: no BOS/EOS is added (the Qwen tokenizers add none anyway).
//
// It is safe for concurrent use.
type BPE struct {
	alphabet *byteAlphabet
	merges   merges
	byteIDs  [256]int32
	// vocab maps a token in the byte alphabet to its id; used by TokenID
	// and, with ignoreMerges, to look whole pre-tokens up.
	vocab        map[string]int
	ignoreMerges bool
	nfc          bool
	stages       []preTokenStage
	rawAdded     *addedMatcher // matched in the raw input
	normAdded    *addedMatcher // matched after normalisation
	added        map[string]*AddedToken
	addedList    []AddedToken // in id order
	tokenBytes   [][]byte     // decoded bytes of every id; nil where no token
	special      []bool
	cache        *pieceCache

	eosID, padID int // -1 when unset
	template     string

	// The pipeline sections of tokenizer.json, kept so that Save can
	// write them back.
	normalizer   *hfNormalizer
	preTokenizer *hfPreTokenizer
	decoder      *hfDecoder
}

// preTokenStage is one step of the pre-tokenizer: either a split or the
// byte-level step that may prepend a space.
type preTokenStage struct {
	splitter       splitter // nil for a byte-level step that does not split
	addPrefixSpace bool
}

// Load reads a Hugging Face tokenizer from dir: tokenizer.json, and
// tokenizer_config.json when present (chat template, eos and pad tokens).
func Load(dir string) (*BPE, error) {
	data, err := readBounded(filepath.Join(dir, "tokenizer.json"), maxTokenizerJSON)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: load %s: %w", dir, err)
	}
	config, err := readBounded(filepath.Join(dir, "tokenizer_config.json"), maxConfigJSON)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("tokenizer: load %s: %w", dir, err)
	}
	t, err := NewBPE(data, config)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: load %s: %w", dir, err)
	}
	return t, nil
}

// NewBPE builds a tokenizer from the contents of tokenizer.json and,
// optionally (nil), tokenizer_config.json.
func NewBPE(tokenizerJSON, configJSON []byte) (*BPE, error) {
	if len(tokenizerJSON) > maxTokenizerJSON || len(configJSON) > maxConfigJSON {
		return nil, ErrTooLarge
	}
	var f hfTokenizerFile
	if err := json.Unmarshal(tokenizerJSON, &f); err != nil {
		return nil, fmt.Errorf("%w: tokenizer.json: %v", ErrInvalid, err)
	}
	t := &BPE{alphabet: newByteAlphabet(), cache: newPieceCache(), eosID: -1, padID: -1}
	if err := t.setModel(f.Model); err != nil {
		return nil, err
	}
	if err := t.setNormalizer(f.Normalizer); err != nil {
		return nil, err
	}
	if err := t.setPreTokenizer(f.PreTokenizer); err != nil {
		return nil, err
	}
	if err := checkDecoder(f.Decoder); err != nil {
		return nil, err
	}
	if err := t.setAddedTokens(f.AddedTokens); err != nil {
		return nil, err
	}
	t.normalizer, t.preTokenizer, t.decoder = f.Normalizer, f.PreTokenizer, f.Decoder
	if len(configJSON) > 0 {
		if err := t.setConfig(configJSON); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (t *BPE) setModel(m hfModel) error {
	if m.Type != "BPE" && m.Type != "" {
		return fmt.Errorf("%w: model type %q (want BPE)", ErrUnsupported, m.Type)
	}
	switch {
	case m.Dropout != nil && *m.Dropout > 0:
		return fmt.Errorf("%w: BPE dropout", ErrUnsupported)
	case m.ByteFallback:
		return fmt.Errorf("%w: BPE byte_fallback (not a byte-level BPE)", ErrUnsupported)
	case m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "":
		return fmt.Errorf("%w: BPE continuing_subword_prefix", ErrUnsupported)
	case m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "":
		return fmt.Errorf("%w: BPE end_of_word_suffix", ErrUnsupported)
	case len(m.Vocab) == 0:
		return fmt.Errorf("%w: empty model.vocab", ErrInvalid)
	}
	t.vocab = m.Vocab
	t.ignoreMerges = m.IgnoreMerges
	maxID := -1
	for tok, id := range m.Vocab {
		if id < 0 || id >= 1<<31-1 {
			return fmt.Errorf("%w: token %q has id %d", ErrInvalid, tok, id)
		}
		maxID = max(maxID, id)
	}
	if maxID > maxSparseID(len(m.Vocab)) {
		return fmt.Errorf("%w: %d tokens with ids up to %d", ErrInvalid, len(m.Vocab), maxID)
	}
	t.tokenBytes = make([][]byte, maxID+1)
	for tok, id := range m.Vocab {
		b, ok := t.alphabet.decode(tok)
		if !ok {
			// Not written in the byte alphabet: the token stands for its
			// own UTF-8 text, as the byte-level decoder leaves it.
			b = []byte(tok)
		}
		t.tokenBytes[id] = b
	}
	for b := 0; b < 256; b++ {
		id, ok := m.Vocab[t.alphabet.encoded[b]]
		if !ok {
			return fmt.Errorf("%w: the vocabulary lacks the byte-level token for byte 0x%02x", ErrUnsupported, b)
		}
		t.byteIDs[b] = int32(id)
	}
	pairs, err := m.mergePairs()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	t.merges = make(merges, len(pairs))
	for rank, p := range pairs {
		a, okA := m.Vocab[p[0]]
		b, okB := m.Vocab[p[1]]
		ab, okAB := m.Vocab[p[0]+p[1]]
		if !okA || !okB || !okAB {
			return fmt.Errorf("%w: merge %d (%q %q) uses a token outside the vocabulary", ErrInvalid, rank, p[0], p[1])
		}
		key := pairKey(int32(a), int32(b))
		if _, dup := t.merges[key]; dup {
			continue // the first (lowest) rank wins
		}
		t.merges[key] = uint64(rank)<<32 | uint64(ab)
	}
	return nil
}

// maxSparseID bounds the ids of a vocabulary of n tokens. Real vocabularies
// are (nearly) dense; the bound keeps a hostile file with one huge id from
// making the id tables huge.
func maxSparseID(n int) int { return 2*n + 1024 }

func (t *BPE) setNormalizer(n *hfNormalizer) error {
	if n == nil {
		return nil
	}
	switch n.Type {
	case "NFC":
		t.nfc = true
	case "Sequence":
		for i := range n.Normalizers {
			if err := t.setNormalizer(&n.Normalizers[i]); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("%w: normalizer %q (only NFC)", ErrUnsupported, n.Type)
	}
	return nil
}

func (t *BPE) setPreTokenizer(p *hfPreTokenizer) error {
	if p == nil {
		return fmt.Errorf("%w: no pre-tokenizer (a byte-level one is needed)", ErrUnsupported)
	}
	list := []hfPreTokenizer{*p}
	if p.Type == "Sequence" {
		list = p.PreTokenizers
	}
	byteLevel := false
	for _, s := range list {
		switch s.Type {
		case "Split":
			if byteLevel {
				return fmt.Errorf("%w: a Split after the ByteLevel pre-tokenizer", ErrUnsupported)
			}
			sp, err := newSplitStage(s)
			if err != nil {
				return err
			}
			t.stages = append(t.stages, preTokenStage{splitter: sp})
		case "ByteLevel":
			if byteLevel {
				return fmt.Errorf("%w: two ByteLevel pre-tokenizers", ErrUnsupported)
			}
			byteLevel = true
			stage := preTokenStage{addPrefixSpace: s.AddPrefixSpace}
			if s.UseRegex == nil || *s.UseRegex {
				sp, err := newRegexSplitter(GPT2Pattern)
				if err != nil {
					return err
				}
				stage.splitter = sp
			}
			t.stages = append(t.stages, stage)
		default:
			return fmt.Errorf("%w: pre-tokenizer %q", ErrUnsupported, s.Type)
		}
	}
	if !byteLevel {
		return fmt.Errorf("%w: no ByteLevel pre-tokenizer", ErrUnsupported)
	}
	return nil
}

func newSplitStage(s hfPreTokenizer) (splitter, error) {
	if s.Invert || (s.Behavior != "Isolated" && s.Behavior != "") {
		return nil, fmt.Errorf("%w: Split with behavior %q invert %v (only Isolated)", ErrUnsupported, s.Behavior, s.Invert)
	}
	switch {
	case s.Pattern == nil:
		return nil, fmt.Errorf("%w: Split without a pattern", ErrInvalid)
	case s.Pattern.Regex != nil:
		switch *s.Pattern.Regex {
		case QwenPattern:
			return qwenSplitter{maxDigits: 1}, nil
		case CL100KPattern:
			return qwenSplitter{maxDigits: 3}, nil
		}
		return newRegexSplitter(*s.Pattern.Regex)
	case s.Pattern.String != nil:
		return newRegexSplitter(regexpQuote(*s.Pattern.String))
	}
	return nil, fmt.Errorf("%w: Split pattern without Regex or String", ErrInvalid)
}

// regexpQuote escapes a literal for regexp2 (.NET syntax); regexp.QuoteMeta
// escapes a superset of what .NET needs, all of which .NET accepts.
func regexpQuote(s string) string { return regexp.QuoteMeta(s) }

func checkDecoder(d *hfDecoder) error {
	if d == nil {
		return fmt.Errorf("%w: no decoder (a ByteLevel one is needed)", ErrUnsupported)
	}
	if d.Type == "ByteLevel" {
		return nil
	}
	if d.Type == "Sequence" && len(d.Decoders) == 1 {
		return checkDecoder(&d.Decoders[0])
	}
	return fmt.Errorf("%w: decoder %q (only ByteLevel)", ErrUnsupported, d.Type)
}

func (t *BPE) setAddedTokens(tokens []AddedToken) error {
	var raw, normalized []AddedToken
	t.added = make(map[string]*AddedToken, len(tokens))
	maxID := len(t.tokenBytes) - 1
	for _, a := range tokens {
		if a.Content == "" || a.ID < 0 || a.ID > maxSparseID(len(t.vocab)+len(tokens)) {
			return fmt.Errorf("%w: added token %q with id %d", ErrInvalid, a.Content, a.ID)
		}
		maxID = max(maxID, a.ID)
		if a.Normalized {
			normalized = append(normalized, a)
		} else {
			raw = append(raw, a)
		}
	}
	for len(t.tokenBytes) <= maxID {
		t.tokenBytes = append(t.tokenBytes, nil)
	}
	t.special = make([]bool, len(t.tokenBytes))
	for _, a := range tokens {
		t.tokenBytes[a.ID] = []byte(a.Content)
		t.special[a.ID] = a.Special
		t.added[a.Content] = &a
	}
	t.addedList = append([]AddedToken(nil), tokens...)
	sort.Slice(t.addedList, func(i, j int) bool { return t.addedList[i].ID < t.addedList[j].ID })
	t.rawAdded = newAddedMatcher(raw)
	t.normAdded = newAddedMatcher(normalized)
	return nil
}

func (t *BPE) setConfig(data []byte) error {
	var c hfConfigFile
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("%w: tokenizer_config.json: %v", ErrInvalid, err)
	}
	tpl, err := c.chatTemplate()
	if err != nil {
		return fmt.Errorf("%w: tokenizer_config.json: %v", ErrInvalid, err)
	}
	t.template = tpl
	for _, e := range []struct {
		raw json.RawMessage
		id  *int
		key string
	}{{c.EOSToken, &t.eosID, "eos_token"}, {c.PadToken, &t.padID, "pad_token"}} {
		name, err := tokenName(e.raw)
		if err != nil {
			return fmt.Errorf("%w: tokenizer_config.json %s: %v", ErrInvalid, e.key, err)
		}
		if name == "" {
			continue
		}
		id, ok := t.TokenID(name)
		if !ok {
			return fmt.Errorf("%w: tokenizer_config.json %s %q is not a token", ErrInvalid, e.key, name)
		}
		*e.id = id
	}
	return nil
}

// Encode returns the ids of text. Added tokens that appear literally in text
// (such as "<|im_end|>") are encoded as their single ids. Text that is not
// valid UTF-8 is encoded byte for byte, so no input is ever lost.
func (t *BPE) Encode(text string) []int {
	ids := make([]int, 0, len(text)/3+1)
	var pieces []string
	var sym []int32
	t.rawAdded.split(text, func(seg string, tok *AddedToken) {
		if tok != nil {
			ids = append(ids, tok.ID)
			return
		}
		if t.nfc {
			seg = norm.NFC.String(seg)
		}
		t.normAdded.split(seg, func(seg string, tok *AddedToken) {
			if tok != nil {
				ids = append(ids, tok.ID)
				return
			}
			pieces = t.preTokenize(seg, pieces[:0])
			for _, p := range pieces {
				ids, sym = t.encodePiece(p, ids, sym)
			}
		})
	})
	return ids
}

// preTokenize runs the pre-tokenizer stages over one stretch of text.
func (t *BPE) preTokenize(s string, dst []string) []string {
	dst = append(dst, s)
	for _, st := range t.stages {
		if st.addPrefixSpace {
			for i, p := range dst {
				if !strings.HasPrefix(p, " ") {
					dst[i] = " " + p
				}
			}
		}
		if st.splitter == nil {
			continue
		}
		if len(dst) == 1 {
			dst = st.splitter.split(dst[0], dst[:0])
			continue
		}
		var out []string
		for _, p := range dst {
			out = st.splitter.split(p, out)
		}
		dst = out
	}
	return dst
}

// encodePiece appends the ids of one pre-token; sym is scratch space.
func (t *BPE) encodePiece(p string, ids []int, sym []int32) ([]int, []int32) {
	if cached, ok := t.cache.get(p); ok {
		for _, id := range cached {
			ids = append(ids, int(id))
		}
		return ids, sym
	}
	if t.ignoreMerges {
		if id, ok := t.vocab[t.alphabet.encode(p)]; ok {
			return append(ids, id), sym
		}
	}
	sym = sym[:0]
	for i := 0; i < len(p); i++ {
		sym = append(sym, t.byteIDs[p[i]])
	}
	merged := t.merges.merge(sym)
	t.cache.put(p, merged)
	for _, id := range merged {
		ids = append(ids, int(id))
	}
	return ids, sym
}

// Decode returns the text of ids, byte for byte: the bytes of the tokens are
// concatenated without replacing invalid UTF-8, so decoding a prefix of a
// sequence may end inside a character. Added tokens decode to their content.
func (t *BPE) Decode(ids []int) (string, error) {
	n := 0
	for _, id := range ids {
		if id < 0 || id >= len(t.tokenBytes) || t.tokenBytes[id] == nil {
			return "", fmt.Errorf("%w: %d", ErrUnknownID, id)
		}
		n += len(t.tokenBytes[id])
	}
	buf := make([]byte, 0, n)
	for _, id := range ids {
		buf = append(buf, t.tokenBytes[id]...)
	}
	return string(buf), nil
}

// VocabSize is one more than the largest id, added tokens included.
func (t *BPE) VocabSize() int { return len(t.tokenBytes) }

// TokenID returns the id of an added token given by its content, or of a
// vocabulary token written in the byte alphabet ("Ġhello" for " hello"), as
// Hugging Face's convert_tokens_to_ids does.
func (t *BPE) TokenID(token string) (int, bool) {
	if a, ok := t.added[token]; ok {
		return a.ID, true
	}
	id, ok := t.vocab[token]
	return id, ok
}

// IsSpecial reports whether id is a special added token (such as
// "<|im_end|>"), the ones Hugging Face drops with skip_special_tokens.
func (t *BPE) IsSpecial(id int) bool {
	return id >= 0 && id < len(t.special) && t.special[id]
}

// AddedTokens returns the added tokens, in id order.
func (t *BPE) AddedTokens() []AddedToken {
	return append([]AddedToken(nil), t.addedList...)
}

// EOSID returns the id of tokenizer_config.json's eos_token.
func (t *BPE) EOSID() (int, bool) { return t.eosID, t.eosID >= 0 }

// PadID returns the id of tokenizer_config.json's pad_token.
func (t *BPE) PadID() (int, bool) { return t.padID, t.padID >= 0 }

// ChatTemplate returns the native renderer of tokenizer_config.json's chat
// template. It fails with ErrUnsupported when there is no template or it is
// not one of the Qwen2.5 or Qwen3 ChatML templates.
func (t *BPE) ChatTemplate() (ChatTemplate, error) {
	return ChatMLFromJinja(t.template)
}

// ChatTemplateSource returns the Jinja source of the chat template from
// tokenizer_config.json, or "".
func (t *BPE) ChatTemplateSource() string { return t.template }

// Interface checks.
var (
	_ Tokenizer        = (*BPE)(nil)
	_ SpecialTokens    = (*BPE)(nil)
	_ TemplateProvider = (*BPE)(nil)
)
