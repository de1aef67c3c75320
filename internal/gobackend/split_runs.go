package gobackend

import "sync"

// splitMinElements is the least work, in elements, each goroutine of a split elementwise op gets
// (gofast change). A train step of the benchmark's small model spends a third of its time in
// elementwise ops and reductions, many over arrays of 0.5-4 M elements, which upstream runs on
// one goroutine while the other cores wait for the next matrix product. On the 2-vCPU machine a
// split Mul of 2 M elements took 0.37 ms instead of 0.48 and an Exp 0.63 instead of 1.0, while
// a split Mul of 128 K elements took 28 µs instead of 21: hence 256 K per goroutine.
const splitMinElements = 1 << 18

// splitAlign keeps chunk boundaries on whole SIMD vectors (and cache lines).
const splitAlign = 64

// splitRange calls fn over [0, n) in up to gemmWorkers(backend) contiguous chunks, concurrently,
// the caller's goroutine taking the last. Elementwise ops compute each element on its own, so a
// split changes no result.
func splitRange(backend *Backend, n int, fn func(lo, hi int)) {
	workers := min(gemmWorkers(backend), n/splitMinElements)
	if workers <= 1 {
		fn(0, n)
		return
	}
	chunk := (n + workers - 1) / workers
	chunk = (chunk + splitAlign - 1) / splitAlign * splitAlign
	var wg sync.WaitGroup
	last := (n - 1) / chunk * chunk // start of the caller's chunk
	for lo := 0; lo < last; lo += chunk {
		wg.Go(func() { fn(lo, lo+chunk) })
	}
	fn(last, n)
	wg.Wait()
}
