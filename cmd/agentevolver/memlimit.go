package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The command sets a soft memory limit (runtime/debug.SetMemoryLimit) unless
// the GOMEMLIMIT environment variable is set, which then applies as usual
// (a size such as GOMEMLIMIT=4GiB, or GOMEMLIMIT=off for none).
//
// Why: by default (GOGC=100, no limit) Go's GC lets the heap grow to twice
// the heap that was live after the previous collection before it collects
// again. A training step of the default train job holds about 0.9 GB of
// activations and gradients at its peak, so a collection that falls inside
// a step let the heap grow to ~1.5 GB before the next one, most of it
// garbage. With the limit the GC collects before the process grows much
// past it: the default job peaks at ~1.1 GB resident, with no measurable
// slowdown.
//
// The limit is never less than DefaultMemoryLimit, and after each
// collection it is raised, when needed, to memoryLimitPerLive times the
// live heap. A fixed limit below what a bigger job (a loaded checkpoint, its
// optimiser state and reference policy) keeps live would make the GC run
// back to back, taking up to half the CPU; with the headroom the heap can
// still grow by half the live heap between collections (as with GOGC=50).
const (
	DefaultMemoryLimit = 1 << 30 // bytes
	memoryLimitPerLive = 1.5
)

// applyDefaultMemoryLimit applies the default soft memory limit described
// above, unless GOMEMLIMIT is set.
func applyDefaultMemoryLimit() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	adjustMemoryLimit()
}

// adjustMemoryLimit sets the limit for the heap live after the last
// collection, and runs again after the next one.
func adjustMemoryLimit() {
	debug.SetMemoryLimit(memoryLimitFor(liveHeapBytes()))
	// gcSentinel is collected in the next GC cycle, which then runs the
	// cleanup. (It holds a pointer so that it is not a tiny allocation,
	// which may be kept alive by its neighbours.)
	runtime.AddCleanup(&gcSentinel{}, func(struct{}) { adjustMemoryLimit() }, struct{}{})
}

type gcSentinel struct{ _ *byte }

// memoryLimitFor returns the soft memory limit for a live heap of live
// bytes.
func memoryLimitFor(live uint64) int64 {
	return max(DefaultMemoryLimit, int64(float64(live)*memoryLimitPerLive))
}

// liveHeapBytes returns the heap marked live by the last GC cycle (0
// before the first).
func liveHeapBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
