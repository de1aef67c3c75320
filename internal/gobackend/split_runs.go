package gobackend

// splitMinElements is the least work, in elements, each goroutine of a split elementwise op gets
// (gofast change). Upstream runs every elementwise op on one goroutine while the other cores wait
// for the next matrix product; a train step of the benchmark's small model spends a third of its
// time in elementwise ops and reductions, and a decode step runs hundreds of them over 10-100 K
// elements. The split runs on the backend's parallel.Team, whose helpers are awake between ops,
// so it pays off from small sizes (BenchmarkSplitElementwise, 2-core AMD EPYC): an Exp of 32 K
// elements took 3.9 µs split instead of 7.1, a Mul 1.5 instead of 1.8; at 16 K elements a
// split gains nothing. (With goroutines started per op, the threshold was 256 K.)
const splitMinElements = 1 << 14

// splitAlign keeps chunk boundaries on whole SIMD vectors (and cache lines).
const splitAlign = 64

// splitRange calls fn over [0, n) in up to gemmWorkers(backend) contiguous chunks, concurrently,
// on the backend's team. Elementwise ops compute each element on its own, so a
// split changes no result.
func splitRange(backend *Backend, n int, fn func(lo, hi int)) {
	splitRangeFrom(backend, n, splitMinElements, fn)
}

// splitMinScalarMath is splitMinElements for ops that call a scalar math
// function per element (Cos and Sin, about 25 ns an element): a decode
// step's rotary tables, 512 elements, took 12.6 µs on one goroutine.
const splitMinScalarMath = 256

// splitRangeFrom is splitRange giving each goroutine at least minPer
// elements.
func splitRangeFrom(backend *Backend, n, minPer int, fn func(lo, hi int)) {
	workers := min(gemmWorkers(backend), n/minPer)
	if workers <= 1 {
		fn(0, n)
		return
	}
	chunk := (n + workers - 1) / workers
	chunk = (chunk + splitAlign - 1) / splitAlign * splitAlign
	backend.team.Split(n, chunk, workers, fn)
}
