package model

import (
	"slices"
	"sort"

	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// DefaultPrefixCacheBytes is the memory bound of a Policy's prefix cache
// when PolicyOptions.PrefixCacheBytes is 0: 256 MiB, about 260,000 cached
// tokens with the built-in training shape (2 layers, 2 key-value heads of
// 32 dimensions: 1 KiB per token), the turns of a few hundred episodes. A
// token takes layers x 2 x key-value heads x head dim x 4 bytes.
const DefaultPrefixCacheBytes = 256 << 20

// rowKV is the key-value cache of one token sequence, on the host, per
// layer in the decoder's layouts: keys [KV, hd, n] and values [KV, n, hd].
type rowKV struct {
	n    int         // tokens
	k, v [][]float32 // per layer
}

// kvGeometry is the shape of a model's cache per token.
type kvGeometry struct {
	layers, kvHeads, headDim int
}

func (m *Model) kvGeometry() kvGeometry {
	return kvGeometry{layers: m.cfg.NumHiddenLayers, kvHeads: m.cfg.NumKeyValueHeads, headDim: m.cfg.HeadDim}
}

// bytesPerToken is the host memory one cached token takes.
func (g kvGeometry) bytesPerToken() int { return g.layers * 2 * g.kvHeads * g.headDim * 4 }

// newRowKV returns a zeroed cache of n tokens.
func (g kvGeometry) newRowKV(n int) *rowKV {
	r := &rowKV{n: n, k: make([][]float32, g.layers), v: make([][]float32, g.layers)}
	for l := range g.layers {
		r.k[l] = make([]float32, g.kvHeads*g.headDim*n)
		r.v[l] = make([]float32, g.kvHeads*n*g.headDim)
	}
	return r
}

// fillKeys writes keys laid out [KV, hd, dstCols]: the first n columns of
// src (laid out [KV, hd, srcCols]), then zeros. It fills a row of a cache
// block, whose data start uninitialised (newBlock) and whose columns after
// the row's tokens must be zero (decode steps add the new keys into them),
// and takes a row out of a block into a cache of exactly n tokens.
func (g kvGeometry) fillKeys(dst []float32, dstCols int, src []float32, srcCols, n int) {
	for r := range g.kvHeads * g.headDim {
		d := dst[r*dstCols : (r+1)*dstCols]
		copy(d[:n], src[r*srcCols:r*srcCols+n])
		clear(d[n:])
	}
}

// fillValues is fillKeys for values laid out [KV, cols, hd].
func (g kvGeometry) fillValues(dst []float32, dstCols int, src []float32, srcCols, n int) {
	hd := g.headDim
	for h := range g.kvHeads {
		d := dst[h*dstCols*hd : (h+1)*dstCols*hd]
		copy(d[:n*hd], src[h*srcCols*hd:(h*srcCols+n)*hd])
		clear(d[n*hd:])
	}
}

// prefixEntry is one cached token sequence.
type prefixEntry struct {
	ids     []int
	kv      *rowKV
	lastUse uint64
	added   uint64 // the clock when it was cached: ties go to the oldest
}

// prefixCache keeps the key-value caches of recent token sequences (the
// prompts and answers of running episodes) so that a later prompt starting
// with one of them (the episode's next turn, a sibling rollout's identical
// first prompt) prefills only what follows. Caches depend on the weights:
// they are dropped when the model's variables change. Entries are evicted,
// least recently used first, to keep the cached tokens under maxBytes. It
// is used by the Policy's batch loop only, so it has no lock.
//
// Entries are kept sorted by their ids, lexicographically, so that a
// lookup is two binary searches, O(log entries x prompt length), instead
// of a common-prefix scan of every entry: at the default bound a cache
// holds hundreds of entries of a few hundred tokens. No entry is a prefix
// of another (add keeps the longer one).
type prefixCache struct {
	geo      kvGeometry
	maxBytes int // <= 0: disabled
	bytes    int
	clock    uint64
	entries  []*prefixEntry    // sorted by ids
	weights  []*tensors.Tensor // the variable values the entries were computed with

	hits, lookups, hitTokens int // statistics, for tests and benchmarks
}

// longest returns the entry sharing the longest prefix with ids, and that
// length, at most limit. Of several entries sharing as much, it returns
// the one cached first.
func (c *prefixCache) longest(ids []int, limit int) (*prefixEntry, int) {
	if c.maxBytes <= 0 {
		return nil, 0
	}
	c.lookups++
	// The entries sharing the most with ids are next to where ids would
	// be inserted: sorted, the common prefix with ids grows towards that
	// place from both sides.
	at, _ := c.search(ids)
	n := 0
	if at > 0 {
		n = commonPrefix(c.entries[at-1].ids, ids, limit)
	}
	if at < len(c.entries) {
		n = max(n, commonPrefix(c.entries[at].ids, ids, limit))
	}
	if n == 0 {
		return nil, 0
	}
	best := c.oldest(c.sharing(ids[:n]))
	c.clock++
	best.lastUse = c.clock
	c.hits++
	c.hitTokens += n
	return best, n
}

// search returns where ids belong in the sorted entries, and whether an
// entry holds exactly ids.
func (c *prefixCache) search(ids []int) (int, bool) {
	return slices.BinarySearchFunc(c.entries, ids, func(e *prefixEntry, ids []int) int { return slices.Compare(e.ids, ids) })
}

// sharing returns the entries starting with prefix: a run of the sorted
// entries.
func (c *prefixCache) sharing(prefix []int) []*prefixEntry {
	lo, _ := c.search(prefix)
	hi := lo + sort.Search(len(c.entries)-lo, func(i int) bool {
		e := c.entries[lo+i].ids
		return slices.Compare(e[:min(len(e), len(prefix))], prefix) > 0
	})
	return c.entries[lo:hi]
}

// oldest returns the entry of es cached first.
func (c *prefixCache) oldest(es []*prefixEntry) *prefixEntry {
	best := es[0]
	for _, e := range es[1:] {
		if e.added < best.added {
			best = e
		}
	}
	return best
}

// commonPrefix is the length of the common prefix of a and b, at most
// limit.
func commonPrefix(a, b []int, limit int) int {
	n := min(len(a), len(b), limit)
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// add caches kv for ids (taking ownership of both). An entry whose ids are
// a prefix of ids is replaced (the next turn supersedes the last); if ids
// are a prefix of an entry, nothing is added.
func (c *prefixCache) add(ids []int, kv *rowKV) {
	if c.maxBytes <= 0 || len(ids) == 0 {
		return
	}
	size := len(ids) * c.geo.bytesPerToken()
	if size > c.maxBytes {
		return
	}
	c.clock++
	if longer := c.sharing(ids); len(longer) > 0 { // already cached, perhaps as part of a longer one
		c.oldest(longer).lastUse = c.clock
		return
	}
	at, _ := c.search(ids)
	// An entry that is a prefix of ids sorts right before it: an entry in
	// between would start with that prefix too, and none is a prefix of
	// another.
	if at > 0 {
		if e := c.entries[at-1]; commonPrefix(e.ids, ids, len(ids)) == len(e.ids) {
			c.bytes -= len(e.ids) * c.geo.bytesPerToken()
			at--
			c.entries = slices.Delete(c.entries, at, at+1)
		}
	}
	c.entries = slices.Insert(c.entries, at, &prefixEntry{ids: ids, kv: kv, lastUse: c.clock, added: c.clock})
	c.bytes += size
	for c.bytes > c.maxBytes {
		oldest := 0
		for i, e := range c.entries {
			if e.lastUse < c.entries[oldest].lastUse {
				oldest = i
			}
		}
		c.bytes -= len(c.entries[oldest].ids) * c.geo.bytesPerToken()
		c.entries = slices.Delete(c.entries, oldest, oldest+1)
	}
}

// checkWeights drops every entry when the model's variables are not the
// ones the entries were computed with (a training step, new LoRA adapters
// or a checkpoint load replaced or added some). Callers hold m.mu.
func (c *prefixCache) checkWeights(m *Model) {
	if c.maxBytes <= 0 {
		return
	}
	now := m.variableValues()
	same := len(now) == len(c.weights)
	for i := 0; same && i < len(now); i++ {
		same = now[i] == c.weights[i]
	}
	if !same {
		c.entries, c.bytes, c.weights = nil, 0, now
	}
}

// variableValues returns the current value of every variable of the
// model's context (weights, LoRA adapters, anything a trainer keeps there):
// an update or a checkpoint load replaces them with new tensors. Callers
// hold m.mu.
func (m *Model) variableValues() []*tensors.Tensor {
	var out []*tensors.Tensor
	for v := range m.vars.IterVariables() {
		t, _ := v.Value()
		out = append(out, t)
	}
	return out
}

// countVariables returns how many variables the model's context holds.
// Callers hold m.mu.
func (m *Model) countVariables() int {
	n := 0
	for range m.vars.IterVariables() {
		n++
	}
	return n
}
