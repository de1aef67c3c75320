package gobackend

import (
	"math/bits"
	"sync"
	"weak"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
)

// Buffer pools.
//
// Every buffer an execution needs (intermediates and outputs) comes from the
// backend's pools (getBuffer), and intermediates go back (putBuffer) as soon
// as their last consumer has run; outputs go back when the caller finalizes
// or donates them.
//
// Upstream simplego keeps the idle buffers in one sync.Pool per exact
// (dtype, length). That costs a lot of memory on a training job whose graphs
// run on many padded shapes (batch, prompt and cache buckets, each shape
// with its own set of intermediate sizes): a buffer can only serve its own
// length, so each new shape allocates a working set of its own, and a
// sync.Pool keeps what it holds alive until the second collection after it
// was last put back. The idle sets of all recent shapes are then live heap
// for the GC, whose heap goal (twice the live heap) grows with them;
// collections get rarer and still more idle sets pile up. Without a memory
// limit the default train job reached ~6 GB resident for a peak working
// set of ~0.9 GB.
//
// So here:
//
//   - A pool holds its idle buffers through weak pointers: a buffer put back
//     can be taken again until the next collection reclaims it, but the pool
//     alone does not keep it alive. Idle buffers are never live heap, so they
//     do not raise the GC's heap goal; only the buffers of executions in
//     flight (and the caller's outputs) do.
//   - Pools are per size class instead of per length (bufferSizeClass):
//     a buffer's backing array is allocated with the capacity of its class
//     and re-sliced to each request's length, so buffers of nearby lengths
//     are interchangeable.
//
// The price is that buffers idle at a collection are freed, and the next
// execution that needs them allocates them anew: on the default train job
// collections are about twice as frequent and allocation plus collection
// take ~6% of the CPU time instead of ~3.5%, while the peak heap stays near
// twice the working set.
//
// Which buffer a request gets never changes results: executors overwrite
// (or explicitly zero) their outputs, as they already had to with reused
// buffers.

// bufferPoolKey identifies one pool.
type bufferPoolKey struct {
	dtype dtypes.DType
	// class is the capacity, in elements, of the pool's buffers.
	class int
}

// bufferPool holds idle buffers of one dtype and size class, the most
// recently returned last (taken first: its memory is the likeliest to be in
// cache).
type bufferPool struct {
	mu   sync.Mutex
	idle []weak.Pointer[Buffer]
}

// get takes an idle buffer, or returns nil if none is left. Entries whose
// buffer has been collected are dropped on the way.
func (p *bufferPool) get() *Buffer {
	p.mu.Lock()
	defer p.mu.Unlock()
	for n := len(p.idle); n > 0; n-- {
		buf := p.idle[n-1].Value()
		p.idle[n-1] = weak.Pointer[Buffer]{}
		p.idle = p.idle[:n-1]
		if buf != nil {
			return buf
		}
	}
	return nil
}

// put adds buf to the idle buffers.
func (p *bufferPool) put(buf *Buffer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) == cap(p.idle) {
		// Before growing, drop the entries of collected buffers, so a pool
		// that is put to more than taken from stays bounded.
		live := p.idle[:0]
		for _, wp := range p.idle {
			if wp.Value() != nil {
				live = append(live, wp)
			}
		}
		clear(p.idle[len(live):])
		p.idle = live
	}
	p.idle = append(p.idle, weak.Make(buf))
}

// getBufferPool returns the pool for dtype and size class.
func (b *Backend) getBufferPool(dtype dtypes.DType, class int) *bufferPool {
	key := bufferPoolKey{dtype: dtype, class: class}
	pool, ok := b.bufferPools.Load(key)
	if !ok {
		pool, _ = b.bufferPools.LoadOrStore(key, &bufferPool{})
	}
	return pool.(*bufferPool)
}

// exactSizeClassesUpTo is the largest length that is its own size class:
// rounding tiny buffers up would save no allocations worth the waste.
const exactSizeClassesUpTo = 16

// bufferSizeClass returns the capacity, in elements, of the pooled buffers
// that serve a request for length elements: above exactSizeClassesUpTo,
// length rounded up to a multiple of a quarter of the power of two below it,
// i.e. to one of 2^k·{1.25, 1.5, 1.75, 2}. At most a fifth of a pooled
// array goes unused. Powers of two and 1.5 times them (the model's padding
// buckets) are classes of their own.
func bufferSizeClass(length int) int {
	if length <= exactSizeClassesUpTo {
		return length
	}
	step := 1 << (bits.Len(uint(length-1)) - 3)
	return (length + step - 1) &^ (step - 1)
}
