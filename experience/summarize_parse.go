package experience

import (
	"fmt"
	"strings"
	"unicode"
)

// lessonTag starts every lesson line of a summary answer.
const lessonTag = "LESSON"

// noLessons is the answer of a model that found nothing worth keeping.
const noLessons = "NONE"

// ParseLessons reads a summary model's answer: one lesson per line, each
// line starting with "LESSON:". It is lenient about presentation and strict
// about the tag:
//
//   - thinking is stripped first (the text after the last "</think>", or
//     before an unterminated "<think>"), and invalid UTF-8 becomes U+FFFD;
//   - a tag may follow list markers ("-", "*", "•", "1.", "2)") and bold
//     markers, may be in any case and may carry a number ("Lesson 2:");
//   - lines without the tag (a preamble, a closing remark, a lesson's
//     wrapped continuation) are ignored;
//   - each lesson is made one line: control characters become spaces, runs
//     of white space one space, and the tags <think>, </think>, <EXP> and
//     </EXP> are removed so that a lesson cannot break the prompt it is
//     injected into or the stripping of it;
//   - a lesson longer than maxChars code points is cut to maxChars, ending
//     in "…" (after its last whole word when that keeps most of it);
//   - empty lessons, lessons that say "NONE" and repeats (ignoring case
//     and spacing, after the cut) are dropped;
//   - only the first maxLessons lessons are kept.
//
// An answer that is just NONE (any case, bold or quoted, with or without a
// full stop), or whose lessons all say NONE, gives no lessons and no error.
// Any other answer without a non-empty lesson gives no lessons and an
// error matching ErrMalformedAnswer. maxLessons <= 0 means
// DefaultMaxLessons and maxChars <= 0 DefaultMaxLessonChars. ParseLessons
// never panics.
func ParseLessons(answer string, maxLessons, maxChars int) ([]string, error) {
	if maxLessons <= 0 {
		maxLessons = DefaultMaxLessons
	}
	if maxChars <= 0 {
		maxChars = DefaultMaxLessonChars
	}
	text := stripAnswerThinking(strings.ToValidUTF8(answer, "\uFFFD"))
	var lessons []string
	seen := map[string]bool{}
	tagged, none := false, isNone(text)
	for line := range strings.Lines(text) {
		body, ok := lessonBody(line)
		if !ok {
			continue
		}
		tagged = true
		lesson := cleanLesson(body)
		if isNone(lesson) {
			none = true
			continue
		}
		if lesson == "" {
			continue
		}
		lesson = clipCodePoints(lesson, maxChars)
		norm := strings.ToLower(lesson)
		if seen[norm] {
			continue
		}
		seen[norm] = true
		lessons = append(lessons, lesson)
		if len(lessons) == maxLessons {
			break
		}
	}
	switch {
	case len(lessons) > 0 || none:
		return lessons, nil
	case tagged:
		return nil, fmt.Errorf("%w: every lesson line is empty (answer %q)", ErrMalformedAnswer, clipCodePoints(text, 120))
	default:
		return nil, fmt.Errorf("%w: no line starts with %q (answer %q)", ErrMalformedAnswer, lessonTag+":", clipCodePoints(text, 120))
	}
}

// lessonBody returns the text after a line's lesson tag, reporting whether
// the line has one.
func lessonBody(line string) (string, bool) {
	s := strings.TrimSpace(line)
	s = trimListMarker(s)
	s = strings.TrimLeft(s, "*_ \t")
	if len(s) < len(lessonTag) || !strings.EqualFold(s[:len(lessonTag)], lessonTag) {
		return "", false
	}
	s = s[len(lessonTag):]
	s = strings.TrimLeft(s, " \t")
	s = strings.TrimLeft(s, "#0123456789")
	s = strings.TrimLeft(s, "*_ \t")
	if !strings.HasPrefix(s, ":") {
		return "", false
	}
	return strings.TrimLeft(s[1:], "*_"), true
}

// trimListMarker removes one leading list marker: a bullet ("-", "*", "+",
// "•") or a number with "." or ")" followed by white space.
func trimListMarker(s string) string {
	for _, b := range []string{"- ", "* ", "+ ", "• "} {
		if strings.HasPrefix(s, b) {
			return strings.TrimSpace(s[len(b):])
		}
	}
	i := 0
	for i < len(s) && i < 4 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && (s[i+1] == ' ' || s[i+1] == '\t') {
		return strings.TrimSpace(s[i+2:])
	}
	return s
}

// markup are tags a lesson must not carry into a prompt.
var lessonMarkup = strings.NewReplacer("<think>", " ", "</think>", " ", "<EXP>", " ", "</EXP>", " ")

// cleanLesson makes a lesson one tidy line.
func cleanLesson(s string) string {
	s = lessonMarkup.Replace(s)
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	// Bold markers closing a "**LESSON:** text **" line.
	s = strings.TrimSpace(strings.TrimRight(s, "*"))
	return s
}

// isNone reports whether s says there is nothing to learn: NONE in any
// case, possibly bold, quoted or with a full stop.
func isNone(s string) bool {
	s = strings.Trim(strings.TrimSpace(s), "*_\"'`.")
	return strings.EqualFold(strings.TrimSpace(s), noLessons)
}
