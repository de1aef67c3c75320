package taskgen

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/org/agentevolver"
)

// DuplicateThreshold is the Jaccard similarity of word sets at or above
// which two queries are near-duplicates.
const DuplicateThreshold = 0.8

// Candidate is what the realtime filter knows of one item: its query, its
// confidence and whether it may be kept at all.
type Candidate struct {
	// Query is compared with the queries already kept.
	Query string
	// Confidence orders the candidates, highest first; nil counts as 0.
	Confidence *float64
	// Eligible is false for an item that must be dropped whatever its
	// query (no ground truth); an ineligible item is not remembered, so it
	// makes no later item a duplicate.
	Eligible bool
}

// SelectRealtime is the realtime filter of the reference
// (NaiveTaskPostFilter, §4.6) over candidates: it orders them by
// confidence, highest first (stable: ties keep their input order; nil and
// NaN count as 0), then keeps a candidate iff it is Eligible and its query
// is not a near-duplicate (NearDuplicate) of a query kept before it. It
// returns the indices of the kept candidates in that order. A query with no
// words (empty or blank) is never a duplicate and makes nothing a
// duplicate.
func SelectRealtime(cands []Candidate) []int {
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(confidenceKey(cands[b].Confidence), confidenceKey(cands[a].Confidence))
	})
	kept := []int{}
	var seen []map[string]struct{}
	for _, i := range order {
		if !cands[i].Eligible {
			continue
		}
		words := wordSet(cands[i].Query)
		dup := false
		for _, s := range seen {
			if jaccardSets(words, s) >= DuplicateThreshold {
				dup = true
				break
			}
		}
		if !dup {
			kept = append(kept, i)
			seen = append(seen, words)
		}
	}
	return kept
}

// confidenceKey is the sort key of the reference, confidence or 0, with
// NaN (which has no place in an order) also 0.
func confidenceKey(c *float64) float64 {
	if c == nil || math.IsNaN(*c) {
		return 0
	}
	return *c
}

// FilterRealtime is the reference's realtime filter over objectives
// (NaiveTaskPostFilter, §4.6): ordered by confidence, highest first (nil =
// 0, stable), it keeps an objective iff it has a ground truth and a query
// and its query is not a near-duplicate of one kept before it. objs is not
// modified; the result holds (shallow) copies of the kept elements.
//
// Go's Task cannot tell an absent field from an empty string, which the
// reference can, so two of its cases map as follows. A ground truth that
// is empty or absent drops the objective (the reference drops "" but keeps
// None, which synthetic objectives never have). An objective without a
// query (Query == "", the reference's None) is dropped, where the
// reference fails with an assertion error and loses the whole batch. A
// blank but non-empty query is kept, as in the reference, and is never a
// duplicate. SelectRealtime states the rule on its own, for callers that
// can tell the cases apart.
func FilterRealtime(objs []agentevolver.TaskObjective) []agentevolver.TaskObjective {
	cands := make([]Candidate, len(objs))
	for i, o := range objs {
		cands[i] = Candidate{
			Query:      o.Task.Query,
			Confidence: o.Confidence,
			Eligible:   o.Task.GroundTruth != "" && o.Task.Query != "",
		}
	}
	idx := SelectRealtime(cands)
	out := make([]agentevolver.TaskObjective, len(idx))
	for k, i := range idx {
		out[k] = objs[i]
	}
	return out
}

// Jaccard returns |A∩B| / |A∪B| for the word sets A and B of a and b: each
// lower-cased and split on whitespace as Python's str.lower().strip().split()
// does, repeated words counted once. It is 0 when both have no words.
func Jaccard(a, b string) float64 { return jaccardSets(wordSet(a), wordSet(b)) }

// NearDuplicate reports whether queries a and b are near-duplicates: both
// have words and Jaccard(a, b) >= DuplicateThreshold.
func NearDuplicate(a, b string) bool {
	wa, wb := wordSet(a), wordSet(b)
	return len(wa) > 0 && len(wb) > 0 && jaccardSets(wa, wb) >= DuplicateThreshold
}

func jaccardSets(a, b map[string]struct{}) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for w := range a {
		if _, ok := b[w]; ok {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// wordSet lower-cases s and splits it on Python's whitespace (str.split()
// with no argument). Lower-casing is Go's simple Unicode case mapping,
// which differs from Python's full mapping for a handful of characters
// (U+0130 becomes "i" here, "i̇" in Python); punctuation stays part of its
// word, as in the reference.
func wordSet(s string) map[string]struct{} {
	fields := strings.FieldsFunc(strings.ToLower(s), isPySpace)
	set := make(map[string]struct{}, len(fields))
	for _, f := range fields {
		set[f] = struct{}{}
	}
	return set
}

// isPySpace reports whether Python's str.isspace holds for r: Unicode
// White_Space (unicode.IsSpace) plus the ASCII separators U+001C..U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}
