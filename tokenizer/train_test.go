package tokenizer

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/org/agentevolver"
)

// mergeStrings returns the merges of t as "a b" strings, in rank order.
func mergeStrings(t *BPE) []string {
	var out []string
	for _, m := range t.definition().merges {
		out = append(out, m[0]+" "+m[1])
	}
	return out
}

func mustTrain(t testing.TB, corpus []string, opts TrainOptions) *BPE {
	t.Helper()
	tok, err := TrainBPE(corpus, opts)
	if err != nil {
		t.Fatalf("TrainBPE: %v", err)
	}
	return tok
}

func TestTrainBPEMerges(t *testing.T) {
	tests := []struct {
		name   string
		corpus []string
		opts   TrainOptions
		want   []string
	}{
		{
			// Pre-tokens "aaab" and " aab" twice: (a,a) occurs 4 times;
			// then (aa,b) and (Ġ,aa) tie at 2 and "aa" < "Ġ"; then
			// (Ġ,aab) occurs twice and the rest once.
			name:   "counts then ties",
			corpus: []string{"aaab aab aab"},
			want:   []string{"a a", "aa b", "Ġ aab"},
		},
		{
			name:   "ties by left then right token",
			corpus: []string{"cd ab", "ac"},
			opts:   TrainOptions{MinFrequency: 1},
			want:   []string{"a b", "a c", "c d", "Ġ ab"},
		},
		{
			name:   "min frequency 3 stops early",
			corpus: []string{"aaab aab aab"},
			opts:   TrainOptions{MinFrequency: 3},
			want:   []string{"a a"},
		},
		{
			name:   "vocab size bound",
			corpus: []string{"aaab aab aab"},
			opts:   TrainOptions{VocabSize: 256 + 9 + 2},
			want:   []string{"a a", "aa b"},
		},
		{
			// Digits and the spaces between them are pre-tokens of their
			// own, so there is no pair to merge.
			name:   "pre-tokens are split by the Qwen pattern",
			corpus: []string{"12 12 12"},
			want:   nil,
		},
		{
			name:   "document order does not matter",
			corpus: []string{"ac", "cd ab"},
			opts:   TrainOptions{MinFrequency: 1},
			want:   []string{"a b", "a c", "c d", "Ġ ab"},
		},
		{
			name:   "special tokens split the text",
			corpus: []string{"x<|im_end|>x<|im_end|>x"},
			opts:   TrainOptions{MinFrequency: 1},
			want:   nil,
		},
		{name: "empty corpus", corpus: nil, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := mustTrain(t, tt.corpus, tt.opts)
			if got := mergeStrings(tok); !slices.Equal(got, tt.want) {
				t.Errorf("merges = %q, want %q", got, tt.want)
			}
			specials := len(ChatMLSpecialTokens())
			if got, want := tok.VocabSize(), 256+len(tt.want)+specials; got != want {
				t.Errorf("VocabSize = %d, want %d", got, want)
			}
		})
	}
}

// TestBPETrainerSharedSpelling covers two merges that spell the same token
// ("ab"+"c" and "a"+"bc"): like the Hugging Face trainer, the later merge
// reuses the token's id instead of adding a second "abc". Training from
// bytes rarely reaches that state, so the words are set up by hand.
func TestBPETrainerSharedSpelling(t *testing.T) {
	tr := newBPETrainer(newByteAlphabet(), 1)
	for _, tok := range []string{"ab", "bc"} {
		tr.ids[tok] = int32(len(tr.tokens))
		tr.tokens = append(tr.tokens, tok)
	}
	ab, bc := tr.ids["ab"], tr.ids["bc"]
	tr.words = []trainWord{
		{sym: []int32{ab, 'c'}, count: 2, seen: -1},
		{sym: []int32{'a', bc}, count: 1, seen: -1},
	}
	tokens, merges := tr.train(1000)
	want := [][2]string{{"ab", "c"}, {"a", "bc"}}
	if !slices.Equal(merges, want) {
		t.Fatalf("merges = %q, want %q", merges, want)
	}
	if got := tokens[258:]; !slices.Equal(got, []string{"abc"}) {
		t.Fatalf("new tokens = %q, want [abc] once", got)
	}
	for i, w := range tr.words {
		if !slices.Equal(w.sym, []int32{258}) {
			t.Errorf("word %d = %v, want [258]", i, w.sym)
		}
	}
	if len(tr.pairs) != 0 {
		t.Errorf("%d pair counts left, want none", len(tr.pairs))
	}
}

func checkRoundTrip(t testing.TB, tok *BPE, s string) {
	t.Helper()
	ids := tok.Encode(s)
	back, err := tok.Decode(ids)
	if err != nil {
		t.Fatalf("Decode(Encode(%q)): %v", s, err)
	}
	if want := norm.NFC.String(s); back != want {
		t.Fatalf("Decode(Encode(%q)) = %q, want %q", s, back, want)
	}
	for _, id := range ids {
		if id < 0 || id >= tok.VocabSize() {
			t.Fatalf("Encode(%q): id %d outside the vocabulary of %d", s, id, tok.VocabSize())
		}
	}
}

// trainCorpus is a small corpus in the style of an agent environment's
// chats.
func trainCorpus() []string {
	var docs []string
	for i := range 200 {
		docs = append(docs, fmt.Sprintf(
			"<|im_start|>user\nThe observation at step %d: you see a door to the north and a key.<|im_end|>\n"+
				"<|im_start|>assistant\n<think>\nI should take the key first.\n</think>\n\n"+
				"<tool_call>\n{\"name\": \"take\", \"arguments\": {\"item\": \"key\", \"step\": %d}}\n</tool_call><|im_end|>\n", i, i*7))
	}
	return docs
}

func TestTrainBPEDeterministic(t *testing.T) {
	corpus := trainCorpus()
	a := mustTrain(t, corpus, TrainOptions{VocabSize: 320})
	reversed := slices.Clone(corpus)
	slices.Reverse(reversed)
	b := mustTrain(t, reversed, TrainOptions{VocabSize: 320})
	if !slices.Equal(mergeStrings(a), mergeStrings(b)) {
		t.Fatal("training twice gave different merges")
	}
	da, db := a.definition(), b.definition()
	if len(da.vocab) != len(db.vocab) {
		t.Fatalf("vocab sizes %d and %d", len(da.vocab), len(db.vocab))
	}
	for tok, id := range da.vocab {
		if db.vocab[tok] != id {
			t.Fatalf("token %q has ids %d and %d", tok, id, db.vocab[tok])
		}
	}
	if a.VocabSize() != 320 {
		t.Errorf("VocabSize = %d, want 320", a.VocabSize())
	}
}

func TestTrainBPERoundTrip(t *testing.T) {
	tok := mustTrain(t, trainCorpus(), TrainOptions{VocabSize: 512})
	for _, s := range []string{
		"",
		"The observation at step 3: you see a door.",
		"never seen: Ωμέγα 한국어 😀👨‍👩‍👧 \u0000\x01\x7f",
		"e\u0301 \u212b \u1100\u1161 (NFC changes these)",
		"\xff\xfe invalid \xc3 UTF-8 \xe2\x82",
		"<|im_start|>user\nhi<|im_end|><|im_end|><think></think>",
		"<|im_end", "   \n\n\t  x\r\n",
		strings.Repeat("key ", 500),
	} {
		checkRoundTrip(t, tok, s)
	}
	// Every byte is a token of its own.
	for b := range 256 {
		ids := tok.Encode(string([]byte{byte(b)}))
		if len(ids) != 1 || ids[0] != b {
			t.Errorf("byte 0x%02x encodes to %v, want [%d]", b, ids, b)
		}
	}
}

func TestTrainBPESpecialTokens(t *testing.T) {
	tok := mustTrain(t, trainCorpus(), TrainOptions{VocabSize: 700})
	specials := ChatMLSpecialTokens()
	first := tok.VocabSize() - len(specials)
	for i, a := range specials {
		id, ok := tok.TokenID(a.Content)
		if !ok || id != first+i {
			t.Errorf("TokenID(%q) = %d, %v; want %d", a.Content, id, ok, first+i)
		}
		if got := tok.Encode("x" + a.Content + "x"); len(got) != 3 || got[1] != first+i {
			t.Errorf("Encode(x%sx) = %v, want the special id %d in the middle", a.Content, got, first+i)
		}
		if tok.IsSpecial(id) != a.Special {
			t.Errorf("IsSpecial(%q) = %v, want %v", a.Content, tok.IsSpecial(id), a.Special)
		}
	}
	// No learned token holds a piece of a special token's markup.
	for id := 256; id < first; id++ {
		text, err := tok.Decode([]int{id})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(text, "<|") || strings.Contains(text, "|>") || strings.Contains(text, "<think") {
			t.Errorf("learned token %d %q spans special-token text", id, text)
		}
	}
	eos, okE := tok.EOSID()
	pad, okP := tok.PadID()
	if want, _ := tok.TokenID(IMEnd); !okE || eos != want {
		t.Errorf("EOSID = %d, %v; want %d", eos, okE, want)
	}
	if want, _ := tok.TokenID(EndOfText); !okP || pad != want {
		t.Errorf("PadID = %d, %v; want %d", pad, okP, want)
	}
	tpl, err := tok.ChatTemplate()
	if err != nil {
		t.Fatalf("ChatTemplate: %v", err)
	}
	if tpl != Qwen3ChatML() {
		t.Errorf("ChatTemplate = %#v, want Qwen3ChatML()", tpl)
	}
}

func TestTrainBPECustomSpecialTokens(t *testing.T) {
	tests := []struct {
		name      string
		opts      TrainOptions
		eos, pad  string // "" for none
		wantAdded int
	}{
		{"none", TrainOptions{SpecialTokens: []AddedToken{}}, "", "", 0},
		{"custom with eos", TrainOptions{
			SpecialTokens: []AddedToken{{Content: "<eos>", Special: true}, {Content: "<pad>", Special: true, ID: 99}},
			EOSToken:      "<eos>", PadToken: "<pad>",
		}, "<eos>", "<pad>", 2},
		{"chatml defaults kept", TrainOptions{
			SpecialTokens: append(ChatMLSpecialTokens(), AddedToken{Content: "<obs>"}),
		}, IMEnd, EndOfText, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := mustTrain(t, []string{"hello hello <obs> hello"}, tt.opts)
			if got := len(tok.AddedTokens()); got != tt.wantAdded {
				t.Errorf("%d added tokens, want %d", got, tt.wantAdded)
			}
			for _, c := range []struct {
				get  func() (int, bool)
				want string
			}{{tok.EOSID, tt.eos}, {tok.PadID, tt.pad}} {
				id, ok := c.get()
				if want, _ := tok.TokenID(c.want); ok != (c.want != "") || (ok && id != want) {
					t.Errorf("got %d, %v; want %q", id, ok, c.want)
				}
			}
		})
	}
}

func TestTrainBPEFrequentWordIsOneToken(t *testing.T) {
	var corpus []string
	for range 50 {
		corpus = append(corpus, "the inventory shows the inventory of the agent")
	}
	tok := mustTrain(t, corpus, TrainOptions{VocabSize: 300})
	for _, word := range []string{" inventory", " agent", "the"} {
		if ids := tok.Encode(word); len(ids) != 1 {
			t.Errorf("Encode(%q) = %v, want one token", word, ids)
		}
	}
	text := "the agent shows the inventory"
	if n, bytes := len(tok.Encode(text)), len(text); n*4 > bytes {
		t.Errorf("%q: %d tokens for %d bytes, want at least 4 bytes per token", text, n, bytes)
	}
}

func TestTrainBPEMinFrequency(t *testing.T) {
	// Every pair of "xyzw" occurs exactly twice.
	corpus := []string{"xyzw", "xyzw"}
	for _, tt := range []struct {
		min    int
		merges int
	}{{1, 3}, {2, 3}, {3, 0}} {
		tok := mustTrain(t, corpus, TrainOptions{MinFrequency: tt.min})
		if got := len(mergeStrings(tok)); got != tt.merges {
			t.Errorf("MinFrequency %d: %d merges, want %d", tt.min, got, tt.merges)
		}
	}
}

func TestTrainBPEBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts TrainOptions
	}{
		{"vocab below bytes", TrainOptions{VocabSize: 100}},
		{"no room for specials", TrainOptions{VocabSize: 256 + 8}},
		{"vocab too large", TrainOptions{VocabSize: MaxTrainVocabSize + 1}},
		{"negative vocab", TrainOptions{VocabSize: -1}},
		{"negative min frequency", TrainOptions{MinFrequency: -1}},
		{"empty special", TrainOptions{SpecialTokens: []AddedToken{{Content: ""}}}},
		{"repeated special", TrainOptions{SpecialTokens: []AddedToken{{Content: "<a>"}, {Content: "<a>"}}}},
		{"eos not special", TrainOptions{EOSToken: "<eos>"}},
		{"pad not special", TrainOptions{SpecialTokens: []AddedToken{{Content: "<a>"}}, PadToken: EndOfText}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := TrainBPE([]string{"some text"}, tt.opts)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("TrainBPE error = %v, want ErrInvalid", err)
			}
		})
	}
	// The smallest valid size learns nothing.
	tok := mustTrain(t, []string{"aa aa aa"}, TrainOptions{VocabSize: 256 + 9})
	if got := len(mergeStrings(tok)); got != 0 || tok.VocabSize() != 265 {
		t.Errorf("smallest vocab: %d merges, VocabSize %d; want 0, 265", got, tok.VocabSize())
	}
}

func TestTrainBPESaveLoad(t *testing.T) {
	tok := mustTrain(t, trainCorpus(), TrainOptions{VocabSize: 640})
	dir := filepath.Join(t.TempDir(), "tok")
	if err := tok.Save(dir); err != nil {
		t.Fatalf("Save: %v", err)
	}
	loaded, err := Load(dir)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	texts := append(trainCorpus()[:3],
		"held-out: the window to the south is open; 42 coins",
		"never seen: Ωμέγα 😀 \xff\xfe", "e\u0301<|im_end|>\n<|endoftext|>")
	for _, s := range texts {
		if a, b := tok.Encode(s), loaded.Encode(s); !slices.Equal(a, b) {
			t.Errorf("Encode(%q): trained %v, loaded %v", s, a, b)
		}
	}
	if tok.VocabSize() != loaded.VocabSize() {
		t.Errorf("VocabSize: trained %d, loaded %d", tok.VocabSize(), loaded.VocabSize())
	}
	if !slices.Equal(tok.AddedTokens(), loaded.AddedTokens()) {
		t.Errorf("AddedTokens differ: %v vs %v", tok.AddedTokens(), loaded.AddedTokens())
	}
	for _, get := range []func(*BPE) (int, bool){(*BPE).EOSID, (*BPE).PadID} {
		a, okA := get(tok)
		b, okB := get(loaded)
		if a != b || okA != okB || !okA {
			t.Errorf("special id: trained %d %v, loaded %d %v", a, okA, b, okB)
		}
	}
	messages := []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: "You play a text game."},
		{Role: agentevolver.RoleUser, Content: "Look around."},
		{Role: agentevolver.RoleAssistant, Content: "<think>\nhm\n</think>\n\nI look."},
	}
	render := func(tk *BPE) string {
		tpl, err := tk.ChatTemplate()
		if err != nil {
			t.Fatalf("ChatTemplate: %v", err)
		}
		s, err := tpl.Apply(messages, TemplateOptions{AddGenerationPrompt: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if a, b := render(tok), render(loaded); a != b {
		t.Errorf("chat rendering differs:\n%s\n---\n%s", a, b)
	}
	// Saving the loaded copy writes the same bytes.
	dir2 := filepath.Join(t.TempDir(), "again")
	if err := loaded.Save(dir2); err != nil {
		t.Fatalf("Save: %v", err)
	}
	for _, name := range []string{"tokenizer.json", "tokenizer_config.json"} {
		a, _ := os.ReadFile(filepath.Join(dir, name))
		b, _ := os.ReadFile(filepath.Join(dir2, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the trained and the reloaded tokenizer's Save", name)
		}
	}
	// No temporary files are left behind.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("Save left %d files in %s, want 2", len(entries), dir)
	}
}

func TestSaveErrors(t *testing.T) {
	tok := mustTrain(t, []string{"abc"}, TrainOptions{})
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := tok.Save(filepath.Join(file, "sub")); err == nil {
		t.Error("Save under a regular file succeeded")
	}
}

// TestQwen3SaveLoad saves the real Qwen3 tokenizer and loads it back: the
// ids of the parity corpus and the chat template are unchanged.
func TestQwen3SaveLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and parses an 11 MB tokenizer.json")
	}
	tok := loadQwen3(t)
	dir := t.TempDir()
	if err := tok.Save(dir); err != nil {
		t.Fatalf("Save: %v", err)
	}
	loaded, err := Load(dir)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var ref encodeReference
	readJSON(t, filepath.Join("testdata", "qwen3_encode.json"), &ref)
	for _, c := range ref.Cases {
		if got := loaded.Encode(c.Text); !slices.Equal(got, c.IDs) {
			t.Fatalf("Encode(%q) after Save/Load = %v, want %v", c.Text, got, c.IDs)
		}
	}
	t.Logf("%d reference cases equal after Save/Load", len(ref.Cases))
	if tok.ChatTemplateSource() != loaded.ChatTemplateSource() || tok.VocabSize() != loaded.VocabSize() {
		t.Error("chat template or vocabulary size changed")
	}
	if !slices.Equal(tok.AddedTokens(), loaded.AddedTokens()) {
		t.Error("added tokens changed")
	}
}

func TestQwen3ChatTemplateJinja(t *testing.T) {
	tpl, err := ChatMLFromJinja(Qwen3ChatTemplateJinja)
	if err != nil || tpl != Qwen3ChatML() {
		t.Fatalf("ChatMLFromJinja(Qwen3ChatTemplateJinja) = %#v, %v; want Qwen3ChatML()", tpl, err)
	}
	dir := qwen3Dir(t)
	real, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if real.ChatTemplateSource() != Qwen3ChatTemplateJinja {
		t.Error("Qwen3ChatTemplateJinja differs from the real Qwen3 tokenizer_config.json")
	}
}

// FuzzTrainBPERoundTrip trains on a fuzzed corpus (documents separated by
// NUL) and checks that fuzzed text decodes back to its NFC form and that
// the special tokens stay single ids.
func FuzzTrainBPERoundTrip(f *testing.F) {
	for _, s := range [][2]string{
		{"aaab aab aab", "aab aaab"},
		{"hello world\x00hello there<|im_end|>", "hello<|im_start|>world"},
		{"e\u0301e\u0301 \u212b\u212b 😀😀", "\xff\xfee\u0301 😀"},
		{"12 12 12 'll 'll", "'ll12"},
		{"\n\n  \t\r\n", "  \n"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, corpus, text string) {
		if len(corpus) > 4096 || len(text) > 4096 {
			t.Skip()
		}
		tok, err := TrainBPE(strings.Split(corpus, "\x00"), TrainOptions{VocabSize: 400, MinFrequency: 1})
		if err != nil {
			t.Fatal(err)
		}
		checkRoundTrip(t, tok, text)
		if !utf8.ValidString(text) {
			back, _ := tok.Decode(tok.Encode(text))
			if utf8.ValidString(back) {
				t.Fatalf("invalid bytes of %q were lost", text)
			}
		}
		end, _ := tok.TokenID(IMEnd)
		if ids := tok.Encode(text + IMEnd); ids[len(ids)-1] != end {
			t.Fatalf("Encode(%q + IMEnd) does not end with the IMEnd id", text)
		}
	})
}

// benchCorpus reads about size bytes of the repository's Go sources and
// documents, one document per file.
func benchCorpus(b *testing.B, size int) []string {
	b.Helper()
	var docs []string
	total := 0
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil || total >= size {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") && path != ".." {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".md")) {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			docs = append(docs, string(data))
			total += len(data)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return docs
}

// BenchmarkTrainBPE trains a 1024-id vocabulary on about 1 MB of text.
func BenchmarkTrainBPE(b *testing.B) {
	corpus := benchCorpus(b, 1<<20)
	n := 0
	for _, d := range corpus {
		n += len(d)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := TrainBPE(corpus, TrainOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
