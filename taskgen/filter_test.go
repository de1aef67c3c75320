package taskgen

import (
	"math"
	"reflect"
	"slices"
	"testing"
	"unicode"

	"github.com/org/agentevolver"
)

func objective(query, groundTruth string, confidence *float64) agentevolver.TaskObjective {
	return agentevolver.TaskObjective{Task: agentevolver.Task{TaskID: "t", Query: query, GroundTruth: groundTruth}, Confidence: confidence}
}

func ptr(v float64) *float64 { return &v }

func TestFilterRealtime(t *testing.T) {
	tests := []struct {
		name string
		objs []agentevolver.TaskObjective
		want []string // kept queries, in order
	}{
		{"empty", nil, []string{}},
		{"confidence order, stable", []agentevolver.TaskObjective{
			objective("one", "g", ptr(0.5)), objective("two", "g", ptr(0.7)), objective("three", "g", nil), objective("four", "g", ptr(0.7)),
		}, []string{"two", "four", "one", "three"}},
		{"no ground truth dropped and not remembered", []agentevolver.TaskObjective{
			objective("book a flight to paris", "", ptr(0.9)), objective("book a flight to paris", "steps", ptr(0.5)),
		}, []string{"book a flight to paris"}},
		{"no query dropped, blank query kept", []agentevolver.TaskObjective{
			objective("", "g", ptr(0.9)), objective("  ", "g", ptr(0.8)), objective("  ", "g", ptr(0.7)), objective("ok", "g", ptr(0.1)),
		}, []string{"  ", "  ", "ok"}},
		{"near duplicates", []agentevolver.TaskObjective{
			objective("Find the song", "g", ptr(0.2)), objective("  find THE song ", "g", ptr(0.9)), objective("find the song now please", "g", ptr(0.5)),
		}, []string{"  find THE song ", "find the song now please"}},
		{"NaN confidence sorts as 0", []agentevolver.TaskObjective{
			objective("a", "g", ptr(math.NaN())), objective("b", "g", ptr(0.1)), objective("c", "g", ptr(-0.1)),
		}, []string{"b", "a", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := slices.Clone(tt.objs)
			got := FilterRealtime(tt.objs)
			queries := []string{}
			for _, o := range got {
				queries = append(queries, o.Task.Query)
			}
			if !slices.Equal(queries, tt.want) {
				t.Errorf("FilterRealtime kept %q, want %q", queries, tt.want)
			}
			if !reflect.DeepEqual(tt.objs, orig) {
				t.Error("FilterRealtime modified its argument")
			}
		})
	}
}

func TestJaccard(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
		dup  bool
	}{
		{"a b c d e", "a b c d", 0.8, true},
		{"a b c d", "a b c", 0.75, false},
		{"pay the bill", "bill the pay pay", 1, true},
		{"send email.", "send email", 1.0 / 3, false},
		{"FIND\tTHE\nSONG", "  find the song ", 1, true},
		{"a\x1cb", "a b", 1, true},    // U+001C is whitespace to Python
		{"a\u00a0b", "a b", 1, true},  // so is NO-BREAK SPACE
		{"a\u200bb", "a b", 0, false}, // ZERO WIDTH SPACE is not
		{"", "", 0, false},
		{"  ", "a", 0, false},
		{"x", "y", 0, false},
	}
	for _, tt := range tests {
		if got := Jaccard(tt.a, tt.b); got != tt.want {
			t.Errorf("Jaccard(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := NearDuplicate(tt.a, tt.b); got != tt.dup {
			t.Errorf("NearDuplicate(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.dup)
		}
	}
}

func TestIsPySpace(t *testing.T) {
	// pySpaces are the code points for which Python 3.11's str.isspace holds.
	pySpaces := []rune{0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680,
		0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
		0x2028, 0x2029, 0x202f, 0x205f, 0x3000}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if got, want := isPySpace(r), slices.Contains(pySpaces, r); got != want {
			t.Errorf("isPySpace(U+%04X) = %v, want %v", r, got, want)
		}
	}
}

func TestSelectRealtimeIneligibleNotRemembered(t *testing.T) {
	cands := []Candidate{
		{Query: "same words here", Confidence: ptr(0.9), Eligible: false},
		{Query: "same words here", Confidence: ptr(0.5), Eligible: true},
		{Query: "same words here", Confidence: ptr(0.4), Eligible: true},
	}
	if got := SelectRealtime(cands); !slices.Equal(got, []int{1}) {
		t.Errorf("SelectRealtime = %v, want [1]", got)
	}
	if got := SelectRealtime(nil); got == nil || len(got) != 0 {
		t.Errorf("SelectRealtime(nil) = %#v, want empty", got)
	}
}
