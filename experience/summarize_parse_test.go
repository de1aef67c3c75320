package experience

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSummarizeParseLessons(t *testing.T) {
	tests := []struct {
		name      string
		answer    string
		max, size int
		want      []string
		malformed bool
	}{
		{name: "plain", answer: "LESSON: a\nLESSON: b", want: []string{"a", "b"}},
		{name: "CRLF and spacing", answer: "LESSON:   spaced   out  \r\nLESSON:\tb\r\n", want: []string{"spaced out", "b"}},
		{name: "preamble and remarks ignored", answer: "Sure! Here are the lessons:\n\nLESSON: a\nThis one matters.\nLESSON: b\nHope this helps.", want: []string{"a", "b"}},
		{name: "list markers", answer: "- LESSON: a\n* LESSON: b\n1. LESSON: c\n2) Lesson: d\n• LESSON: e", max: 9, want: []string{"a", "b", "c", "d", "e"}},
		{name: "bold and numbered tags", answer: "**LESSON:** a\n**Lesson 2**: b\nlesson #3: c **", want: []string{"a", "b", "c"}},
		{name: "thinking stripped", answer: "<think>LESSON: draft\nLESSON: draft 2</think>\nLESSON: final", want: []string{"final"}},
		{name: "thinking without opening tag", answer: "LESSON: draft</think>LESSON: final", want: []string{"final"}},
		{name: "unterminated thinking", answer: "LESSON: before<think>LESSON: cut off", want: []string{"before"}},
		{name: "only thinking", answer: "<think>LESSON: x", malformed: true},
		{name: "too many kept in order", answer: "LESSON: 1\nLESSON: 2\nLESSON: 3\nLESSON: 4\nLESSON: 5", want: []string{"1", "2", "3"}},
		{name: "repeats dropped", answer: "LESSON: Check the day.\nLESSON: check  the DAY.\nLESSON: other", want: []string{"Check the day.", "other"}},
		{name: "long cut at a word", answer: "LESSON: one two three four five six", size: 14, want: []string{"one two three…"}},
		{name: "markup removed", answer: "LESSON: wrap it in <EXP></EXP> tags", want: []string{"wrap it in tags"}},
		{name: "control characters", answer: "LESSON: a\x00b\x1bc\u2028d", want: []string{"a b c d"}},
		{name: "invalid UTF-8", answer: "LESSON: caf\xe9", want: []string{"caf\uFFFD"}},
		{name: "empty lessons skipped", answer: "LESSON:\nLESSON:  \nLESSON: a", want: []string{"a"}},
		{name: "NONE", answer: "NONE"},
		{name: "NONE, dressed", answer: "  **None.**  "},
		{name: "NONE after thinking", answer: "<think>nothing here</think>\nnone"},
		{name: "lesson NONE", answer: "LESSON: NONE"},
		{name: "NONE among lessons", answer: "LESSON: a\nLESSON: none", want: []string{"a"}},
		{name: "empty", answer: "", malformed: true},
		{name: "prose", answer: "The agent should check the calendar first.", malformed: true},
		{name: "tag without colon", answer: "LESSON check the calendar", malformed: true},
		{name: "plural header only", answer: "LESSONS:\n1. check the calendar", malformed: true},
		{name: "only empty lessons", answer: "LESSON:\nLESSON: **", malformed: true},
		{name: "JSON", answer: `{"lessons": ["a"]}`, malformed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseLessons(tt.answer, tt.max, tt.size)
			if tt.malformed {
				if !errors.Is(err, ErrMalformedAnswer) || got != nil {
					t.Errorf("got %q, %v; want nil, ErrMalformedAnswer", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzSummaryLessons checks ParseLessons' contract on any answer: no
// panic; either an error matching ErrMalformedAnswer and no lessons, or at
// most maxLessons distinct, non-empty, one-line lessons of at most maxChars
// valid UTF-8 code points without markup. Seeds are in
// testdata/fuzz/FuzzSummaryLessons.
func FuzzSummaryLessons(f *testing.F) {
	f.Add("LESSON: a\nLESSON: b", 3, 300)
	f.Add("<think>x</think>NONE", 0, 0)
	f.Fuzz(func(t *testing.T, answer string, maxLessons, maxChars int) {
		maxLessons %= 50
		maxChars %= 1000
		lessons, err := ParseLessons(answer, maxLessons, maxChars)
		if err != nil {
			if !errors.Is(err, ErrMalformedAnswer) || lessons != nil {
				t.Fatalf("got %q, %v", lessons, err)
			}
			return
		}
		if maxLessons <= 0 {
			maxLessons = DefaultMaxLessons
		}
		if maxChars <= 0 {
			maxChars = DefaultMaxLessonChars
		}
		if len(lessons) > maxLessons {
			t.Fatalf("%d lessons, bound %d", len(lessons), maxLessons)
		}
		seen := map[string]bool{}
		for _, l := range lessons {
			switch {
			case l == "" || strings.TrimSpace(l) != l:
				t.Fatalf("lesson %q is empty or padded", l)
			case !utf8.ValidString(l) || utf8.RuneCountInString(l) > maxChars:
				t.Fatalf("lesson %q invalid or over %d code points", l, maxChars)
			case strings.IndexFunc(l, func(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }) >= 0:
				t.Fatalf("lesson %q spans lines", l)
			case strings.Contains(l, "<think>") || strings.Contains(l, "</EXP>"):
				t.Fatalf("lesson %q carries markup", l)
			case seen[l]:
				t.Fatalf("lesson %q repeated", l)
			}
			seen[l] = true
		}
	})
}
