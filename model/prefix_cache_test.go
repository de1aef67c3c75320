package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// linearCache is the prefix cache as it was before its entries were
// sorted: a common-prefix scan of entries kept in the order they were
// cached. TestPrefixCacheMatchesLinearScan holds the sorted cache to it.
type linearCache struct {
	maxBytes, bytes, per int
	clock                uint64
	entries              []*prefixEntry
}

func (c *linearCache) longest(ids []int, limit int) (*prefixEntry, int) {
	var best *prefixEntry
	bestN := 0
	for _, e := range c.entries {
		if n := commonPrefix(e.ids, ids, limit); n > bestN {
			best, bestN = e, n
		}
	}
	if best != nil {
		c.clock++
		best.lastUse = c.clock
	}
	return best, bestN
}

func (c *linearCache) add(ids []int, kv *rowKV) {
	size := len(ids) * c.per
	if size > c.maxBytes {
		return
	}
	c.clock++
	kept := c.entries[:0]
	for _, e := range c.entries {
		switch n := commonPrefix(e.ids, ids, len(ids)); {
		case n == len(ids):
			e.lastUse = c.clock
			return
		case n == len(e.ids):
			c.bytes -= len(e.ids) * c.per
			continue
		}
		kept = append(kept, e)
	}
	c.entries = append(kept, &prefixEntry{ids: ids, kv: kv, lastUse: c.clock})
	c.bytes += size
	for c.bytes > c.maxBytes {
		oldest := 0
		for i, e := range c.entries {
			if e.lastUse < c.entries[oldest].lastUse {
				oldest = i
			}
		}
		c.bytes -= len(c.entries[oldest].ids) * c.per
		c.entries = append(c.entries[:oldest], c.entries[oldest+1:]...)
	}
}

// TestPrefixCacheMatchesLinearScan runs random adds and lookups over a
// three-token alphabet (so that prefixes, supersessions, ties and
// evictions are frequent) on the sorted cache and on a linear scan: every
// lookup finds the same entry (the same cached keys and values) and
// length, and both hold the same entries, bytes and use times throughout.
func TestPrefixCacheMatchesLinearScan(t *testing.T) {
	geo := kvGeometry{layers: 1, kvHeads: 1, headDim: 1}
	per := geo.bytesPerToken()
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		bound := (8 + rng.IntN(40)) * per
		sorted := prefixCache{geo: geo, maxBytes: bound}
		linear := linearCache{maxBytes: bound, per: per}
		seq := func() []int {
			ids := make([]int, 1+rng.IntN(9))
			for i := range ids {
				ids[i] = rng.IntN(3)
			}
			return ids
		}
		for op := range 2000 {
			where := fmt.Sprintf("seed %d, op %d", seed, op)
			if rng.IntN(2) == 0 {
				ids := seq()
				kv := geo.newRowKV(len(ids))
				sorted.add(ids, kv)
				linear.add(slices.Clone(ids), kv)
			} else {
				ids, limit := seq(), rng.IntN(11)
				e1, n1 := sorted.longest(ids, limit)
				e2, n2 := linear.longest(ids, limit)
				if n1 != n2 || (e1 == nil) != (e2 == nil) || (e1 != nil && e1.kv != e2.kv) {
					t.Fatalf("%s: longest(%v, %d) = %v, %d; linear scan %v, %d", where, ids, limit, e1, n1, e2, n2)
				}
			}
			if sorted.bytes != linear.bytes || len(sorted.entries) != len(linear.entries) {
				t.Fatalf("%s: %d entries, %d bytes; linear scan %d, %d", where, len(sorted.entries), sorted.bytes, len(linear.entries), linear.bytes)
			}
			for _, e := range linear.entries {
				at, found := sorted.search(e.ids)
				if !found || sorted.entries[at].kv != e.kv || sorted.entries[at].lastUse != e.lastUse {
					t.Fatalf("%s: entry %v (used %d) differs or is missing", where, e.ids, e.lastUse)
				}
			}
			if !slices.IsSortedFunc(sorted.entries, func(a, b *prefixEntry) int { return slices.Compare(a.ids, b.ids) }) {
				t.Fatalf("%s: entries out of order", where)
			}
		}
	}
}

// BenchmarkPrefixCacheLookup looks up a next turn's prompt in a cache at
// the default bound's size for the built-in shape: 850 entries of 300
// tokens that share a 100-token system prompt.
func BenchmarkPrefixCacheLookup(b *testing.B) {
	geo := kvGeometry{layers: 1, kvHeads: 1, headDim: 1}
	c := prefixCache{geo: geo, maxBytes: 1 << 40}
	rng := rand.New(rand.NewPCG(1, 2))
	system := make([]int, 100)
	for i := range system {
		system[i] = rng.IntN(1024)
	}
	var prompts [][]int
	for range 850 {
		ids := slices.Clone(system)
		for range 200 {
			ids = append(ids, rng.IntN(1024))
		}
		prompts = append(prompts, ids)
		c.add(ids, nil)
	}
	next := append(slices.Clone(prompts[425]), 5, 6, 7)
	for b.Loop() {
		if _, n := c.longest(next, len(next)-1); n != 300 {
			b.Fatal(n)
		}
	}
}
