package tokenizer

import (
	"errors"
	"slices"
	"testing"
)

func TestByteLevel(t *testing.T) {
	tok, err := NewByteLevel(ByteLevelOptions{ExtraTokens: []string{"<obs>"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in   string
		want []int
	}{
		{"", []int{}},
		{"hi", []int{'h', 'i'}},
		{"é", []int{0xC3, 0xA9}},
		{"<|im_start|>user\n", []int{257, 'u', 's', 'e', 'r', '\n'}},
		{"a<|im_end|><|endoftext|>", []int{'a', 258, 256}},
		{"<think>x</think>", []int{259, 'x', 260}},
		{"<tool_call><tool_response></tool_response></tool_call>", []int{261, 263, 264, 262}},
		{"<obs>", []int{265}},
		{"<|im_end", []int{'<', '|', 'i', 'm', '_', 'e', 'n', 'd'}},
		{"\xff\x00", []int{0xFF, 0}},
	}
	for _, tt := range tests {
		got := tok.Encode(tt.in)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Encode(%q) = %v, want %v", tt.in, got, tt.want)
		}
		back, err := tok.Decode(got)
		if err != nil || back != tt.in {
			t.Errorf("Decode(Encode(%q)) = %q, %v", tt.in, back, err)
		}
	}
	if tok.VocabSize() != 266 {
		t.Errorf("VocabSize = %d, want 266", tok.VocabSize())
	}
	for _, id := range []int{-1, 266} {
		if _, err := tok.Decode([]int{id}); !errors.Is(err, ErrUnknownID) {
			t.Errorf("Decode(%d) error %v, want ErrUnknownID", id, err)
		}
	}
	if id, ok := tok.EOSID(); !ok || id != 258 {
		t.Errorf("EOSID = %d, %v", id, ok)
	}
	if id, ok := tok.PadID(); !ok || id != 256 {
		t.Errorf("PadID = %d, %v", id, ok)
	}
	for token, want := range map[string]int{"<|im_start|>": 257, "<obs>": 265, "a": 'a'} {
		if id, ok := tok.TokenID(token); !ok || id != want {
			t.Errorf("TokenID(%q) = %d, %v; want %d", token, id, ok, want)
		}
	}
	if _, ok := tok.TokenID("ab"); ok {
		t.Error(`TokenID("ab") found a token`)
	}
	if !tok.IsSpecial(258) || tok.IsSpecial(259) || tok.IsSpecial(65) {
		t.Error("IsSpecial is wrong")
	}
	if s, ok := tok.Token(259); !ok || s != "<think>" {
		t.Errorf("Token(259) = %q, %v", s, ok)
	}
	if s, ok := tok.Token('x'); !ok || s != "x" {
		t.Errorf("Token('x') = %q, %v", s, ok)
	}
	if _, ok := tok.Token(1000); ok {
		t.Error("Token(1000) found a token")
	}
	if tpl, err := tok.ChatTemplate(); err != nil || tpl != Qwen3ChatML() {
		t.Errorf("ChatTemplate = %v, %v", tpl, err)
	}
	if n := len(tok.AddedTokens()); n != 10 {
		t.Errorf("%d added tokens, want 10", n)
	}
}

func TestByteLevelOptionErrors(t *testing.T) {
	for _, extra := range [][]string{{""}, {"<|im_end|>"}, {"<x>", "<x>"}} {
		if _, err := NewByteLevel(ByteLevelOptions{ExtraTokens: extra}); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewByteLevel(%q) error %v, want ErrInvalid", extra, err)
		}
	}
}

// FuzzByteLevelRoundTrip checks that any byte string survives encoding and
// decoding, and that plain bytes map to themselves.
func FuzzByteLevelRoundTrip(f *testing.F) {
	for _, s := range []string{"", "hello", "<|im_start|>user\nhi<|im_end|>\n", "\xff\xfe<think", "<|im_end|><|im_end|>"} {
		f.Add(s)
	}
	tok, err := NewByteLevel(ByteLevelOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s)
		if len(ids) > len(s) {
			t.Fatalf("%d ids for %d bytes", len(ids), len(s))
		}
		back, err := tok.Decode(ids)
		if err != nil || back != s {
			t.Fatalf("Decode(Encode(%q)) = %q, %v", s, back, err)
		}
	})
}
