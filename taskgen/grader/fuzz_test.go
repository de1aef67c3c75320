package grader

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unicode"
)

// refFindScore is an independent reading of the reference's rule: the
// first "<reward>" followed by a non-empty run of decimal digits and dots
// and then "</reward>"; malformed unless the run has one dot at most and a
// digit.
func refFindScore(s string) (run string, found, malformed bool) {
	const open, closing = "<reward>", "</reward>"
	for i := 0; i+len(open) <= len(s); i++ {
		if !strings.HasPrefix(s[i:], open) {
			continue
		}
		rest := s[i+len(open):]
		end := 0
		for j, r := range rest {
			if r != '.' && !unicode.Is(unicode.Nd, r) {
				end = j
				break
			}
			end = len(rest)
		}
		if end > 0 && strings.HasPrefix(rest[end:], closing) {
			run = rest[:end]
			dots := strings.Count(run, ".")
			return run, true, dots > 1 || dots == len(run)
		}
	}
	return "", false, false
}

func FuzzParseScore(f *testing.F) {
	for _, s := range []string{
		"Reasoning...\n<reward>75</reward>", "<reward>1.2.3</reward>", "<reward>.</reward>", "<reward>٧٥</reward>",
		"<reward>x</reward> <reward>60</reward>", "<reward> 75</reward>", "", "<reward>5 <reward>60</reward>",
		"<reward>" + strings.Repeat("9", 400) + "</reward>", "\xff<reward>1\xff</reward>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		score, found, err := FindScore(s)
		if math.IsNaN(score) || score < 0 || score > 1 {
			t.Fatalf("FindScore(%q) = %v, outside [0, 1]", s, score)
		}
		if err != nil && (!errors.Is(err, ErrMalformedScore) || !found || score != 0) {
			t.Fatalf("FindScore(%q) = %v, %v, %v", s, score, found, err)
		}
		if !found && score != 0 {
			t.Fatalf("FindScore(%q) = %v without a tag", s, score)
		}
		if got := ParseScore(s); got != score {
			t.Fatalf("ParseScore(%q) = %v, FindScore %v", s, got, score)
		}
		_, refFound, refMalformed := refFindScore(s)
		if refFound != found || refMalformed != (err != nil) {
			t.Fatalf("FindScore(%q): found %v, err %v; the reference's rule: found %v, malformed %v", s, found, err, refFound, refMalformed)
		}
		// The first tag decides: what follows cannot change it.
		const later = "<reward>99</reward>"
		score2, found2, err2 := FindScore(s + later)
		switch {
		case found && (score2 != score || (err2 == nil) != (err == nil)):
			t.Fatalf("FindScore(%q + later) = %v, %v; want %v, %v", s, score2, err2, score, err)
		case !found && (!found2 || err2 != nil || score2 != 0.99):
			t.Fatalf("FindScore(%q + later) = %v, %v, %v; want the later tag", s, score2, found2, err2)
		}
	})
}

// asciiUpper upper-cases ASCII letters only.
func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{
		"Success: true\nReason: ok", "Success: false", "unsuccessful", "not completed", "completed", "",
		"Success:false", "FAİLED, completed", "successful: TRUE", "not achieved; solved",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := ParseVerdict(s)
		if s == "" && got {
			t.Fatal("empty reply passed")
		}
		if up := ParseVerdict(asciiUpper(s)); up != got {
			t.Fatalf("ParseVerdict(%q) = %v but %v for its upper case", s, got, up)
		}
		if !ParseVerdict(s + "\nSuccess: true") {
			t.Fatalf("ParseVerdict(%q + explicit true) = false", s)
		}
		low := pyLower(s)
		if !strings.Contains(low, "success: true") && !strings.Contains(low, "successful: true") && ParseVerdict("Success: false\n"+s) {
			t.Fatalf("ParseVerdict(explicit false + %q) = true", s)
		}
	})
}
