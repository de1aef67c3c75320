package main

import (
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		name  string
		text  string
		width int
		want  []string
	}{
		{"short", "hello world", 20, []string{"  hello world"}},
		{"empty", "", 20, []string{""}},
		{"words", "the quick brown fox jumps over the lazy dog", 16, []string{"  the quick", "  brown fox", "  jumps over the", "  lazy dog"}},
		{"line breaks kept", "a\n\nb", 20, []string{"  a", "", "  b"}},
		{"fitting line keeps its spacing", "x  =  1", 20, []string{"  x  =  1"}},
		{"continuations keep the indent", "    one two three four", 16, []string{"      one two", "      three four"}},
		{"long word broken", "abcdefghijklmnop", 8, []string{"  abcdef", "  ghijkl", "  mnop"}},
		{"wide characters", "日本語のテキスト", 10, []string{"  日本語の", "  テキスト"}},
		{"fence", "```tool\nfiles.write name=a.txt text=\"a b c d e f\"\n```", 24,
			[]string{"  ```tool", "  files.write name=a.txt", "  text=\"a b c d e f\"", "  ```"}},
		{"tabs and CRLF", "a\tb\r\nc", 20, []string{"  a    b", "  c"}},
		{"control characters escaped", "\x1b[31mred\x1b[0m", 40, []string{`  \u001b[31mred\u001b[0m`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := wrap(tc.text, tc.width, "  ")
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("wrap(%q, %d) =\n%q\nwant\n%q", tc.text, tc.width, got, tc.want)
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain":             "plain",
		"bell\a":            `bell\u0007`,
		"bidi \u202eevil":   `bidi \u202eevil`,
		"bad \xff utf8":     "bad \ufffd utf8",
		"keep\nnewline":     "keep\nnewline",
		"line\u2028sep":     `line\u2028sep`,
		"c1 \u009b control": `c1 \u009b control`,
	} {
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClipText(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		want  string
	}{
		{"hello", 0, "hello"},
		{"hello", 5, "hello"},
		{"hello world", 5, "hello … [6 more bytes]"},
		{"héllo", 2, "h … [5 more bytes]"}, // not inside the é
	} {
		if got := clipText(tc.in, tc.limit); got != tc.want {
			t.Errorf("clipText(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
	}
}
