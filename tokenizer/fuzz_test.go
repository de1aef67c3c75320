package tokenizer

import (
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// FuzzQwen3RoundTrip encodes arbitrary text with the real Qwen3 tokenizer:
// decoding gives back its NFC form, bytes that are not UTF-8 included.
func FuzzQwen3RoundTrip(f *testing.F) {
	for _, s := range []string{
		"Hello, world!", "<|im_start|>user\nI'm here<|im_end|>\n", "e\u0301 \u212b 한국어 \u1100\u1161",
		"def f():\n\treturn  1\r\n", "\xff\xfe<think>\xc3", "😀👨‍👩‍👧 🇫🇷", "   \n\n  x", "<|im_end",
	} {
		f.Add(s)
	}
	tok := loadQwen3(f)
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s)
		back, err := tok.Decode(ids)
		if err != nil {
			t.Fatal(err)
		}
		if want := norm.NFC.String(s); back != want {
			t.Fatalf("Decode(Encode(%q)) = %q, want %q", s, back, want)
		}
		if !utf8.ValidString(s) && utf8.ValidString(back) {
			t.Fatalf("Decode(Encode(%q)) = %q lost the invalid bytes", s, back)
		}
		for _, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("id %d outside the vocabulary", id)
			}
		}
	})
}
