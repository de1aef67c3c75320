package dotenv

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse feeds Parse and Resolve arbitrary text: neither panics,
// every binding has a key and a line within the text, statements come
// in order, and text that is not UTF-8 is refused.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"A=1\nB='2'\nC=\"3\\n\"\n", "export A = x # c", "'k'=v", "A=${B:-d}${A}", "A=\"x\ny\"\r\nB",
		"A B", "=", "\ufeffA=1", "A='\\'", "A=\"\\\"", "A=\"a\\\"b\"\nB=\"c\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		bindings, perrs, err := Parse(data)
		if !utf8.Valid(data) {
			if err == nil {
				t.Fatal("accepted text that is not UTF-8")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		lines := 1 + strings.Count(string(data), "\n") + strings.Count(string(data), "\r")
		last := 0
		for _, b := range bindings {
			if b.Key == "" {
				t.Fatalf("binding without key: %+v", b)
			}
			if b.Line < last || b.Line < 1 || b.Line > lines {
				t.Fatalf("binding %+v out of order or beyond %d lines", b, lines)
			}
			last = b.Line
			if !b.HasValue && b.Value != "" {
				t.Fatalf("binding without value has one: %+v", b)
			}
		}
		for _, e := range perrs {
			if e.Line < 1 || e.Line > lines || utf8.RuneCountInString(e.Text) > 80 {
				t.Fatalf("bad parse error %+v", e)
			}
		}
		for _, v := range Resolve(bindings, func(k string) (string, bool) { return "env:" + k, len(k)%2 == 0 }, false) {
			if v.Key == "" {
				t.Fatal("variable without key")
			}
		}
	})
}

// FuzzQuoteRoundTrip writes KEY="value" with value escaped for double
// quotes and reads it back: the value comes back unchanged, whatever it
// holds (line breaks, quotes, backslashes, ${...}, #).
func FuzzQuoteRoundTrip(f *testing.F) {
	for _, s := range []string{"", "plain", "a \"quoted\" word", "back\\slash\\", "line\nbreak", "${A} # not a comment", "'", "\\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		if !utf8.ValidString(value) || len(value) > 4096 {
			return
		}
		quoted := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(value) + `"`
		bindings, perrs, err := Parse([]byte("KEY=" + quoted + "\n"))
		if err != nil || len(perrs) != 0 || len(bindings) != 1 {
			t.Fatalf("KEY=%s: %v %v %v", quoted, bindings, perrs, err)
		}
		if b := bindings[0]; b.Key != "KEY" || !b.HasValue || b.Value != value {
			t.Fatalf("KEY=%s read back as %q, want %q", quoted, b.Value, value)
		}
	})
}
