package tokenizer

import "math"

// noMerge marks a pair of symbols that no merge rule joins.
const noMerge = math.MaxUint64

// smallWord is the symbol count up to which a pre-token is merged with
// quadratic rescans of a small array; longer ones use a heap.
const smallWord = 48

// merges holds the BPE merge rules keyed by the pair of symbol ids. A value
// packs the rule's rank (its priority, lower first) in the high 32 bits and
// the id of the merged symbol in the low 32 bits, so that comparing values
// compares ranks.
type merges map[uint64]uint64

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

func (m merges) lookup(a, b int32) uint64 {
	if v, ok := m[pairKey(a, b)]; ok {
		return v
	}
	return noMerge
}

// merge applies the rules to the symbols of one pre-token, in place, and
// returns the merged symbols: always the pair of lowest rank first and,
// among equal ranks, the leftmost, as the Hugging Face implementation does.
func (m merges) merge(sym []int32) []int32 {
	switch {
	case len(sym) < 2:
		return sym
	case len(sym) <= smallWord:
		return m.mergeSmall(sym)
	}
	return m.mergeLarge(sym)
}

func (m merges) mergeSmall(sym []int32) []int32 {
	var buf [smallWord]uint64
	rank := buf[:len(sym)-1]
	for i := range rank {
		rank[i] = m.lookup(sym[i], sym[i+1])
	}
	for len(rank) > 0 {
		best, at := uint64(noMerge), -1
		for i, r := range rank {
			if r < best {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		sym[at] = int32(uint32(best))
		copy(sym[at+1:], sym[at+2:])
		sym = sym[:len(sym)-1]
		copy(rank[at:], rank[at+1:])
		rank = rank[:len(rank)-1]
		if at > 0 {
			rank[at-1] = m.lookup(sym[at-1], sym[at])
		}
		if at < len(rank) {
			rank[at] = m.lookup(sym[at], sym[at+1])
		}
	}
	return sym
}

// mergeLarge keeps the symbols in a linked list and the candidate pairs in a
// min-heap of rank<<32|position; entries made stale by earlier merges are
// recognised and dropped when popped.
func (m merges) mergeLarge(sym []int32) []int32 {
	n := len(sym)
	prev := make([]int32, n)
	next := make([]int32, n)
	alive := make([]bool, n)
	h := make(pairHeap, 0, n)
	for i := range sym {
		prev[i], next[i], alive[i] = int32(i-1), int32(i+1), true
		if i+1 < n {
			if v := m.lookup(sym[i], sym[i+1]); v != noMerge {
				h.push(v>>32<<32 | uint64(i))
			}
		}
	}
	next[n-1] = -1
	for len(h) > 0 {
		top := h.pop()
		rank, at := top>>32, int32(uint32(top))
		if !alive[at] || next[at] < 0 {
			continue
		}
		right := next[at]
		v := m.lookup(sym[at], sym[right])
		if v == noMerge || v>>32 != rank {
			continue // the pair changed since this entry was pushed
		}
		sym[at] = int32(uint32(v))
		alive[right] = false
		next[at] = next[right]
		if next[at] >= 0 {
			prev[next[at]] = at
			if w := m.lookup(sym[at], sym[next[at]]); w != noMerge {
				h.push(w>>32<<32 | uint64(at))
			}
		}
		if p := prev[at]; p >= 0 {
			if w := m.lookup(sym[p], sym[at]); w != noMerge {
				h.push(w>>32<<32 | uint64(p))
			}
		}
	}
	out := sym[:0]
	for i := int32(0); i >= 0; i = next[i] {
		out = append(out, sym[i])
	}
	return out
}

// pairHeap is a binary min-heap of packed rank<<32|position values; ties in
// rank go to the leftmost position.
type pairHeap []uint64

func (h *pairHeap) push(v uint64) {
	*h = append(*h, v)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p] <= s[i] {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *pairHeap) pop() uint64 {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, r, small := 2*i+1, 2*i+2, i
		if l < len(s) && s[l] < s[small] {
			small = l
		}
		if r < len(s) && s[r] < s[small] {
			small = r
		}
		if small == i {
			break
		}
		s[i], s[small] = s[small], s[i]
		i = small
	}
	*h = s
	return top
}
