package taskgen

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/org/agentevolver"
)

// randomObjectives draws objectives from a small vocabulary, so that
// near-duplicates, confidence ties, nil confidences, blank queries and
// missing ground truths all occur.
func randomObjectives(r *rand.Rand, n int) []agentevolver.TaskObjective {
	words := []string{"pay", "Ann", "ann", "5", "dollars", "add", "contact", "Bob", "read", "file"}
	out := make([]agentevolver.TaskObjective, n)
	for i := range out {
		var q []string
		for range r.IntN(6) {
			q = append(q, words[r.IntN(len(words))])
		}
		o := agentevolver.TaskObjective{Task: agentevolver.Task{TaskID: "t", Query: strings.Join(q, " "), GroundTruth: "gt"}}
		if r.IntN(8) == 0 {
			o.Task.GroundTruth = ""
		}
		if r.IntN(10) == 0 {
			o.Task.Query = " "
		}
		if r.IntN(4) != 0 {
			c := float64(r.IntN(5)) / 4
			o.Confidence = &c
		}
		out[i] = o
	}
	return out
}

// TestMergeRealtimeIsFilterRealtime checks the incremental realtime
// filter against FilterRealtime over the whole list.
func TestMergeRealtimeIsFilterRealtime(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 3000 {
		kept := FilterRealtime(randomObjectives(r, r.IntN(30)))
		batch := randomObjectives(r, r.IntN(8))
		want := FilterRealtime(append(append([]agentevolver.TaskObjective(nil), kept...), batch...))
		got := mergeRealtime(kept, batch)
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: mergeRealtime\n%v\nFilterRealtime\n%v", trial, queries(got), queries(want))
		}
	}
}

func queries(objs []agentevolver.TaskObjective) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.Task.Query
	}
	return out
}
