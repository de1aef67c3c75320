package tokenizer

import (
	"hash/maphash"
	"strings"
	"sync"
)

// Bounds of the pre-token cache: pre-tokens up to cacheMaxKey bytes are
// cached, at most cacheShards*cacheShardSize of them.
const (
	cacheShards    = 32
	cacheShardSize = 2048
	cacheMaxKey    = 128
)

// pieceCache remembers the ids of recently seen pre-tokens. It is safe for
// concurrent use; each shard has its own lock and, when full, forgets an
// arbitrary entry to make room.
type pieceCache struct {
	seed   maphash.Seed
	shards [cacheShards]cacheShard
}

type cacheShard struct {
	mu sync.RWMutex
	m  map[string][]int32
}

func newPieceCache() *pieceCache {
	c := &pieceCache{seed: maphash.MakeSeed()}
	for i := range c.shards {
		c.shards[i].m = make(map[string][]int32)
	}
	return c
}

func (c *pieceCache) shard(key string) *cacheShard {
	return &c.shards[maphash.String(c.seed, key)%cacheShards]
}

// get returns the cached ids of key; the slice must not be modified.
func (c *pieceCache) get(key string) ([]int32, bool) {
	s := c.shard(key)
	s.mu.RLock()
	ids, ok := s.m[key]
	s.mu.RUnlock()
	return ids, ok
}

// put stores a copy of ids under key when key is short enough.
func (c *pieceCache) put(key string, ids []int32) {
	if len(key) > cacheMaxKey {
		return
	}
	// Clone the key so the cache never pins a caller's large input.
	key = strings.Clone(key)
	ids = append([]int32(nil), ids...)
	s := c.shard(key)
	s.mu.Lock()
	if len(s.m) >= cacheShardSize {
		for k := range s.m {
			delete(s.m, k)
			break
		}
	}
	s.m[key] = ids
	s.mu.Unlock()
}
