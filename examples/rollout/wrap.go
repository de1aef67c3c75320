package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// tabWidth is the number of spaces a tab becomes.
const tabWidth = 4

// sanitize makes untrusted text (model replies, observations) safe to print
// on a terminal: line endings become "\n", tabs spaces, and other control
// characters, which could move the cursor or recolour the terminal, are
// shown escaped; invalid UTF-8 becomes U+FFFD.
func sanitize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch {
		case r == utf8.RuneError && isInvalidAt(s, i):
			b.WriteRune(utf8.RuneError)
		case r == '\n':
			b.WriteByte('\n')
		case r == '\t':
			b.WriteString(strings.Repeat(" ", tabWidth))
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || isBidiControl(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isInvalidAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size == 1
}

// isBidiControl reports the explicit direction formatting characters, which
// can make printed text read differently from what it is.
func isBidiControl(r rune) bool {
	return (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069') || r == '\u200e' || r == '\u200f' || r == '\u061c'
}

// clipText keeps at most limit bytes of s (all when limit is 0), cut at a
// character boundary, and says how much was left out.
func clipText(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf(" … [%d more bytes]", len(s)-cut)
}

// wrap sanitises text and breaks it into lines of at most width display
// columns, each starting with indent (which counts towards width). Line
// breaks of the text are kept, words are not split unless longer than a
// line, and a wrapped line's continuations keep its leading spaces, so code
// and lists stay readable.
func wrap(text string, width int, indent string) []string {
	avail := max(width-uniseg.StringWidth(indent), 1)
	var out []string
	for _, line := range strings.Split(sanitize(text), "\n") {
		line = strings.TrimRight(line, " ")
		lead := line[:len(line)-len(strings.TrimLeft(line, " "))]
		if uniseg.StringWidth(lead) > avail/2 {
			// A deeply indented line would leave no room; keep half.
			lead = strings.Repeat(" ", avail/2)
		}
		for _, l := range wrapLine(strings.TrimLeft(line, " "), lead, avail) {
			if l == "" {
				out = append(out, "") // no trailing spaces
				continue
			}
			out = append(out, indent+l)
		}
	}
	return out
}

// wrapLine breaks one line (without its leading spaces lead) into pieces of
// at most avail columns, each starting with lead.
func wrapLine(line, lead string, avail int) []string {
	leadWidth := uniseg.StringWidth(lead)
	room := avail - leadWidth
	if uniseg.StringWidth(line) <= room {
		// Fits: keep it verbatim, inner spacing included.
		return []string{lead + line}
	}
	var (
		out   []string
		cur   strings.Builder
		width int
	)
	flush := func() {
		out = append(out, lead+cur.String())
		cur.Reset()
		width = 0
	}
	for _, word := range strings.Fields(line) {
		w := uniseg.StringWidth(word)
		switch {
		case width > 0 && width+1+w <= room:
			cur.WriteByte(' ')
			cur.WriteString(word)
			width += 1 + w
			continue
		case width > 0:
			flush()
		}
		if w <= room {
			cur.WriteString(word)
			width = w
			continue
		}
		// A word longer than a line: break it between characters.
		g := uniseg.NewGraphemes(word)
		for g.Next() {
			cw := g.Width()
			if width > 0 && width+cw > room {
				flush()
			}
			cur.WriteString(g.Str())
			width += cw
		}
	}
	if width > 0 {
		flush()
	}
	return out
}
