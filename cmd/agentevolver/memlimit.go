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
// again, so a job's resident memory is about twice its peak working set
// and more when a collection falls inside a step. The limit bounds that.
// It was 2 GiB rather than the ~1 GiB the main job needs at least: its
// steps hold ~0.9 GB of activations and gradients at their peak, so at
// 1 GiB the GC ran almost back to back, freed the backend's idle buffers
// (weak pointers) and returned their pages to the OS, and the next step
// allocated and faulted them in again. Measured on the main job in one
// session: 1 GiB 2m13s, 1.14 GB resident, 17.9 s system time, 1.72 s per
// RL step; 2 GiB 1m55s, 1.87 GB, 10.2 s, 1.42 s; 3 GiB 1m58s, 1.89 GB,
// 9.5 s, 1.37 s (same results). Since the main job updates in
// micro-batches of 8 samples its live heap stays at 230-340 MB, so the
// limit is 1.5 GiB: the main job peaked at 1.62 GB resident under it
// against 2.19 GB under 2 GiB (same results, on a machine shared with
// other work, 4m21s against 3m51s).
//
// The limit is never less than DefaultMemoryLimit, and after each
// collection it is raised, when needed, to memoryLimitPerLive times the
// live heap. A fixed limit below what a bigger job (a loaded checkpoint, its
// optimiser state and reference policy) keeps live would make the GC run
// back to back, taking up to half the CPU; with the headroom the heap can
// still grow by half the live heap between collections (as with GOGC=50).
//
// Under that limit the command also sets GOGC to DefaultGCPercent unless
// GOGC is set. The limit bounds the heap; GOGC only decides how far below
// it a collection starts. At 100 the GC ran whenever the live heap had
// doubled, which in the main job was several times a step, each time
// freeing the backend's idle buffers. Two alternating pairs of the main
// job, 400 against 100: 82 and 92 s against 93 and 99 s, 114 and 125 s of
// CPU against 132 and 137 s, 2.14 GB resident against 2.08 and 2.12 (same
// results); bench rollout's CPU time fell by 8-25% in three pairs. Without the limit
// (GOMEMLIMIT=off) GOGC stays as Go sets it: 400 alone would let the heap
// grow to five times the live heap.
const (
	DefaultMemoryLimit = 1536 << 20 // bytes
	memoryLimitPerLive = 1.5
	DefaultGCPercent   = 400
)

// applyDefaultMemoryLimit applies the default soft memory limit and GC
// percentage described above, unless GOMEMLIMIT is set.
func applyDefaultMemoryLimit() {
	limit, gcPercent := defaultGCSettings(os.LookupEnv)
	if !limit {
		return
	}
	if gcPercent > 0 {
		debug.SetGCPercent(gcPercent)
	}
	adjustMemoryLimit()
}

// defaultGCSettings says, for the environment lookup gives, whether the
// command sets its soft memory limit and which GC percentage it sets (0:
// none, GOGC stands).
func defaultGCSettings(lookup func(string) (string, bool)) (limit bool, gcPercent int) {
	if _, set := lookup("GOMEMLIMIT"); set {
		return false, 0
	}
	if _, set := lookup("GOGC"); set {
		return true, 0
	}
	return true, DefaultGCPercent
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
