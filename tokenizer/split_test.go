package tokenizer

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// qwenPatternForRegexp2 spells the case-insensitive contractions of a
// Qwen-style pattern with the long s (U+017F) that Oniguruma's case folding
// matches and regexp2's does not, so that regexp2 can serve as the
// reference of the hand-written splitter.
func qwenPatternForRegexp2(p string) string {
	return strings.Replace(p, `(?i:'s|'t|'re|'ve|'m|'ll|'d)`,
		`(?:'[sSſ]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])`, 1)
}

func TestQwenSplitTable(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Hello world", []string{"Hello", " world"}},
		{"a  b", []string{"a", " ", " b"}},
		{"a   ", []string{"a", "   "}},
		{"I'm we'LL it'S", []string{"I", "'m", " we", "'LL", " it", "'S"}},
		{"'hello", []string{"'hello"}},
		{"it'ſt", []string{"it", "'ſ", "t"}}, // Oniguruma folds ſ to s
		{"12345", []string{"1", "2", "3", "4", "5"}},
		{"x=1;", []string{"x", "=", "1", ";"}},
		{"  (foo)", []string{" ", " (", "foo", ")"}},
		{"...abc", []string{"...", "abc"}},
		{".abc", []string{".abc"}},
		{"\tfoo", []string{"\tfoo"}},
		{"\t\tfoo", []string{"\t", "\tfoo"}},
		{"\t(", []string{"\t", "("}},
		{"foo.\n\nbar", []string{"foo", ".\n\n", "bar"}},
		{"a \n b", []string{"a", " \n", " b"}},
		{"a\r\n\r\n  b", []string{"a", "\r\n\r\n", " ", " b"}},
		{"\nhello", []string{"\n", "hello"}},
		{"x \u3000y", []string{"x", " ", "\u3000y"}},
		{"x\u0085\u0085 y", []string{"x", "\u0085\u0085", " y"}}, // NEL is \s to Oniguruma
		{"x\ufeffy", []string{"x", "\ufeffy"}},                   // BOM is not
		{"नमस्ते", []string{"नमस", "्त", "े"}},
		{"😀😃 👍🏽", []string{"😀😃", " 👍🏽"}},
		{"\xff\xfeabc\xc3", []string{"\xff\xfe", "abc", "\xc3"}}, // invalid bytes are kept
	}
	for _, tt := range tests {
		got := qwenSplitter{maxDigits: 1}.split(tt.in, nil)
		if !slices.Equal(got, tt.want) {
			t.Errorf("split(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := (qwenSplitter{maxDigits: 3}).split("1234567 x", nil); !slices.Equal(got, []string{"123", "456", "7", " x"}) {
		t.Errorf("cl100k split = %q", got)
	}
}

// FuzzQwenSplit checks the hand-written splitter against regexp2 running the
// patterns, for the Qwen (single digits) and cl100k (up to three digits)
// variants, and that the pieces always cover the input.
func FuzzQwenSplit(f *testing.F) {
	for _, s := range []string{
		"Hello, world!", "I'm  here\n\n  now ", "a\r\n\r\n  b\t\t(c)", "1234567 x", "it'ſt 'S 'lL",
		"नमस्ते 你好 😀👍🏽", "\u00a0\u3000x\u2028y", "...abc  ...  \n", "x\u0085\u0085 y", "\xff\xfeabc",
	} {
		f.Add(s)
	}
	refs := map[int]*regexSplitter{}
	for digits, p := range map[int]string{1: QwenPattern, 3: CL100KPattern} {
		re, err := newRegexSplitter(qwenPatternForRegexp2(p))
		if err != nil {
			f.Fatal(err)
		}
		refs[digits] = re
	}
	f.Fuzz(func(t *testing.T, s string) {
		for digits, re := range refs {
			got := qwenSplitter{maxDigits: digits}.split(s, nil)
			if strings.Join(got, "") != s {
				t.Fatalf("pieces %q do not cover %q", got, s)
			}
			for _, p := range got {
				if p == "" {
					t.Fatalf("empty piece in %q", got)
				}
			}
			if !utf8.ValidString(s) {
				continue // regexp2 sees U+FFFD where the splitter sees a byte
			}
			if want := re.split(s, nil); !slices.Equal(got, want) {
				t.Fatalf("maxDigits %d: split(%q)\n got  %q\n want %q", digits, s, got, want)
			}
		}
	})
}

// TestQwenSplitMatchesRegexp2Random runs the differential check of
// FuzzQwenSplit on seeded random strings drawn from a mixed alphabet, so
// that every test run covers scripts, marks, whitespace kinds and
// apostrophes.
func TestQwenSplitMatchesRegexp2Random(t *testing.T) {
	alphabet := []rune("aZé'sStTrReElLmMdDſ 0123456789٣४½Ⅻ\t\n\r\v\f\u00a0\u0085\u1680\u2000\u2028\u2029\u202f\u3000\ufeff" +
		".,;:!?()[]{}\"-_/\\<>|#@$%^&*+=~`\u0301\u0308\u093f\u094d中文にほんご한국𝐀😀\u200d\U0001F3FD\uFFFD")
	refs := map[int]*regexSplitter{}
	for digits, p := range map[int]string{1: QwenPattern, 3: CL100KPattern} {
		re, err := newRegexSplitter(qwenPatternForRegexp2(p))
		if err != nil {
			t.Fatal(err)
		}
		refs[digits] = re
	}
	r := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	for round := 0; round < 3000; round++ {
		b.Reset()
		for n := r.IntN(24); n >= 0; n-- {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		for digits, re := range refs {
			got := qwenSplitter{maxDigits: digits}.split(s, nil)
			if want := re.split(s, nil); !slices.Equal(got, want) {
				t.Fatalf("maxDigits %d: split(%q)\n got  %q\n want %q", digits, s, got, want)
			}
		}
	}
}
