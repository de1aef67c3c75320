package tokenizer

import (
	"encoding/json"
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

// FuzzNewBPE feeds arbitrary tokenizer.json and tokenizer_config.json
// contents to the loader: it must fail cleanly or build a tokenizer that
// round-trips text.
func FuzzNewBPE(f *testing.F) {
	tiny, err := json.Marshal(newTinyTokenizer())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tiny, []byte(`{"eos_token": "<|end|>", "pad_token": {"content": "[L]"}}`))
	f.Add(tiny, []byte(`{"chat_template": [{"name": "default", "template": "x"}]}`))
	f.Add([]byte(`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a a"]}}`), []byte(nil))
	f.Add([]byte(`{"model": {"vocab": {"a": 99999999}}, "pre_tokenizer": {"type": "ByteLevel"}}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, tokJSON, configJSON []byte) {
		tok, err := NewBPE(tokJSON, configJSON)
		if err != nil {
			return
		}
		const text = "Hello <|end|> wörld 123\n\t"
		back, err := tok.Decode(tok.Encode(text))
		if err != nil {
			t.Fatal(err)
		}
		if back != text {
			// Added tokens may overlap ordinary text in a fuzzed file, but
			// bytes are never lost or invented.
			if len(back) < len(text)-8 {
				t.Fatalf("round trip lost text: %q", back)
			}
		}
	})
}

// FuzzChatMLFromJinja checks that recognising a template never panics and
// that a recognised template renders.
func FuzzChatMLFromJinja(f *testing.F) {
	f.Add(`{%- if (message.role == "assistant" and not message.tool_calls) %}{{ tool_call.arguments | tojson }}<|im_start|>` +
		`{{- '<|im_start|>system\nDefault \'quoted\'.<|im_end|>\n' }}`)
	f.Add(`ns.last_query_index reasoning_content enable_thinking is defined and enable_thinking is false <|im_start|>`)
	f.Add(`{{ messages }}`)
	f.Fuzz(func(t *testing.T, src string) {
		tpl, err := ChatMLFromJinja(src)
		if err != nil {
			return
		}
		if _, err := tpl.Apply(nil, TemplateOptions{AddGenerationPrompt: true}); err != nil {
			t.Fatal(err)
		}
	})
}
