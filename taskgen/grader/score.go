package grader

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// scorePattern is the reference's r'<reward>([\d\.]+)</reward>'. Python's
// \d on a str pattern is any Unicode decimal digit (category Nd), hence
// \p{Nd} rather than Go's ASCII-only \d.
var scorePattern = regexp.MustCompile(`<reward>([\p{Nd}.]+)</reward>`)

// ParseScore reads a judge's score the way every LLM grader of the
// reference does (reference §4.8): the first match of
// `<reward>([\d\.]+)</reward>` in the response, as a number clamped to
// [0, 100] and divided by 100. A response without a match, or an empty one,
// scores 0. The first match decides even when a later tag holds the real
// verdict (a judge that echoes the prompt's "<reward>75</reward>" example
// scores 0.75), and a tag whose content is no number ("1.2.3", ".") also
// gives 0 here: where the reference's float() raises ValueError, FindScore
// returns ErrMalformedScore, and the judges of this package fail the episode.
//
// As in Python, the digits may be any Unicode decimal digits (Arabic-Indic
// "٧٥" is 75). Go's Unicode tables (version 15.0) know a few digits that
// Python 3.11's (14.0) do not; no judge writes those.
func ParseScore(response string) float64 {
	score, _, err := FindScore(response)
	if err != nil {
		return 0
	}
	return score
}

// FindScore is ParseScore with the reference's distinctions kept: found
// reports that the response has a <reward> tag matching the pattern, and
// err is ErrMalformedScore (score 0) when that tag's content is not a
// number, where the reference raises. A number too large for a float64 is
// +Inf, as in Python, and clamps to 1.
func FindScore(response string) (score float64, found bool, err error) {
	// The reference searches response.strip(); stripping cannot change the
	// first match of a pattern that starts with '<' and ends with '>'.
	m := scorePattern.FindStringSubmatch(response)
	if m == nil {
		return 0, false, nil
	}
	v, err := strconv.ParseFloat(asciiDigits(m[1]), 64)
	if err != nil && !isRangeError(err) {
		return 0, true, fmt.Errorf("%w: %q", ErrMalformedScore, m[1])
	}
	return math.Max(0, math.Min(100, v)) / 100, true, nil
}

// isRangeError reports strconv's overflow error, whose value (±Inf) Python's
// float() returns without complaint.
func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// asciiDigits replaces every Unicode decimal digit of s by its ASCII
// digit, as Python's float() does before parsing.
func asciiDigits(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		b.WriteByte(byte('0' + digitValue(r)))
	}
	return b.String()
}

// digitValue returns the value of a decimal digit r (category Nd). Unicode
// encodes every set of decimal digits as ten consecutive code points from
// 0 to 9, so a maximal run of Nd code points is a sequence of whole sets
// and the value is the offset within the run modulo 10.
func digitValue(r rune) int {
	for _, rg := range unicode.Nd.R16 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10
		}
	}
	return 0 // not a digit; the pattern admits none
}
