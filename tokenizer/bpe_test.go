package tokenizer

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveMerge is the textbook BPE loop: merge the pair of lowest rank,
// leftmost first, until no rule applies.
func naiveMerge(m merges, sym []int32) []int32 {
	sym = slices.Clone(sym)
	for {
		best, at := uint64(noMerge), -1
		for i := 0; i+1 < len(sym); i++ {
			if v := m.lookup(sym[i], sym[i+1]); v < best {
				best, at = v, i
			}
		}
		if at < 0 {
			return sym
		}
		sym = slices.Replace(sym, at, at+2, int32(uint32(best)))
	}
}

// randomMerges builds rules over a small alphabet so that merges chain and
// tie often.
func randomMerges(r *rand.Rand, alphabet, rules int) merges {
	m := merges{}
	next := int32(alphabet)
	for rank := 0; rank < rules; rank++ {
		a, b := int32(r.IntN(int(next))), int32(r.IntN(int(next)))
		key := pairKey(a, b)
		if _, dup := m[key]; dup {
			continue
		}
		m[key] = uint64(rank)<<32 | uint64(next)
		next++
	}
	return m
}

func TestMergeStrategiesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 300; round++ {
		m := randomMerges(r, 2+r.IntN(4), 5+r.IntN(40))
		n := 1 + r.IntN(3*smallWord)
		sym := make([]int32, n)
		for i := range sym {
			sym[i] = int32(r.IntN(4))
		}
		want := naiveMerge(m, sym)
		if got := m.merge(slices.Clone(sym)); !slices.Equal(got, want) {
			t.Fatalf("merge(%v) = %v, want %v", sym, got, want)
		}
		if n >= 2 {
			if got := m.mergeLarge(slices.Clone(sym)); !slices.Equal(got, want) {
				t.Fatalf("mergeLarge(%v) = %v, want %v", sym, got, want)
			}
		}
		if n >= 2 && n <= smallWord {
			if got := m.mergeSmall(slices.Clone(sym)); !slices.Equal(got, want) {
				t.Fatalf("mergeSmall(%v) = %v, want %v", sym, got, want)
			}
		}
	}
}

func TestPairHeapOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var h pairHeap
	var all []uint64
	for i := 0; i < 500; i++ {
		v := r.Uint64N(1000)
		h.push(v)
		all = append(all, v)
	}
	slices.Sort(all)
	for i, want := range all {
		if got := h.pop(); got != want {
			t.Fatalf("pop %d = %d, want %d", i, got, want)
		}
	}
}

func TestPieceCacheBounded(t *testing.T) {
	c := newPieceCache()
	for i := 0; i < 3*cacheShards*cacheShardSize; i++ {
		c.put(string(rune(i+0x100)), []int32{int32(i)})
	}
	total := 0
	for i := range c.shards {
		total += len(c.shards[i].m)
	}
	if total > cacheShards*cacheShardSize {
		t.Errorf("cache holds %d entries, bound %d", total, cacheShards*cacheShardSize)
	}
	long := string(make([]byte, cacheMaxKey+1))
	c.put(long, []int32{1})
	if _, ok := c.get(long); ok {
		t.Error("a key over cacheMaxKey was cached")
	}
	ids := []int32{7, 8}
	c.put("k", ids)
	ids[0] = 0
	if got, _ := c.get("k"); !slices.Equal(got, []int32{7, 8}) {
		t.Errorf("cache kept a reference to the caller's slice: %v", got)
	}
}
