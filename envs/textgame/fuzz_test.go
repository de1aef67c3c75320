package textgame

import (
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzSanitizeAction checks that an accepted command is one clean line of
// bounded length that sanitises to itself, and that every rejection is an
// ErrBadAction.
func FuzzSanitizeAction(f *testing.F) {
	for _, s := range []string{"take lamp", "  go   north \n", "`in`", "", "a\nb", "\x1b[2Jlook", "x\x00y", strings.Repeat("w", 300), "\u2028", "caf\xe9", "ÉCHO"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := SanitizeAction(in)
		if err != nil {
			if !errors.Is(err, ErrBadAction) {
				t.Fatalf("SanitizeAction(%q) error %v does not match ErrBadAction", in, err)
			}
			return
		}
		if out == "" || len(out) > MaxActionBytes || !utf8.ValidString(out) {
			t.Fatalf("SanitizeAction(%q) = %q: empty, too long or invalid", in, out)
		}
		if strings.TrimSpace(out) != out || strings.Contains(out, "  ") {
			t.Fatalf("SanitizeAction(%q) = %q: untrimmed or uncollapsed space", in, out)
		}
		for _, r := range out {
			if unicode.IsControl(r) {
				t.Fatalf("SanitizeAction(%q) = %q holds control character %U", in, out, r)
			}
		}
		again, err := SanitizeAction(out)
		if err != nil || again != out {
			t.Fatalf("SanitizeAction not idempotent on %q: %q, %v", out, again, err)
		}
	})
}

func TestSanitizeAction(t *testing.T) {
	tests := []struct {
		in, want string
		bad      string // substring of the error, "" for success
	}{
		{"take lamp", "take lamp", ""},
		{"  go\t\tnorth \n", "go north", ""},
		{"`in`", "in", ""},
		{"", "", "empty"},
		{"  \n ", "", "empty"},
		{"n\ns", "", "several lines"},
		{"look\x1b[2J", "", "control character"},
		{strings.Repeat("x", MaxActionBytes+1), "", "longer than"},
		{"caf\xe9", "", "UTF-8"},
	}
	for _, tc := range tests {
		got, err := SanitizeAction(tc.in)
		switch {
		case tc.bad == "" && (err != nil || got != tc.want):
			t.Errorf("SanitizeAction(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("SanitizeAction(%q) = %q, %v; want an error with %q", tc.in, got, err, tc.bad)
		}
	}
}

func TestCleanOutput(t *testing.T) {
	tests := []struct {
		raw  string
		max  int
		want string
	}{
		{"\r\nYou're in valley.\r\n\r\n", 0, "You're in valley."},
		{"\x1b[1mBold\x1b[0m text\x07  \n\n\n\nnext", 0, "Bold text\n\nnext"},
		{"line one\nline two\nline three\nline four\nline five", 45, "line one\nline two\n[output truncated]"},
	}
	for _, tc := range tests {
		if got := cleanOutput([]byte(tc.raw), tc.max); got != tc.want {
			t.Errorf("cleanOutput(%q, %d) = %q, want %q", tc.raw, tc.max, got, tc.want)
		}
	}
}

func TestBlocked(t *testing.T) {
	for cmd, want := range map[string]bool{
		"save": true, "SAVE game": true, "suspend": true, "suspended": true, "pause": true,
		"resume": true, "restart": true, "seed 5": true, "waste 10": true,
		"take lamp": false, "sav": false, "saved": false, "see": false, "look": false,
	} {
		if got := blocked(cmd) != ""; got != want {
			t.Errorf("blocked(%q) = %v, want %v", cmd, got, want)
		}
	}
}
