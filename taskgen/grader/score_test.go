package grader

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unicode"

	"github.com/org/agentevolver/internal/golden"
)

// TestGoldenJudgeScoreParse checks FindScore and ParseScore against every
// case of the reference's score parsing: the score, or ErrMalformedScore
// (and ParseScore 0) where the reference's float() raised ValueError.
func TestGoldenJudgeScoreParse(t *testing.T) {
	const file = "judge_score_parse.json"
	f := golden.Load(t, file)
	for _, c := range f.Cases {
		var response string
		c.Input(t, "response", &response)
		score, found, err := FindScore(response)
		if isErr, errType := c.IsError(); isErr {
			if errType != "ValueError" {
				t.Fatalf("%s: unknown error type %q", c.Name, errType)
			}
			if !errors.Is(err, ErrMalformedScore) || !found || score != 0 {
				t.Errorf("%s: FindScore(%q) = %v, %v, %v; want 0, true, ErrMalformedScore", c.Name, response, score, found, err)
			}
			if got := ParseScore(response); got != 0 {
				t.Errorf("%s: ParseScore(%q) = %v; want 0 for a malformed tag", c.Name, response, got)
			}
			continue
		}
		var want golden.Num
		c.Output(t, "score", &want)
		if err != nil || !golden.Close(score, float64(want), f.Tolerance, f.RelTolerance) {
			t.Errorf("%s: FindScore(%q) = %v, %v; want %v", c.Name, response, score, err, float64(want))
		}
		if got := ParseScore(response); got != score {
			t.Errorf("%s: ParseScore(%q) = %v; FindScore gave %v", c.Name, response, got, score)
		}
	}
	t.Logf("golden %s: %d cases", file, len(f.Cases))
}

func TestFindScore(t *testing.T) {
	tests := []struct {
		name      string
		response  string
		want      float64
		found     bool
		malformed bool
	}{
		{"plain", "<reward>80</reward>", 0.8, true, false},
		{"arabic-indic digits", "<reward>٧٥</reward>", 0.75, true, false},
		{"devanagari digits", "<reward>७५.५</reward>", 0.755, true, false},
		{"mathematical bold digits", "<reward>𝟕𝟓</reward>", 0.75, true, false},
		{"fullwidth digits", "<reward>７５</reward>", 0.75, true, false},
		{"mixed scripts", "<reward>7٥</reward>", 0.75, true, false},
		{"overflow is +Inf, clamped", "<reward>" + strings.Repeat("9", 400) + "</reward>", 1, true, false},
		{"underflow is 0", "<reward>0." + strings.Repeat("0", 400) + "1</reward>", 0, true, false},
		{"two dots", "<reward>..</reward>", 0, true, true},
		{"nested open tag", "<reward><reward>50</reward>", 0.5, true, false},
		{"unclosed then valid", "<reward>5 <reward>60</reward>", 0.6, true, false},
		{"no tag", "score: 90", 0, false, false},
		{"empty", "", 0, false, false},
		{"invalid utf-8 around", "\xff<reward>33</reward>\xfe", 0.33, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found, err := FindScore(tt.response)
			if tt.malformed != errors.Is(err, ErrMalformedScore) || (!tt.malformed && err != nil) {
				t.Fatalf("FindScore(%q) err = %v; malformed %v", tt.response, err, tt.malformed)
			}
			if math.Abs(got-tt.want) > 1e-12 || found != tt.found {
				t.Errorf("FindScore(%q) = %v, %v; want %v, %v", tt.response, got, found, tt.want, tt.found)
			}
		})
	}
}

// TestDigitRuns checks the assumption digitValue rests on: every run of
// decimal digits in Go's tables is whole sets of ten, starting at a zero.
func TestDigitRuns(t *testing.T) {
	check := func(lo, hi, stride uint32) {
		if stride != 1 || (hi-lo+1)%10 != 0 {
			t.Errorf("Nd range %U-%U stride %d is not whole sets of ten", lo, hi, stride)
		}
		if unicode.IsDigit(rune(lo) - 1) {
			t.Errorf("Nd range %U-%U is not maximal", lo, hi)
		}
	}
	for _, r := range unicode.Nd.R16 {
		check(uint32(r.Lo), uint32(r.Hi), uint32(r.Stride))
	}
	for _, r := range unicode.Nd.R32 {
		check(r.Lo, r.Hi, r.Stride)
	}
	for r, want := range map[rune]int{'0': 0, '9': 9, '٧': 7, '७': 7, '７': 7, '𝟎': 0, '𝟕': 7, '𝟘': 0, '𝟿': 9} {
		if got := digitValue(r); got != want {
			t.Errorf("digitValue(%q) = %d, want %d", r, got, want)
		}
	}
}

func TestStripThinking(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<think>maybe <reward>90</reward></think>\nVerdict: <reward>30</reward>", "\nVerdict: <reward>30</reward>"},
		{"<reward>70</reward><think>cut off", "<reward>70</reward>"},
		{"no thinking <reward>10</reward>", "no thinking <reward>10</reward>"},
		{"<think>a</think><think>b</think>c", "c"},
	}
	for _, tt := range tests {
		if got := stripThinking(tt.in); got != tt.want {
			t.Errorf("stripThinking(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
