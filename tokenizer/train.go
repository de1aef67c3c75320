package tokenizer

import (
	"container/heap"
	"fmt"
	"slices"

	"golang.org/x/text/unicode/norm"
)

// Defaults and bounds of TrainOptions.
const (
	// DefaultTrainVocabSize is the vocabulary size TrainBPE aims at when
	// TrainOptions.VocabSize is zero.
	DefaultTrainVocabSize = 1024
	// DefaultMinFrequency is the fewest occurrences of a pair that TrainBPE
	// merges when TrainOptions.MinFrequency is zero.
	DefaultMinFrequency = 2
	// MaxTrainVocabSize bounds TrainOptions.VocabSize.
	MaxTrainVocabSize = 1 << 20
)

// TrainOptions configure TrainBPE. The zero value learns up to 1024 ids
// (bytes, merges and the ChatML tokens together) from pairs seen at least
// twice, with the Qwen3 chat template, <|im_end|> as end of sequence and
// <|endoftext|> as padding.
type TrainOptions struct {
	// VocabSize is the most ids the tokenizer may have: the 256 bytes, the
	// learned tokens and the special tokens. Training stops earlier when no
	// pair is frequent enough, so the result may be smaller. Zero means
	// DefaultTrainVocabSize.
	VocabSize int
	// MinFrequency is the fewest times a pair of adjacent tokens must occur
	// in the corpus to be merged. Zero means DefaultMinFrequency.
	MinFrequency int
	// SpecialTokens are added after the learned vocabulary, in order, and
	// matched literally in the input as a loaded tokenizer's added tokens
	// are; their ID fields are ignored. They never take part in merges: the
	// corpus is split at them before training. Nil means
	// ChatMLSpecialTokens(); use an empty, non-nil slice for none.
	SpecialTokens []AddedToken
	// EOSToken names the end-of-sequence token, one of SpecialTokens. Empty
	// means IMEnd when it is among SpecialTokens, else none.
	EOSToken string
	// PadToken names the padding token, one of SpecialTokens. Empty means
	// EndOfText when it is among SpecialTokens, else none.
	PadToken string
	// Pattern is the pre-tokenizer's split regular expression (the
	// "Split" pre-tokenizer of tokenizer.json, saved with the tokenizer):
	// no token spans two of its pieces. Empty means QwenPattern; see
	// WordPattern for one that keeps words apart from what precedes them.
	Pattern string
	// ChatTemplate is the Jinja source of the chat template, saved in
	// tokenizer_config.json; the tokenizer's ChatTemplate method renders it
	// natively when it is a Qwen2.5 or Qwen3 template (see
	// ChatMLFromJinja). Empty means Qwen3ChatTemplateJinja.
	ChatTemplate string
}

// ChatMLSpecialTokens returns the added tokens of ByteLevel, in its order:
// "<|endoftext|>", "<|im_start|>" and "<|im_end|>" marked special, then the
// reasoning and tool-call tags, which (as in Qwen3) are not. IDs are left
// zero.
func ChatMLSpecialTokens() []AddedToken {
	var list []AddedToken
	for _, c := range []string{EndOfText, IMStart, IMEnd} {
		list = append(list, AddedToken{Content: c, Special: true})
	}
	for _, c := range []string{ThinkStart, ThinkEnd, ToolCallStart, ToolCallEnd, ToolRespStart, ToolRespEnd} {
		list = append(list, AddedToken{Content: c})
	}
	return list
}

// TrainBPE learns a byte-level BPE tokenizer from corpus, the way the Hugging
// Face BpeTrainer does, for the same pipeline as the Qwen tokenizers: each
// document is split at the special tokens, NFC-normalised and cut into
// pre-tokens by QwenPattern; the pre-tokens are spelled in the 256 byte
// symbols, and the most frequent pair of adjacent symbols (counted over all
// pre-tokens) is merged into a new token, repeatedly, until VocabSize is
// reached or no pair occurs MinFrequency times. Ties go to the pair whose
// tokens, written in the GPT-2 byte alphabet, come first (left token, then
// right token), so training is deterministic.
//
// Ids 0..255 are the bytes (as in ByteLevel), the learned tokens follow in
// the order they were learned, then the special tokens. The result encodes
// any text and decodes it back to its NFC form, since every byte is a token.
// It fails with ErrInvalid on options that leave no room for the bytes and
// special tokens, or name an end-of-sequence or padding token that is not
// among the special tokens.
func TrainBPE(corpus []string, opts TrainOptions) (*BPE, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	alphabet := newByteAlphabet()
	vocab := make(map[string]int, o.VocabSize)
	for b := range 256 {
		vocab[alphabet.encoded[b]] = b
	}
	def := bpeDefinition{
		vocab:      vocab,
		normalizer: &hfNormalizer{Type: "NFC"},
		preTokenizer: &hfPreTokenizer{Type: "Sequence", PreTokenizers: []hfPreTokenizer{
			{Type: "Split", Pattern: &hfPattern{Regex: new(o.Pattern)}, Behavior: "Isolated"},
			{Type: "ByteLevel", UseRegex: new(false)},
		}},
		decoder:  &hfDecoder{Type: "ByteLevel"},
		added:    numberAdded(o.SpecialTokens, 256),
		template: o.ChatTemplate,
		eos:      o.EOSToken,
		pad:      o.PadToken,
	}
	// The untrained tokenizer pre-tokenises the corpus exactly as the
	// trained one will pre-tokenise what it encodes.
	base, err := def.build()
	if err != nil {
		return nil, err
	}
	tr := newBPETrainer(alphabet, o.MinFrequency)
	for _, doc := range corpus {
		base.forEachPiece(doc, tr.addWord)
	}
	tokens, merges := tr.train(o.VocabSize - len(o.SpecialTokens))
	for _, tok := range tokens[256:] {
		vocab[tok] = len(vocab)
	}
	def.merges = merges
	def.added = numberAdded(o.SpecialTokens, len(vocab))
	return def.build()
}

// withDefaults checks the options and fills in the defaults.
func (o TrainOptions) withDefaults() (TrainOptions, error) {
	if o.SpecialTokens == nil {
		o.SpecialTokens = ChatMLSpecialTokens()
	}
	seen := make(map[string]bool, len(o.SpecialTokens))
	for _, a := range o.SpecialTokens {
		switch {
		case a.Content == "":
			return o, fmt.Errorf("%w: empty special token", ErrInvalid)
		case seen[a.Content]:
			return o, fmt.Errorf("%w: special token %q twice", ErrInvalid, a.Content)
		}
		seen[a.Content] = true
	}
	if o.VocabSize == 0 {
		o.VocabSize = DefaultTrainVocabSize
	}
	if minSize := 256 + len(o.SpecialTokens); o.VocabSize < minSize || o.VocabSize > MaxTrainVocabSize {
		return o, fmt.Errorf("%w: VocabSize %d outside [%d, %d] (256 bytes and %d special tokens)",
			ErrInvalid, o.VocabSize, minSize, MaxTrainVocabSize, len(o.SpecialTokens))
	}
	switch {
	case o.MinFrequency < 0:
		return o, fmt.Errorf("%w: MinFrequency %d is negative", ErrInvalid, o.MinFrequency)
	case o.MinFrequency == 0:
		o.MinFrequency = DefaultMinFrequency
	}
	for _, e := range []struct {
		name *string
		def  string
		what string
	}{{&o.EOSToken, IMEnd, "EOSToken"}, {&o.PadToken, EndOfText, "PadToken"}} {
		switch {
		case *e.name == "" && seen[e.def]:
			*e.name = e.def
		case *e.name != "" && !seen[*e.name]:
			return o, fmt.Errorf("%w: %s %q is not one of the special tokens", ErrInvalid, e.what, *e.name)
		}
	}
	if o.ChatTemplate == "" {
		o.ChatTemplate = Qwen3ChatTemplateJinja
	}
	if o.Pattern == "" {
		o.Pattern = QwenPattern
	}
	if _, err := newRegexSplitter(o.Pattern); err != nil {
		return o, err
	}
	return o, nil
}

// numberAdded copies tokens with ids from first on.
func numberAdded(tokens []AddedToken, first int) []AddedToken {
	out := make([]AddedToken, len(tokens))
	for i, a := range tokens {
		a.ID = first + i
		out[i] = a
	}
	return out
}

// forEachPiece calls fn with each pre-token that Encode would merge, in
// order: the text between added tokens, normalised and pre-tokenised. It
// mirrors Encode, which inlines the same steps for speed.
func (t *BPE) forEachPiece(text string, fn func(piece string)) {
	var pieces []string
	t.rawAdded.split(text, func(seg string, tok *AddedToken) {
		if tok != nil {
			return
		}
		if t.nfc {
			seg = norm.NFC.String(seg)
		}
		t.normAdded.split(seg, func(seg string, tok *AddedToken) {
			if tok != nil {
				return
			}
			pieces = t.preTokenize(seg, pieces[:0])
			for _, p := range pieces {
				fn(p)
			}
		})
	})
}

// bpeTrainer counts pre-tokens and learns merges. Pair counts are kept for
// the whole corpus and updated, after each merge, only for the words that
// held the merged pair; the best pair is found with a max-heap whose entries
// may be stale (a count that has since dropped) and are re-queued with their
// current count when popped.
type bpeTrainer struct {
	alphabet *byteAlphabet
	minFreq  int64
	index    map[string]int // pre-token -> index into words
	words    []trainWord
	tokens   []string         // token text (in the byte alphabet) by id
	ids      map[string]int32 // inverse of tokens
	pairs    map[uint64]*pairStat
}

// trainWord is a distinct pre-token: its current symbols and how often it
// occurs in the corpus.
type trainWord struct {
	sym   []int32
	count int64
	// seen is the last merge step that visited the word, so that a word
	// listed twice under a pair is merged once.
	seen int
}

// pairStat is the corpus count of one pair of adjacent symbols and the words
// that hold it (a superset: words that lost the pair stay listed).
type pairStat struct {
	count int64
	words []int32
}

func newBPETrainer(alphabet *byteAlphabet, minFreq int) *bpeTrainer {
	tr := &bpeTrainer{
		alphabet: alphabet,
		minFreq:  int64(minFreq),
		index:    make(map[string]int),
		ids:      make(map[string]int32, 256),
		pairs:    make(map[uint64]*pairStat),
	}
	for b := range 256 {
		tr.tokens = append(tr.tokens, alphabet.encoded[b])
		tr.ids[alphabet.encoded[b]] = int32(b)
	}
	return tr
}

// addWord counts one occurrence of a pre-token.
func (tr *bpeTrainer) addWord(piece string) {
	if i, ok := tr.index[piece]; ok {
		tr.words[i].count++
		return
	}
	sym := make([]int32, len(piece))
	for i := range len(piece) {
		sym[i] = int32(piece[i])
	}
	tr.index[piece] = len(tr.words)
	tr.words = append(tr.words, trainWord{sym: sym, count: 1, seen: -1})
}

// train merges until there are maxTokens tokens or no pair is frequent
// enough. It returns the tokens by id and the merges in rank order.
func (tr *bpeTrainer) train(maxTokens int) (tokens []string, merges [][2]string) {
	tr.index = nil // no longer needed
	for wi, w := range tr.words {
		for i := 0; i+1 < len(w.sym); i++ {
			tr.addPair(pairKey(w.sym[i], w.sym[i+1]), w.count, int32(wi))
		}
	}
	q := &pairQueue{tokens: &tr.tokens}
	for key, st := range tr.pairs {
		if st.count >= tr.minFreq {
			q.items = append(q.items, queuedPair{key, st.count})
		}
	}
	heap.Init(q)
	for step := 0; len(tr.tokens) < maxTokens && q.Len() > 0; {
		top := heap.Pop(q).(queuedPair)
		st := tr.pairs[top.key]
		if st == nil || st.count != top.count {
			// Stale: re-queue with the current count, if still frequent.
			if st != nil && st.count >= tr.minFreq {
				heap.Push(q, queuedPair{top.key, st.count})
			}
			continue
		}
		a, b := int32(top.key>>32), int32(uint32(top.key))
		text := tr.tokens[a] + tr.tokens[b]
		// Two different pairs may spell the same token ("a"+"bc" and
		// "ab"+"c"); like the Hugging Face trainer, the token keeps its
		// first id and only the merge is new.
		id, exists := tr.ids[text]
		if !exists {
			id = int32(len(tr.tokens))
			tr.tokens = append(tr.tokens, text)
			tr.ids[text] = id
		}
		merges = append(merges, [2]string{tr.tokens[a], tr.tokens[b]})
		for _, key := range tr.merge(top.key, id, step) {
			if st := tr.pairs[key]; st != nil && st.count >= tr.minFreq {
				heap.Push(q, queuedPair{key, st.count})
			}
		}
		step++
	}
	return tr.tokens, merges
}

// merge replaces every occurrence of the pair key by id in the words that
// hold it, updates the pair counts and returns the pairs that gained
// occurrences (those next to the new symbol).
func (tr *bpeTrainer) merge(key uint64, id int32, step int) (grown []uint64) {
	st := tr.pairs[key]
	delete(tr.pairs, key)
	a, b := int32(key>>32), int32(uint32(key))
	seenGrown := make(map[uint64]bool)
	var emptied []uint64
	for _, wi := range st.words {
		w := &tr.words[wi]
		if w.seen == step || !hasPair(w.sym, a, b) {
			continue
		}
		w.seen = step
		// Take the word's pairs out, merge, and put them back: only the
		// pairs at the merged positions change, and the others cancel.
		for i := 0; i+1 < len(w.sym); i++ {
			if k := pairKey(w.sym[i], w.sym[i+1]); k != key {
				st := tr.pairs[k]
				st.count -= w.count
				if st.count == 0 {
					emptied = append(emptied, k)
				}
			}
		}
		out := w.sym[:0]
		for i := 0; i < len(w.sym); i++ {
			if i+1 < len(w.sym) && w.sym[i] == a && w.sym[i+1] == b {
				out = append(out, id)
				i++
				continue
			}
			out = append(out, w.sym[i])
		}
		w.sym = out
		for i := 0; i+1 < len(w.sym); i++ {
			k := pairKey(w.sym[i], w.sym[i+1])
			if w.sym[i] != id && w.sym[i+1] != id {
				tr.pairs[k].count += w.count // listed already
				continue
			}
			tr.addPair(k, w.count, wi)
			if !seenGrown[k] {
				seenGrown[k] = true
				grown = append(grown, k)
			}
		}
	}
	// Pairs whose count fell to zero are dropped so that the map does not
	// keep dead entries; stale queue entries for them are skipped.
	for _, k := range emptied {
		if st := tr.pairs[k]; st != nil && st.count == 0 {
			delete(tr.pairs, k)
		}
	}
	slices.Sort(grown) // deterministic push order
	return grown
}

// addPair adds n occurrences of a pair in word wi.
func (tr *bpeTrainer) addPair(key uint64, n int64, wi int32) {
	st := tr.pairs[key]
	if st == nil {
		st = &pairStat{}
		tr.pairs[key] = st
	}
	st.count += n
	if l := len(st.words); l == 0 || st.words[l-1] != wi {
		st.words = append(st.words, wi)
	}
}

func hasPair(sym []int32, a, b int32) bool {
	for i := 0; i+1 < len(sym); i++ {
		if sym[i] == a && sym[i+1] == b {
			return true
		}
	}
	return false
}

// queuedPair is a heap entry: a pair and its count when it was queued.
type queuedPair struct {
	key   uint64
	count int64
}

// pairQueue is a max-heap of pairs by count; among equal counts the pair
// whose left token, then right token, sorts first comes first.
type pairQueue struct {
	items  []queuedPair
	tokens *[]string
}

func (q *pairQueue) Len() int { return len(q.items) }

func (q *pairQueue) Less(i, j int) bool {
	x, y := q.items[i], q.items[j]
	if x.count != y.count {
		return x.count > y.count
	}
	tokens := *q.tokens
	xa, xb := tokens[int32(x.key>>32)], tokens[int32(uint32(x.key))]
	ya, yb := tokens[int32(y.key>>32)], tokens[int32(uint32(y.key))]
	if xa != ya {
		return xa < ya
	}
	return xb < yb
}

func (q *pairQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }

func (q *pairQueue) Push(x any) { q.items = append(q.items, x.(queuedPair)) }

func (q *pairQueue) Pop() any {
	last := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return last
}
