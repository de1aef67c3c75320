package taskgen

import (
	"slices"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/internal/golden"
)

const dedupFile = "task_dedup_filter.json"

// fixtureTask is one input of the fixture: query and ground truth may be
// null (None), which Go's Task cannot tell from "".
type fixtureTask struct {
	Query       *string  `json:"query"`
	Confidence  *float64 `json:"confidence"`
	GroundTruth *string  `json:"ground_truth"`
}

func loadDedupCase(t *testing.T, c golden.Case) (in []fixtureTask, kept []fixtureTask, keptIdx []int) {
	t.Helper()
	c.Input(t, "tasks", &in)
	if isErr, _ := c.IsError(); !isErr {
		c.Output(t, "kept", &kept)
		c.Output(t, "kept_indices", &keptIdx)
	}
	return in, kept, keptIdx
}

func checkKept(t *testing.T, name string, in []fixtureTask, got []int, wantIdx []int, wantKept []fixtureTask) {
	t.Helper()
	if !slices.Equal(got, wantIdx) {
		t.Errorf("%s: kept indices %v, want %v", name, got, wantIdx)
		return
	}
	for k, i := range got {
		g, w := in[i], wantKept[k]
		if !samePtr(g.Query, w.Query) || !samePtr(g.Confidence, w.Confidence) || !samePtr(g.GroundTruth, w.GroundTruth) {
			t.Errorf("%s: kept[%d] = %+v, want %+v", name, k, g, w)
		}
	}
}

func samePtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// TestGoldenSelectRealtime checks the filter's rule, SelectRealtime, against
// every case of the original NaiveTaskPostFilter, with the reference's own
// notion of eligibility (a ground truth other than ""; None is eligible).
// An error case (the reference's AssertionError on a None query) maps to
// how this package handles a task without a query: it is not eligible, so
// it is dropped and the others are filtered as usual (checkNullQueries).
// Cases are told apart by their content, never by name, so that another
// fixture set runs too.
func TestGoldenSelectRealtime(t *testing.T) {
	f := golden.Load(t, dedupFile)
	for _, c := range f.Cases {
		in, wantKept, wantIdx := loadDedupCase(t, c)
		cands := referenceCandidates(in)
		got := SelectRealtime(cands)
		if isErr, typ := c.IsError(); isErr {
			checkNullQueries(t, c.Name, typ, in, cands, got)
			continue
		}
		checkKept(t, c.Name, in, got, wantIdx, wantKept)
	}
	t.Logf("golden %s: %d cases", dedupFile, len(f.Cases))
}

// referenceCandidates are the fixture's tasks as the reference sees them:
// a None ground truth is eligible, "" is not; a None query (on which the
// reference fails) is not eligible.
func referenceCandidates(in []fixtureTask) []Candidate {
	cands := make([]Candidate, len(in))
	for i, x := range in {
		cands[i] = Candidate{Confidence: x.Confidence, Eligible: x.GroundTruth == nil || *x.GroundTruth != ""}
		if x.Query == nil {
			cands[i].Eligible = false
		} else {
			cands[i].Query = *x.Query
		}
	}
	return cands
}

// checkNullQueries checks an error case of the fixture: the reference
// failed with an AssertionError because a query was None. Here the tasks
// without a query are dropped and the others filtered as if they were
// alone: got (the kept indices of in) must be what SelectRealtime keeps of
// the tasks that have a query.
func checkNullQueries(t *testing.T, name, typ string, in []fixtureTask, cands []Candidate, got []int) {
	t.Helper()
	var rest []Candidate
	var index []int
	for i, x := range in {
		if x.Query != nil {
			rest = append(rest, cands[i])
			index = append(index, i)
		}
	}
	if typ != "AssertionError" || len(rest) == len(in) {
		t.Fatalf("%s: error case %s without a null query: no mapping is documented for it", name, typ)
	}
	var want []int
	for _, k := range SelectRealtime(rest) {
		want = append(want, index[k])
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: kept %v, want %v (the tasks without a query dropped, the others filtered alone)", name, got, want)
	}
}

// TestGoldenFilterRealtime checks FilterRealtime itself on every case of
// the fixture that Go's Task can represent; an error case (a None query)
// checks the documented mapping (the tasks without a query are dropped
// instead of failing the batch). The cases Go's Task cannot represent are
// skipped by that property (unrepresentable), whatever their names, and
// TestGoldenSelectRealtime checks the rule on them.
func TestGoldenFilterRealtime(t *testing.T) {
	f := golden.Load(t, dedupFile)
	checked := 0
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			in, wantKept, wantIdx := loadDedupCase(t, c)
			isErr, typ := c.IsError()
			if reason := unrepresentable(in); reason != "" {
				t.Skip(reason)
			}
			objs := make([]agentevolver.TaskObjective, len(in))
			for i, x := range in {
				objs[i].Task.TaskID = string(rune('a' + i))
				objs[i].Confidence = x.Confidence
				if x.Query != nil {
					objs[i].Task.Query = *x.Query
				}
				if x.GroundTruth != nil {
					objs[i].Task.GroundTruth = *x.GroundTruth
				}
			}
			got := FilterRealtime(objs)
			idx := make([]int, len(got))
			for k, o := range got {
				idx[k] = int(o.Task.TaskID[0] - 'a')
			}
			if isErr {
				checkNullQueries(t, c.Name, typ, in, referenceCandidates(in), idx)
			} else {
				checkKept(t, c.Name, in, idx, wantIdx, wantKept)
			}
			checked++
		})
	}
	t.Logf("golden %s: %d cases, %d checked on FilterRealtime, %d skipped as unrepresentable", dedupFile, len(f.Cases), checked, len(f.Cases)-checked)
}

// unrepresentable says why a fixture input cannot be reproduced with Go's
// Task, which keeps Query and GroundTruth as plain strings in which null
// and "" are the same value, or returns "" when it can: a null ground
// truth (kept by the reference) is "" in Go, which FilterRealtime drops; a
// query "" (a real empty string, kept by the reference) means no query in
// Go, which FilterRealtime drops. A null query is the reference's error
// case, mapped by checkNullQueries.
func unrepresentable(in []fixtureTask) string {
	for _, x := range in {
		switch {
		case x.GroundTruth == nil:
			return "a null ground truth (kept by the reference) is \"\" in Go, which FilterRealtime drops"
		case x.Query != nil && *x.Query == "":
			return "query \"\" (a real empty string, kept by the reference) means no query in Go, which FilterRealtime drops"
		}
	}
	return ""
}

// TestGoldenRealtimeRenamed runs both realtime-filter golden tests on the
// fixture with every case renamed: they must tell cases apart by content.
func TestGoldenRealtimeRenamed(t *testing.T) {
	golden.Renamed(t, []string{dedupFile}, nil)
	t.Run("SelectRealtime", TestGoldenSelectRealtime)
	t.Run("FilterRealtime", TestGoldenFilterRealtime)
}
