package parallel

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

// DefaultSpin is how long a helper stays awake after its last job when
// Team.Spin is zero. A decode step of the built-in policy runs a few hundred
// ops with gaps of microseconds between them, and the engine's own work
// between two steps (sampling, the next step's inputs) takes 0.1-0.3 ms;
// half a millisecond keeps the helpers awake through both.
const DefaultSpin = 500 * time.Microsecond

// NoSpin, as Team.Spin, makes helpers exit a few microseconds after their
// last job: an idle Team burns no CPU, and each job pays for starting its
// helpers (an idle core's wake-up).
const NoSpin time.Duration = -1

// Team runs short data-parallel jobs on the caller's goroutine and up to
// Size-1 helper goroutines that keep spinning for a while after each job.
//
// Handing work to a sleeping goroutine costs a wake-up of the idle core,
// 20-30 us on a virtual machine, which is as long as a whole matrix product
// of a decode step: split that way, such products ran no faster on two
// cores than on one. A helper that is still spinning picks a job up within
// a fraction of a microsecond. Helpers exit once they have spun Spin
// without a job, so an idle Team holds no goroutines and needs no Close.
//
// The zero Team runs every job on the caller alone. A Team is safe for
// concurrent use; a job that finds the helpers busy with another caller's
// job runs on fewer goroutines (the caller's at least).
type Team struct {
	// Size bounds the goroutines of one job, the caller's included; it is
	// further capped at GOMAXPROCS. Set it before the first Run.
	Size int
	// Spin is how long a helper waits for the next job before it exits;
	// zero means DefaultSpin, a negative value (NoSpin) no wait.
	Spin time.Duration

	current atomic.Pointer[job] // the newest job
	helpers atomic.Int32        // helper goroutines alive
}

// job is one Run: fn and the helper places it still offers.
type job struct {
	fn func()
	// open counts the helper places not yet taken; Run sets it to -1 when
	// the caller's own call has returned, closing the job to helpers that
	// arrive late.
	open atomic.Int32
	// finished counts the helpers whose call of fn has returned.
	finished atomic.Int32
	// panicked holds what a helper's call panicked with, for Run to
	// re-panic on the caller's goroutine.
	panicked atomic.Pointer[helperPanic]
}

type helperPanic struct{ value any }

// Run calls fn on up to n goroutines at once, the caller's among them, and
// returns once every call has returned. How many calls there are depends
// on which helpers are free, from 1 (the caller's alone) to
// min(n, Size, GOMAXPROCS), so fn must take its work from shared state
// (an atomic counter of chunks, say) until none is left, and its result
// must not depend on how the work was shared. A panic in a helper's call
// is re-raised by Run on the caller's goroutine.
func (t *Team) Run(n int, fn func()) {
	n = min(n, t.Size, runtime.GOMAXPROCS(0))
	if n <= 1 {
		fn()
		return
	}
	j := &job{fn: fn}
	j.open.Store(int32(n - 1))
	t.current.Store(j)
	t.ensureHelpers(n - 1)
	fn()
	unclaimed := max(j.open.Swap(-1), 0)
	claimed := int32(n-1) - unclaimed
	for i := 0; j.finished.Load() < claimed; i++ {
		// The helpers that took a place are running fn on the same shared
		// work as the caller, so they finish about now.
		if i%64 == 63 {
			runtime.Gosched()
		}
	}
	t.current.CompareAndSwap(j, nil)
	if p := j.panicked.Load(); p != nil {
		panic(fmt.Sprintf("parallel: a helper panicked: %v", p.value))
	}
}

// ensureHelpers starts helpers until at least want are alive.
func (t *Team) ensureHelpers(want int) {
	for {
		alive := t.helpers.Load()
		if int(alive) >= want {
			return
		}
		if t.helpers.CompareAndSwap(alive, alive+1) {
			go t.help()
		}
	}
}

// help is a helper's loop: it takes places in new jobs until it has waited
// Spin for one, then exits.
func (t *Team) help() {
	spin := t.Spin
	if spin == 0 {
		spin = DefaultSpin
	}
	var last *job
	waitingSince := time.Now()
	for i := 0; ; i++ {
		if j := t.current.Load(); j != nil && j != last {
			last = j
			if j.claim() {
				j.run()
			}
			waitingSince, i = time.Now(), 0
			continue
		}
		if i%4096 != 4095 {
			continue
		}
		if time.Since(waitingSince) < spin {
			// Let other goroutines of the process have this core.
			runtime.Gosched()
			continue
		}
		t.helpers.Add(-1)
		// A Run that counted this helper as alive may have published a
		// job since the last look: take it, or leave it to a helper that
		// Run starts once it sees this one gone.
		j := t.current.Load()
		if j == nil || j == last || j.open.Load() <= 0 {
			return
		}
		t.helpers.Add(1)
	}
}

// claim takes one of the job's helper places, if one is left.
func (j *job) claim() bool {
	for {
		open := j.open.Load()
		if open <= 0 {
			return false
		}
		if j.open.CompareAndSwap(open, open-1) {
			return true
		}
	}
}

// run calls the job's fn on a helper, recording a panic for Run.
func (j *job) run() {
	defer j.finished.Add(1)
	defer func() {
		if r := recover(); r != nil {
			j.panicked.CompareAndSwap(nil, &helperPanic{r})
		}
	}()
	j.fn()
}

// Split calls fn(lo, hi) for consecutive pieces of [0, n), each size long
// but the last, on up to workers goroutines (Run); every piece is done
// exactly once, by whichever goroutine takes it first.
func (t *Team) Split(n, size, workers int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	size = max(size, 1)
	pieces := (n + size - 1) / size
	if pieces == 1 {
		fn(0, n)
		return
	}
	var next atomic.Int64
	t.Run(min(workers, pieces), func() {
		for {
			lo := int(next.Add(int64(size))) - size
			if lo >= n {
				return
			}
			fn(lo, min(lo+size, n))
		}
	})
}
