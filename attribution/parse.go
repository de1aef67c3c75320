package attribution

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// Parse errors; both match ErrParse.
var (
	// ErrTooFewJudgments: the answer holds fewer GOOD/BAD labels than
	// steps (the reference raises ValueError).
	ErrTooFewJudgments = fmt.Errorf("%w: fewer labels than steps", ErrParse)
	// ErrStepNumbering: the answer judges exactly as many numbered steps
	// as there are, but not the steps 0 to K−1, for example 1 to K (the
	// reference raises KeyError). The free-word rule is not tried then.
	ErrStepNumbering = fmt.Errorf("%w: judged steps are not numbered 0 to K-1", ErrParse)
)

// pyWhitespace is Python's \s for str patterns (str.isspace): Go's
// unicode.IsSpace plus the ASCII separators U+001C..U+001F.
const pyWhitespace = `\t\n\v\f\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`

// numberedJudgment is the reference's
// Step\s+(\d+)\s+Judgment:\s*(GOOD|BAD) with re.I, with Python's Unicode
// meaning of \s and \d (any decimal digit, category Nd). Python's
// case-insensitive matching of these letters and Go's simple case folding
// agree (s also matches U+017F ſ in both).
var numberedJudgment = regexp.MustCompile(`(?i)Step[` + pyWhitespace + `]+(\p{Nd}+)[` + pyWhitespace + `]+Judgment:[` + pyWhitespace + `]*(GOOD|BAD)`)

// ParseJudgments reads one label per step, true for GOOD, from a judge's
// answer to the prompt of StepEvalMessages, exactly as the reference's
// parse_batch_evaluation_result does (§7.3):
//
//  1. every "Step <n> Judgment: GOOD|BAD" (case-insensitive, any spacing,
//     n in any decimal digits, leading zeros ignored) sets the label of
//     step n, later ones overwriting earlier ones;
//  2. if exactly numSteps steps were judged, they must be 0..numSteps−1
//     and give the labels (else ErrStepNumbering);
//  3. otherwise the first numSteps whole words GOOD or BAD of the
//     upper-cased answer give them ("**GOOD**" counts, "GOODNESS" does
//     not);
//  4. otherwise the answer is unparsable (ErrTooFewJudgments).
//
// Words, digits and spaces are Python's Unicode classes and upper-casing
// is Python's full case mapping (ß → SS), so non-ASCII answers parse as in
// the reference, up to the Unicode versions of the two standard
// libraries. numSteps 0 always gives an empty, non-nil slice. Every error
// matches ErrParse.
func ParseJudgments(response string, numSteps int) ([]bool, error) {
	if numSteps < 0 {
		return nil, fmt.Errorf("%w: negative number of steps %d", ErrParse, numSteps)
	}
	numbered := map[string]bool{}
	for _, m := range numberedJudgment.FindAllStringSubmatchIndex(response, -1) {
		key := decimalKey(response[m[2]:m[3]])
		numbered[key] = strings.EqualFold(response[m[4]:m[5]], "GOOD")
	}
	if len(numbered) == numSteps {
		flags := make([]bool, numSteps)
		for i := range flags {
			good, ok := numbered[strconv.Itoa(i)]
			if !ok {
				return nil, fmt.Errorf("%w (no judgment of step %d)", ErrStepNumbering, i)
			}
			flags[i] = good
		}
		return flags, nil
	}
	flags := freeWordLabels(cases.Upper(language.Und).String(response), numSteps)
	if len(flags) < numSteps {
		return nil, fmt.Errorf("%w (%d labels for %d steps)", ErrTooFewJudgments, len(flags), numSteps)
	}
	return flags, nil
}

// decimalKey is the canonical decimal text of a run of Unicode decimal
// digits, as Python's int() reads it: each digit's value, leading zeros
// dropped ("007" and "٧" are both "7").
func decimalKey(digits string) string {
	var b strings.Builder
	for _, r := range digits {
		d := digitValue(r)
		if b.Len() == 0 && d == 0 {
			continue
		}
		b.WriteByte(byte('0' + d))
	}
	if b.Len() == 0 {
		return "0"
	}
	return b.String()
}

// digitValue is the value of a decimal digit (category Nd). Unicode
// encodes the decimal digits in contiguous runs of ten, zero first, so the
// value is the offset from the start of the rune's run of digits, modulo 10
// (runs of several scripts can touch, as the mathematical digits do).
func digitValue(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	start := r
	for unicode.IsDigit(start - 1) {
		start--
	}
	return int(r-start) % 10
}

// freeWordLabels returns the labels of the first max whole words GOOD or
// BAD of s: the reference's re.findall(r"\b(GOOD|BAD)\b", s)[:max] with
// Python's Unicode \b.
func freeWordLabels(s string, max int) []bool {
	flags := make([]bool, 0, min(max, len(s)/4+1)) // a label takes at least 4 bytes
	prevWord := false
	for i := 0; i < len(s) && len(flags) < max; {
		if !prevWord {
			for _, w := range [...]string{"GOOD", "BAD"} {
				if end := i + len(w); strings.HasPrefix(s[i:], w) && !wordAt(s, end) {
					flags = append(flags, w == "GOOD")
					i = end
					break
				}
			}
			if len(flags) == max {
				break
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if size == 0 {
			break
		}
		prevWord = isWord(r)
		i += size
	}
	return flags
}

// wordAt reports whether a word character starts at s[i].
func wordAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return isWord(r)
}

// isWord is Python's \w for str patterns: letters, numbers (Nd, Nl, No)
// and the underscore. An invalid UTF-8 byte is not a word character.
func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// stripThinking returns the answer part of a judge's completion: the text
// after the last "</think>" when there is one (a reasoning model's thinking,
// with or without its opening tag); the text before an unterminated
// "<think>" otherwise (thinking cut off by the token limit holds no
// answer); else the whole text. Surrounding white space is trimmed, as the
// reference strips the answer. Drafts of the labels inside the thinking
// would otherwise be parsed as the verdict.
func stripThinking(s string) string {
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		s = s[i+len("</think>"):]
	} else if i := strings.Index(s, "<think>"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimFunc(s, pyIsSpace)
}

// pyIsSpace is Python's str.isspace for one rune.
func pyIsSpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }
