package main

import (
	"strings"
	"testing"
	"unicode"

	"github.com/rivo/uniseg"
)

// FuzzWrap checks that wrapping untrusted text keeps every non-space
// character, bounds the line width and lets no control character through.
func FuzzWrap(f *testing.F) {
	for _, s := range []string{
		"", "hello world", "```tool\nfiles.write name=a.txt text=\"x y\"\n```",
		"\x1b[31mred\x1b[0m\r\n\tTab", "日本語のテキスト 🏳️‍🌈 e\u0301", "    indented line with several words",
		strings.Repeat("a", 300), "bad \xff\xfe utf8", "\u202e reversed",
	} {
		f.Add(s, 40)
	}
	f.Fuzz(func(t *testing.T, text string, width int) {
		if len(text) > 4096 || width < 1 || width > 400 {
			t.Skip()
		}
		lines := wrap(text, width, "  ")
		var body strings.Builder
		for _, l := range lines {
			if strings.ContainsFunc(l, func(r rune) bool { return unicode.IsControl(r) }) {
				t.Fatalf("control character in %q", l)
			}
			if l != "" && !strings.HasPrefix(l, "  ") {
				t.Fatalf("line %q lacks the indent", l)
			}
			if w := uniseg.StringWidth(l); w > max(width, 3) && uniseg.GraphemeClusterCount(strings.TrimLeft(l, " ")) > 1 {
				t.Fatalf("line %q is %d columns wide, limit %d", l, w, width)
			}
			body.WriteString(l)
		}
		if got, want := dropSpace(body.String()), dropSpace(sanitize(text)); got != want {
			t.Fatalf("text changed: %q, want %q", got, want)
		}
	})
}

func dropSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// FuzzParseModelList checks that any model-list answer is read without
// panicking and within bounds.
func FuzzParseModelList(f *testing.F) {
	for _, s := range []string{
		`{"object":"list","data":[{"id":"qwen2.5-7b-instruct","object":"model"}]}`,
		`{"data":null}`, `{"data":[{"id":1}]}`, `[]`, `<html>`, `{"data":[{}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ids, ok := parseModelList(body)
		if !ok && ids != nil {
			t.Fatalf("ids %q without ok", ids)
		}
		if len(ids) > maxModelIDs {
			t.Fatalf("%d ids", len(ids))
		}
		for _, id := range ids {
			if id == "" {
				t.Fatal("empty id")
			}
		}
	})
}
