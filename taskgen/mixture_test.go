package taskgen

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/org/agentevolver"
)

func tasks(prefix string, n int) []agentevolver.Task {
	out := make([]agentevolver.Task, n)
	for i := range out {
		out[i] = agentevolver.Task{TaskID: fmt.Sprintf("%s%d", prefix, i), Metadata: map[string]any{"list": []any{"x"}}}
	}
	return out
}

func ids(ts []agentevolver.Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.TaskID
	}
	return out
}

func count(ts []agentevolver.Task, prefix string) int {
	n := 0
	for _, t := range ts {
		if strings.HasPrefix(t.TaskID, prefix) {
			n++
		}
	}
	return n
}

func seed(v int64) *int64 { return &v }

func TestUnifiedMixtureCounts(t *testing.T) {
	tests := []struct {
		name                   string
		s                      UnifiedMixtureStrategy
		nSyn, nOrig            int
		wantOrig, wantSyn      int
		wantNeedSynth, wantLog bool
	}{
		{"zero value", UnifiedMixtureStrategy{}, 5, 4, 0, 0, false, false},
		{"original only", UnifiedMixtureStrategy{UseOriginal: true}, 5, 4, 4, 0, false, false},
		{"synthetic as many as originals", UnifiedMixtureStrategy{SyntheticRatio: 1}, 10, 4, 0, 4, true, false},
		{"originals plus half", UnifiedMixtureStrategy{UseOriginal: true, SyntheticRatio: 0.5}, 10, 4, 4, 2, true, false},
		{"int truncates", UnifiedMixtureStrategy{UseOriginal: true, SyntheticRatio: 0.6}, 10, 4, 4, 2, true, false}, // int(2.4)
		{"ratio above 1", UnifiedMixtureStrategy{SyntheticRatio: 2}, 10, 4, 0, 8, true, false},
		{"not enough synthetic", UnifiedMixtureStrategy{UseOriginal: true, SyntheticRatio: 3}, 10, 4, 4, 10, true, true},
		{"reference's all-synthetic", UnifiedMixtureStrategy{SyntheticRatio: 999999}, 10, 4, 0, 10, true, true},
		{"infinite ratio", UnifiedMixtureStrategy{SyntheticRatio: math.Inf(1)}, 10, 4, 0, 10, true, true},
		{"relative to originals even when unused, none", UnifiedMixtureStrategy{SyntheticRatio: 1}, 10, 0, 0, 0, true, false},
		{"small ratio rounds to none", UnifiedMixtureStrategy{UseOriginal: true, SyntheticRatio: 0.1}, 10, 4, 4, 0, true, false},
		{"no synthetic at all", UnifiedMixtureStrategy{UseOriginal: true, SyntheticRatio: 1}, 0, 4, 4, 0, true, true},
	}
	for _, tt := range tests {
		for _, shuffle := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/shuffle=%v", tt.name, shuffle), func(t *testing.T) {
				var logs bytes.Buffer
				s := tt.s
				s.Shuffle, s.Seed = shuffle, seed(7)
				s.Logger = slog.New(slog.NewTextHandler(&logs, nil))
				syn, orig := tasks("s", tt.nSyn), tasks("o", tt.nOrig)
				got, err := s.Mix(syn, orig)
				if err != nil {
					t.Fatal(err)
				}
				if got == nil || count(got, "o") != tt.wantOrig || count(got, "s") != tt.wantSyn || len(got) != tt.wantOrig+tt.wantSyn {
					t.Errorf("mixture %v: want %d original + %d synthetic", ids(got), tt.wantOrig, tt.wantSyn)
				}
				if s.NeedSynthetic() != tt.wantNeedSynth {
					t.Errorf("NeedSynthetic = %v", s.NeedSynthetic())
				}
				if warned := strings.Contains(logs.String(), "not enough synthetic"); warned != tt.wantLog {
					t.Errorf("warning logged = %v, want %v: %s", warned, tt.wantLog, logs.String())
				}
				// Distinct tasks: a sample never repeats one.
				seen := map[string]bool{}
				for _, id := range ids(got) {
					if seen[id] {
						t.Errorf("task %s twice", id)
					}
					seen[id] = true
				}
			})
		}
	}
}

func TestUnifiedMixtureOrder(t *testing.T) {
	syn, orig := tasks("s", 6), tasks("o", 3)
	// Without shuffling: originals in order, then synthetic ones (all of
	// them, in order, when there are too few).
	got, _ := UnifiedMixtureStrategy{UseOriginal: true, SyntheticRatio: 5}.Mix(syn, orig)
	if want := []string{"o0", "o1", "o2", "s0", "s1", "s2", "s3", "s4", "s5"}; !slices.Equal(ids(got), want) {
		t.Errorf("mixture %v, want %v", ids(got), want)
	}
	got, _ = UnifiedMixtureStrategy{UseOriginal: true, SyntheticRatio: 1, Seed: seed(1)}.Mix(syn, orig)
	if !slices.Equal(ids(got)[:3], []string{"o0", "o1", "o2"}) {
		t.Errorf("originals not first without shuffle: %v", ids(got))
	}
}

func TestUnifiedMixtureDeterminism(t *testing.T) {
	syn, orig := tasks("s", 50), tasks("o", 20)
	mix := func(s *int64) []string {
		got, err := UnifiedMixtureStrategy{UseOriginal: true, SyntheticRatio: 1, Shuffle: true, Seed: s}.Mix(syn, orig)
		if err != nil {
			t.Fatal(err)
		}
		return ids(got)
	}
	a, b := mix(seed(42)), mix(seed(42))
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different mixtures:\n%v\n%v", a, b)
	}
	if slices.Equal(a, mix(seed(43))) {
		t.Error("seeds 42 and 43 give the same mixture")
	}
	if slices.Equal(mix(nil), mix(nil)) && slices.Equal(mix(nil), mix(nil)) {
		t.Error("unseeded mixtures repeat")
	}
	sorted := slices.Clone(a)
	slices.Sort(sorted)
	if slices.Equal(a, sorted) {
		t.Error("shuffled mixture is sorted")
	}
	// The sample is a pure function of the seed: pin it, so that a change
	// in the sampling shows up here.
	got, _ := UnifiedMixtureStrategy{SyntheticRatio: 0.5, Seed: seed(42)}.Mix(tasks("s", 10), tasks("o", 8))
	if pinned := []string{"s3", "s8", "s7", "s0"}; !slices.Equal(ids(got), pinned) {
		t.Logf("seed 42 sample = %q (pinned %q)", ids(got), pinned)
		t.Error("the seeded sample changed")
	}
}

func TestUnifiedMixtureRatioValidation(t *testing.T) {
	for _, r := range []float64{-0.5, -1e-300, math.Inf(-1), math.NaN()} {
		s := UnifiedMixtureStrategy{UseOriginal: true, SyntheticRatio: r}
		got, err := s.Mix(tasks("s", 3), tasks("o", 3))
		if !errors.Is(err, ErrInvalidRatio) || got != nil {
			t.Errorf("ratio %v: %v, %v; want ErrInvalidRatio", r, got, err)
		}
		if s.NeedSynthetic() {
			t.Errorf("ratio %v: NeedSynthetic", r)
		}
	}
}

func TestMixtureDeepCopies(t *testing.T) {
	strategies := map[string]MixtureStrategy{
		"unified":       UnifiedMixtureStrategy{UseOriginal: true, SyntheticRatio: 1, Shuffle: true, Seed: seed(3)},
		"all synthetic": UnifiedMixtureStrategy{UseOriginal: true, SyntheticRatio: 10},
		"original only": OriginalOnlyStrategy{Shuffle: true, Seed: seed(3)},
	}
	for name, s := range strategies {
		syn, orig := tasks("s", 4), tasks("o", 4)
		synCopy, origCopy := tasks("s", 4), tasks("o", 4)
		got, err := s.Mix(syn, orig)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			got[i].Metadata["list"].([]any)[0] = "changed"
			got[i].Metadata["new"] = 1
			got[i].Query = "changed"
		}
		if !reflect.DeepEqual(syn, synCopy) || !reflect.DeepEqual(orig, origCopy) {
			t.Errorf("%s: the mixture shares state with its inputs", name)
		}
	}
}

func TestOriginalOnlyStrategy(t *testing.T) {
	syn, orig := tasks("s", 5), tasks("o", 5)
	s := OriginalOnlyStrategy{}
	got, err := s.Mix(syn, orig)
	if err != nil || !slices.Equal(ids(got), ids(orig)) || s.NeedSynthetic() {
		t.Errorf("OriginalOnlyStrategy{} = %v, %v", ids(got), err)
	}
	a, _ := OriginalOnlyStrategy{Shuffle: true, Seed: seed(5)}.Mix(nil, tasks("o", 30))
	b, _ := OriginalOnlyStrategy{Shuffle: true, Seed: seed(5)}.Mix(nil, tasks("o", 30))
	if !slices.Equal(ids(a), ids(b)) || count(a, "o") != 30 {
		t.Errorf("seeded shuffles differ or lose tasks: %v %v", ids(a), ids(b))
	}
	if got, _ := s.Mix(nil, nil); got == nil || len(got) != 0 {
		t.Errorf("empty mixture %#v", got)
	}
}
