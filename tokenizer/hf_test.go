package tokenizer

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// tinyTokenizer describes a small byte-level BPE in tokenizer.json form:
// every byte is a token (id = byte value), plus a few merges and added
// tokens. Tests change fields before marshalling.
type tinyTokenizer struct {
	AddedTokens  []AddedToken   `json:"added_tokens"`
	Normalizer   any            `json:"normalizer"`
	PreTokenizer any            `json:"pre_tokenizer"`
	Decoder      any            `json:"decoder"`
	Model        map[string]any `json:"model"`
}

func newTinyTokenizer() *tinyTokenizer {
	a := newByteAlphabet()
	vocab := map[string]int{}
	for b := 0; b < 256; b++ {
		vocab[a.encoded[b]] = b
	}
	merges := [][2]string{{"Ġ", "t"}, {"l", "l"}, {"e", "ll"}, {"h", "ell"}, {"h", "e"}, {"Ġt", "he"}}
	for i, m := range merges {
		vocab[m[0]+m[1]] = 256 + i
	}
	vocab["hello"] = 300 // reachable only with ignore_merges ("hell" is no token)
	return &tinyTokenizer{
		AddedTokens: []AddedToken{
			{ID: 400, Content: "<|end|>", Special: true},
			{ID: 401, Content: "[L]", LStrip: true},
			{ID: 402, Content: "[R]", RStrip: true},
			{ID: 403, Content: "word", SingleWord: true},
			{ID: 404, Content: "<|end|>x"},
			{ID: 405, Content: "é!", Normalized: true},
		},
		Normalizer: map[string]any{"type": "NFC"},
		PreTokenizer: map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": QwenPattern}, "behavior": "Isolated", "invert": false},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "use_regex": false},
		}},
		Decoder: map[string]any{"type": "ByteLevel"},
		Model:   map[string]any{"type": "BPE", "vocab": vocab, "merges": merges},
	}
}

func (tt *tinyTokenizer) build(t *testing.T, config string) (*BPE, error) {
	t.Helper()
	data, err := json.Marshal(tt)
	if err != nil {
		t.Fatal(err)
	}
	var cfg []byte
	if config != "" {
		cfg = []byte(config)
	}
	return NewBPE(data, cfg)
}

func (tt *tinyTokenizer) mustBuild(t *testing.T) *BPE {
	t.Helper()
	tok, err := tt.build(t, "")
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestBPEEncodeTiny(t *testing.T) {
	tok := newTinyTokenizer().mustBuild(t)
	ids := func(s string) []int {
		var out []int
		for i := 0; i < len(s); i++ {
			out = append(out, int(s[i]))
		}
		return out
	}
	tests := []struct {
		in   string
		want []int
	}{
		{"the", []int{'t', 260}},            // "he" merges; "t" stays alone (no Ġ)
		{" the", []int{261}},                // Ġt + he → Ġthe
		{"hell", []int{259}},                // ll, then ell, then hell: rank order, not left to right
		{"hello", []int{259, 'o'}},          // merges never reach "hello"
		{"a<|end|>b", []int{'a', 400, 'b'}}, // special token
		{"<|end|>x", []int{404}},            // longest added token wins
		{"<|end|>y", []int{400, 'y'}},       // ... when it matches
		{"a  [L]b", []int{'a', 401, 'b'}},   // lstrip swallows the spaces
		{"a[R]  b", []int{'a', 402, 'b'}},   // rstrip too
		{"a word b", []int{'a', ' ', 403, ' ', 'b'}},
		{"swordfish", ids("swordfish")}, // single_word refuses a match inside a word
		{"e\u0301!", []int{405}},        // normalised added token matches after NFC
		{"\u00e9!", []int{405}},         // already NFC
		{"", nil},
	}
	for _, tt := range tests {
		got := tok.Encode(tt.in)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Encode(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestBPEVariants(t *testing.T) {
	t.Run("merges as strings", func(t *testing.T) {
		tt := newTinyTokenizer()
		var lines []string
		for _, m := range tt.Model["merges"].([][2]string) {
			lines = append(lines, m[0]+" "+m[1])
		}
		tt.Model["merges"] = lines
		if got := tt.mustBuild(t).Encode(" the hell"); !slices.Equal(got, []int{261, ' ', 259}) {
			t.Errorf("got %v", got)
		}
	})
	t.Run("ignore_merges", func(t *testing.T) {
		tt := newTinyTokenizer()
		tt.Model["ignore_merges"] = true
		if got := tt.mustBuild(t).Encode("hello hell"); !slices.Equal(got, []int{300, ' ', 259}) {
			t.Errorf("got %v", got)
		}
	})
	t.Run("GPT-2 ByteLevel with prefix space", func(t *testing.T) {
		tt := newTinyTokenizer()
		tt.Normalizer = nil
		tt.PreTokenizer = map[string]any{"type": "ByteLevel", "add_prefix_space": true}
		// " the" then " 's"... GPT-2 splits "'s" off; the prefix space is added once.
		if got := tt.mustBuild(t).Encode("the  the's"); !slices.Equal(got, []int{261, ' ', 261, '\'', 's'}) {
			t.Errorf("got %v", got)
		}
	})
	t.Run("cl100k pattern", func(t *testing.T) {
		tt := newTinyTokenizer()
		tt.PreTokenizer.(map[string]any)["pretokenizers"].([]any)[0].(map[string]any)["pattern"] = map[string]any{"Regex": CL100KPattern}
		tok := tt.mustBuild(t)
		if _, ok := tok.stages[0].splitter.(qwenSplitter); !ok {
			t.Errorf("cl100k pattern served by %T", tok.stages[0].splitter)
		}
	})
	t.Run("other pattern uses regexp2", func(t *testing.T) {
		tt := newTinyTokenizer()
		tt.PreTokenizer.(map[string]any)["pretokenizers"].([]any)[0].(map[string]any)["pattern"] = map[string]any{"Regex": `\d+|\D+`}
		tok := tt.mustBuild(t)
		if got := tok.Encode("ab12"); !slices.Equal(got, []int{'a', 'b', '1', '2'}) {
			t.Errorf("got %v", got)
		}
	})
	t.Run("literal string pattern", func(t *testing.T) {
		tt := newTinyTokenizer()
		tt.PreTokenizer.(map[string]any)["pretokenizers"].([]any)[0].(map[string]any)["pattern"] = map[string]any{"String": "."}
		tok := tt.mustBuild(t)
		pieces := tok.preTokenize("a.b", nil)
		if !slices.Equal(pieces, []string{"a", ".", "b"}) {
			t.Errorf("pieces %q", pieces)
		}
	})
}

func TestBPEErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(*tinyTokenizer)
		config string
		want   error
	}{
		{"WordPiece model", func(tt *tinyTokenizer) { tt.Model["type"] = "WordPiece" }, "", ErrUnsupported},
		{"byte fallback", func(tt *tinyTokenizer) { tt.Model["byte_fallback"] = true }, "", ErrUnsupported},
		{"dropout", func(tt *tinyTokenizer) { tt.Model["dropout"] = 0.1 }, "", ErrUnsupported},
		{"suffix", func(tt *tinyTokenizer) { tt.Model["end_of_word_suffix"] = "</w>" }, "", ErrUnsupported},
		{"lowercase normalizer", func(tt *tinyTokenizer) { tt.Normalizer = map[string]any{"type": "Lowercase"} }, "", ErrUnsupported},
		{"no pre-tokenizer", func(tt *tinyTokenizer) { tt.PreTokenizer = nil }, "", ErrUnsupported},
		{"Metaspace", func(tt *tinyTokenizer) { tt.PreTokenizer = map[string]any{"type": "Metaspace"} }, "", ErrUnsupported},
		{"no decoder", func(tt *tinyTokenizer) { tt.Decoder = nil }, "", ErrUnsupported},
		{"bad regex", func(tt *tinyTokenizer) {
			tt.PreTokenizer.(map[string]any)["pretokenizers"].([]any)[0].(map[string]any)["pattern"] = map[string]any{"Regex": `(`}
		}, "", ErrUnsupported},
		{"missing byte", func(tt *tinyTokenizer) { delete(tt.Model["vocab"].(map[string]int), "Ā") }, "", ErrUnsupported},
		{"merge outside vocab", func(tt *tinyTokenizer) { tt.Model["merges"] = [][2]string{{"x", "yz"}} }, "", ErrInvalid},
		{"bad merges", func(tt *tinyTokenizer) { tt.Model["merges"] = []string{"nospace"} }, "", ErrInvalid},
		{"empty vocab", func(tt *tinyTokenizer) { tt.Model["vocab"] = map[string]int{} }, "", ErrInvalid},
		{"negative id", func(tt *tinyTokenizer) { tt.Model["vocab"].(map[string]int)["zz"] = -1 }, "", ErrInvalid},
		{"empty added token", func(tt *tinyTokenizer) { tt.AddedTokens = append(tt.AddedTokens, AddedToken{ID: 500}) }, "", ErrInvalid},
		{"unknown eos", func(*tinyTokenizer) {}, `{"eos_token": "<nope>"}`, ErrInvalid},
		{"bad config", func(*tinyTokenizer) {}, `{"eos_token": 3}`, ErrInvalid},
		{"bad config json", func(*tinyTokenizer) {}, `{`, ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt := newTinyTokenizer()
			tc.change(tt)
			_, err := tt.build(t, tc.config)
			if !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := NewBPE([]byte("{"), nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("NewBPE(bad JSON) error %v", err)
	}
}

func TestBPEDecodeAndLookups(t *testing.T) {
	tok, err := newTinyTokenizer().build(t, `{"eos_token": {"content": "<|end|>", "__type": "AddedToken"}, "pad_token": "[L]",
		"chat_template": [{"name": "tool_use", "template": "x"}, {"name": "default", "template": "y"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	text := "a<|end|> the\xff hell[R]"
	got, err := tok.Decode(tok.Encode(text))
	if err != nil || got != text {
		t.Errorf("round trip %q: %q, %v", text, got, err)
	}
	if _, err := tok.Decode([]int{1, 399}); !errors.Is(err, ErrUnknownID) {
		t.Errorf("Decode(399) error %v, want ErrUnknownID", err)
	}
	if _, err := tok.Decode([]int{-1}); !errors.Is(err, ErrUnknownID) {
		t.Errorf("Decode(-1) error %v, want ErrUnknownID", err)
	}
	if id, ok := tok.EOSID(); !ok || id != 400 {
		t.Errorf("EOSID = %d, %v", id, ok)
	}
	if id, ok := tok.PadID(); !ok || id != 401 {
		t.Errorf("PadID = %d, %v", id, ok)
	}
	if tok.ChatTemplateSource() != "y" {
		t.Errorf("template %q, want the default one", tok.ChatTemplateSource())
	}
	if _, err := tok.ChatTemplate(); !errors.Is(err, ErrUnsupported) {
		t.Errorf("ChatTemplate() error %v, want ErrUnsupported", err)
	}
	for token, want := range map[string]int{"<|end|>": 400, "Ġthe": 261, "a": 'a'} {
		if id, ok := tok.TokenID(token); !ok || id != want {
			t.Errorf("TokenID(%q) = %d, %v; want %d", token, id, ok, want)
		}
	}
	if _, ok := tok.TokenID(" the"); ok {
		t.Error("TokenID found a token by its decoded text")
	}
	if tok.VocabSize() != 406 {
		t.Errorf("VocabSize = %d, want 406", tok.VocabSize())
	}
	if !tok.IsSpecial(400) || tok.IsSpecial(401) || tok.IsSpecial(-3) || tok.IsSpecial(1e6) {
		t.Error("IsSpecial is wrong")
	}
	added := tok.AddedTokens()
	if len(added) != 6 || added[0].ID != 400 || added[5].Content != "é!" {
		t.Errorf("AddedTokens = %+v", added)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	data, err := json.Marshal(newTinyTokenizer())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(empty dir) error %v, want not-exist", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := Load(dir) // no tokenizer_config.json: fine
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tok.EOSID(); ok {
		t.Error("EOSID set without a config")
	}
	cfg := `{"eos_token": "<|end|>", "chat_template": ` + strings.ReplaceAll(jsonString(t, "{{ '<|im_start|>' }}"), "\n", "") + `}`
	if err := os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if tok, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	if id, _ := tok.EOSID(); id != 400 {
		t.Errorf("EOSID = %d", id)
	}
	if _, err := readBounded(filepath.Join(dir, "tokenizer.json"), 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("readBounded over the bound: %v", err)
	}
}

func jsonString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBPEConcurrentEncode shares one tokenizer (and its cache) between
// goroutines; run with -race.
func TestBPEConcurrentEncode(t *testing.T) {
	tok := newTinyTokenizer().mustBuild(t)
	texts := []string{" the hell", "hello<|end|> world", "a  [L]b", "e\u0301! the"}
	want := make([][]int, len(texts))
	for i, s := range texts {
		want[i] = tok.Encode(s)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; round < 200; round++ {
				i := (g + round) % len(texts)
				if got := tok.Encode(texts[i]); !slices.Equal(got, want[i]) {
					t.Errorf("goroutine %d: Encode(%q) = %v, want %v", g, texts[i], got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}
