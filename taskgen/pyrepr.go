package taskgen

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The reference renders a few values into its prompts with Python's str()
// of a list of strings and of a float; these helpers write the same text so
// that the prompts match the original's byte for byte.

// pyStrListRepr returns Python's repr of a list of str, as in
// f"{['a', 'b']}": "['a', 'b']", "[]" when empty.
func pyStrListRepr(items []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		writePyStrRepr(&b, s)
	}
	b.WriteByte(']')
	return b.String()
}

// pyStrRepr returns Python's repr of a str.
func pyStrRepr(s string) string {
	var b strings.Builder
	writePyStrRepr(&b, s)
	return b.String()
}

// writePyStrRepr writes Python 3's repr of s (unicode_repr in CPython): single
// quotes, unless s contains a single quote and no double quote; the chosen
// quote and backslash escaped with a backslash; \t, \n and \r by name; other
// non-printable characters as \xhh, \uhhhh or \Uhhhhhhhh (lowercase hex);
// printable non-ASCII characters as they are. "Printable" is Go's
// unicode.IsPrint, which has Python's definition (not in categories C* or
// Z*, except the ASCII space); the two may differ on characters new in one
// Unicode version and not the other. Python strings cannot hold invalid
// UTF-8; an invalid byte here is written as U+FFFD.
func writePyStrRepr(b *strings.Builder, s string) {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < ' ' || r == 0x7f:
			writeHexEscape(b, `\x`, uint32(r), 2)
		case r < utf8.RuneSelf || unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			writeHexEscape(b, `\x`, uint32(r), 2)
		case r < 0x10000:
			writeHexEscape(b, `\u`, uint32(r), 4)
		default:
			writeHexEscape(b, `\U`, uint32(r), 8)
		}
	}
	b.WriteByte(quote)
}

func writeHexEscape(b *strings.Builder, prefix string, v uint32, width int) {
	b.WriteString(prefix)
	h := strconv.FormatUint(uint64(v), 16)
	for range width - len(h) {
		b.WriteByte('0')
	}
	b.WriteString(h)
}

// pyFloatRepr returns Python 3's repr (and str) of a float: the shortest
// text that reads back as f, in fixed notation with at least one decimal
// ("1.0", "0.0001", "-0.0") when its decimal exponent is in [-4, 16), else
// in exponent notation ("1e-05", "1.5e+16"); "nan", "inf", "-inf".
func pyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX, shortest digits
	exp, err := strconv.Atoi(e[strings.LastIndexByte(e, 'e')+1:])
	if err == nil && (exp < -4 || exp >= 16) {
		return e // Go's shortest 'e' form is Python's: 1e-05, 1.5e+16, 1e+100
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}
