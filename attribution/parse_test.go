package attribution

import (
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"testing"
)

// TestParseJudgmentsUnicode pins the Python semantics the golden file
// cannot show: Unicode digits, spaces and word boundaries, and full
// upper-casing. Each expectation but the last two was produced by the
// reference's regular expressions under Python 3.11; Python has no
// invalid UTF-8, and with a negative count it would return all labels but
// the last, where ParseJudgments refuses.
func TestParseJudgmentsUnicode(t *testing.T) {
	cases := []struct {
		name     string
		response string
		k        int
		want     []bool // nil: an error
		wantErr  error
	}{
		{"arabic-indic digit", "Step ٠ Judgment: BAD\nStep ١ Judgment: GOOD", 2, []bool{false, true}, nil},
		{"fullwidth digit", "Step １ Judgment: GOOD\nStep 0 Judgment: BAD", 2, []bool{false, true}, nil},
		{"mathematical digits", "Step 𝟘 Judgment: GOOD\nStep 𝟙 Judgment: BAD", 2, []bool{true, false}, nil},
		{"no-break and ideographic spaces", "Step\u00a00\u3000Judgment:\u2003GOOD", 1, []bool{true}, nil},
		{"ascii separators are spaces", "Step\x1c0\x1fJudgment:\x1dBAD", 1, []bool{false}, nil},
		{"zero-width space is no space", "Step\u200b0 Judgment: BAD and then GOOD", 1, []bool{false}, nil},
		{"long s folds to s", "ſtep 0 judgment: good", 1, []bool{true}, nil},
		{"combining mark ends a word", "e\u0301GOOD BAD", 1, []bool{true}, nil},
		{"precomposed letter does not", "\u00e9GOOD BAD", 1, []bool{false}, nil},
		{"ǰ upper-cases to J and a combining caron", "ǰBAD GOOD", 1, []bool{false}, nil},
		{"ß upper-cases to SS, a word", "ßGOOD BAD", 1, []bool{false}, nil},
		{"ypogegrammeni upper-cases to a letter", "\u0345GOOD BAD", 1, []bool{false}, nil},
		{"underscore is a word character", "_GOOD GOOD_ BAD", 1, []bool{false}, nil},
		{"digits are word characters", "2GOOD ٣BAD GOOD", 1, []bool{true}, nil},
		{"huge step numbers are distinct keys", "Step 99999999999999999999 Judgment: GOOD\nStep 0 Judgment: BAD", 2, nil, ErrStepNumbering},
		{"negative steps", "GOOD", -1, nil, ErrParse},
		{"invalid UTF-8 separates words", "\xffGOOD\xfe", 1, []bool{true}, nil},
	}
	for _, c := range cases {
		got, err := ParseJudgments(c.response, c.k)
		if c.want == nil {
			if !errors.Is(err, c.wantErr) {
				t.Errorf("%s: ParseJudgments = %v, %v; want error %v", c.name, got, err, c.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: ParseJudgments(%q, %d) = %v, %v; want %v", c.name, c.response, c.k, got, err, c.want)
		}
	}
}

func TestParseStripThinking(t *testing.T) {
	cases := map[string]string{
		"Step 0 Judgment: GOOD": "Step 0 Judgment: GOOD",
		"<think>\nStep 0 Judgment: BAD\n</think>\n\nStep 0 Judgment: GOOD\n": "Step 0 Judgment: GOOD",
		"reasoning only</think> answer":                                      "answer",
		"<think>a</think><think>b</think>final":                              "final",
		"<think>cut off by the token limit":                                  "",
		"  \u00a0 padded \x1c":                                               "padded",
	}
	for in, want := range cases {
		if got := stripThinking(in); got != want {
			t.Errorf("stripThinking(%q) = %q, want %q", in, got, want)
		}
	}
}

// render writes flags in the required output format.
func render(flags []bool) string {
	var b strings.Builder
	for i, g := range flags {
		label := "BAD"
		if g {
			label = "GOOD"
		}
		fmt.Fprintf(&b, "Step %d Analysis: <reasoning>\nStep %d Judgment: %s\n\n", i, i, label)
	}
	return b.String()
}

// FuzzParseJudgments checks that ParseJudgments never panics and keeps its
// contract on any answer: K labels or an ErrParse error of one of the two
// kinds, the same result twice, an empty slice for K = 0, and an answer in
// the required format read back exactly.
func FuzzParseJudgments(f *testing.F) {
	f.Add("Step 0 Judgment: GOOD\nStep 1 Judgment: bad", 2)
	f.Add("blah GOOD then BAD and good", 2)
	f.Add("Step 1 Judgment: GOOD\nStep 2 Judgment: BAD", 2)
	f.Add("only GOOD", 2)
	f.Add("Step ٠ Judgment:\u00a0**BAD**ǰGOOD ßBAD", 3)
	f.Fuzz(func(t *testing.T, response string, k int) {
		k %= 64
		got, err := ParseJudgments(response, k)
		again, err2 := ParseJudgments(response, k)
		if !slices.Equal(got, again) || (err == nil) != (err2 == nil) {
			t.Fatalf("not deterministic: %v, %v then %v, %v", got, err, again, err2)
		}
		switch {
		case k < 0:
			if !errors.Is(err, ErrParse) {
				t.Fatalf("k = %d: %v, %v; want ErrParse", k, got, err)
			}
			return
		case k == 0:
			if err != nil || got == nil || len(got) != 0 {
				t.Fatalf("k = 0: %#v, %v; want an empty slice", got, err)
			}
		case err != nil:
			if got != nil || !errors.Is(err, ErrParse) || errors.Is(err, ErrTooFewJudgments) == errors.Is(err, ErrStepNumbering) {
				t.Fatalf("bad error: %v, %v", got, err)
			}
		case len(got) != k:
			t.Fatalf("%d labels for %d steps", len(got), k)
		}
		// Labels drawn from the input, rendered in the required format,
		// read back exactly.
		h := fnv.New64a()
		h.Write([]byte(response))
		bits := h.Sum64()
		flags := make([]bool, k)
		for i := range flags {
			flags[i] = bits>>(i%64)&1 == 1
		}
		if back, err := ParseJudgments(render(flags), k); err != nil || !slices.Equal(back, flags) {
			t.Fatalf("round trip of %v: %v, %v", flags, back, err)
		}
	})
}
