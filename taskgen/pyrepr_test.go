package taskgen

import (
	"math"
	"testing"
	"unicode"
)

// The expectations are Python 3.11's repr() of the same values.
func TestPyStrListRepr(t *testing.T) {
	tests := []struct {
		name  string
		items []string
		want  string
	}{
		{"empty list", nil, `[]`},
		{"one", []string{"a"}, `['a']`},
		{"quotes and escapes",
			[]string{"a", "it's", `say "hi"`, `both ' "`, `back\slash`, "nl\n tab\t cr\r", ""},
			`['a', "it's", 'say "hi"', 'both \' "', 'back\\slash', 'nl\n tab\t cr\r', '']`},
		{"non-printable", []string{"\x00\x1f\x7f\u0085\u00a0\u00ad"}, `['\x00\x1f\x7f\x85\xa0\xad']`},
		{"printable non-ASCII", []string{"é ü 日本 😀"}, `['é ü 日本 😀']`},
		{"format and separators", []string{"\u2028\u200b\ufeff"}, `['\u2028\u200b\ufeff']`},
		{"astral", []string{"\U0001f600\U000e0001"}, `['😀\U000e0001']`},
		{"quote with backslash", []string{`it's \ "x"`}, `['it\'s \\ "x"']`},
		{"invalid UTF-8", []string{"a\xffb"}, "['a\uFFFDb']"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pyStrListRepr(tt.items); got != tt.want {
				t.Errorf("pyStrListRepr(%q) = %s, want %s", tt.items, got, tt.want)
			}
		})
	}
	if got := pyStrRepr("it's"); got != `"it's"` {
		t.Errorf(`pyStrRepr("it's") = %s`, got)
	}
}

// Python's isprintable excludes the categories Cc, Cf, Cs, Co, Cn, Zl, Zp
// and Zs except the space; Go's unicode.IsPrint excludes the same set.
func TestIsPrintMatchesPython(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		other := unicode.In(r, unicode.C, unicode.Zl, unicode.Zp, unicode.Zs) && r != ' '
		assigned := unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.C)
		pyPrintable := assigned && !other
		if unicode.IsPrint(r) != pyPrintable {
			t.Fatalf("U+%04X: unicode.IsPrint = %v, Python definition %v", r, unicode.IsPrint(r), pyPrintable)
		}
	}
}

func TestPyFloatRepr(t *testing.T) {
	tenth, fifth := 0.1, 0.2 // variables: a constant 0.1+0.2 would be exactly 0.3
	tests := []struct {
		f    float64
		want string
	}{
		{1, "1.0"}, {0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {0.5, "0.5"},
		{1e-4, "0.0001"}, {1e-5, "1e-05"}, {1.5e-5, "1.5e-05"}, {1e16, "1e+16"},
		{9999999999999998.0, "9999999999999998.0"}, {1e15, "1000000000000000.0"},
		{123456.789, "123456.789"}, {1.0 / 3, "0.3333333333333333"}, {1e100, "1e+100"},
		{2.5e-300, "2.5e-300"}, {math.NaN(), "nan"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"},
		{tenth + fifth, "0.30000000000000004"}, {100, "100.0"}, {1e22, "1e+22"}, {-2.5, "-2.5"},
	}
	for _, tt := range tests {
		if got := pyFloatRepr(tt.f); got != tt.want {
			t.Errorf("pyFloatRepr(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}
