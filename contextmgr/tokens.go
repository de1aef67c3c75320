package contextmgr

import "slices"

// FindSublist returns the index of the first occurrence of small in big, or
// of the last occurrence when last is true, and -1 when small does not occur.
// An empty small occurs at index 0 (at len(big) when last is true).
func FindSublist(big, small []int, last bool) int {
	n := len(big) - len(small)
	if last {
		for i := n; i >= 0; i-- {
			if slices.Equal(big[i:i+len(small)], small) {
				return i
			}
		}
		return -1
	}
	for i := 0; i <= n; i++ {
		if slices.Equal(big[i:i+len(small)], small) {
			return i
		}
	}
	return -1
}

// ReplaceTokenIDs splices sampled token ids into a tokenised chat-template
// rendering (reference §3.1 replace_token_ids). placeholder is the rendering
// of a message (header, text, end-of-turn marker and template tail), begin
// the header and end the end-of-turn marker. The result keeps placeholder up
// to and including the first begin, then replaceWith (without a leading begin
// or a trailing end), then placeholder from its last end on.
//
// The index arithmetic follows the reference exactly, including Python slice
// semantics when begin or end is missing: a missing begin keeps
// len(begin)-1 leading tokens, a missing end keeps the last token.
func ReplaceTokenIDs(placeholder, replaceWith, begin, end []int) []int {
	out, _ := replaceTokenIDs(placeholder, replaceWith, nil, begin, end)
	return out
}

// replaceTokenIDs is ReplaceTokenIDs that also carries per-token
// log-probabilities of replaceWith (nil when unknown) into the result: tokens
// taken from placeholder get 0, except that an end marker stripped from the
// tail of replaceWith lends its log-probability to the end marker kept from
// placeholder, which is the same sampled token.
func replaceTokenIDs(placeholder, replaceWith []int, logProbs []float64, begin, end []int) ([]int, []float64) {
	b := FindSublist(placeholder, begin, false) + len(begin)
	e := FindSublist(placeholder, end, true)
	if logProbs != nil && len(logProbs) != len(replaceWith) {
		logProbs = nil
	}
	var endLogProbs []float64
	if tail := pySliceFrom(replaceWith, -len(end)); slices.Equal(tail, end) {
		cut := len(replaceWith) - len(tail)
		if logProbs != nil {
			endLogProbs = logProbs[cut:]
			logProbs = logProbs[:cut]
		}
		replaceWith = replaceWith[:cut]
	}
	if len(begin) <= len(replaceWith) && slices.Equal(replaceWith[:len(begin)], begin) {
		replaceWith = replaceWith[len(begin):]
		if logProbs != nil {
			logProbs = logProbs[len(begin):]
		}
	}
	head := pySliceTo(placeholder, b)
	tail := pySliceFrom(placeholder, e)
	out := make([]int, 0, len(head)+len(replaceWith)+len(tail))
	out = append(out, head...)
	out = append(out, replaceWith...)
	out = append(out, tail...)
	if logProbs == nil {
		return out, nil
	}
	lp := make([]float64, len(out))
	copy(lp[len(head):], logProbs)
	if len(endLogProbs) > 0 && len(end) > 0 && e >= 0 {
		copy(lp[len(head)+len(replaceWith):], endLogProbs)
	}
	return out, lp
}

// pySliceTo returns s[:i] with Python semantics (negative i counts from the
// end, out-of-range indices clamp).
func pySliceTo(s []int, i int) []int {
	return s[:pyIndex(len(s), i)]
}

// pySliceFrom returns s[i:] with Python semantics. Note that -0 is 0, so
// pySliceFrom(s, -0) is the whole of s, as in Python.
func pySliceFrom(s []int, i int) []int {
	return s[pyIndex(len(s), i):]
}

func pyIndex(n, i int) int {
	if i < 0 {
		i += n
	}
	return max(0, min(i, n))
}
