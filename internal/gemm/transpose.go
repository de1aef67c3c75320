package gemm

// transposeBlockRows is how many source rows transposeBlock's scalar loop
// reads side by side: 64 rows of a 32-column product are 8 KiB, which stay
// in L1 while each of them is read once per column.
const transposeBlockRows = 64

// transposeBlock writes dst[c, r] = src[r, c] for r in [r0, r1) and c in
// [c0, c1), src being [n, m] and dst [m, n] (both dense). Whole 8x8 blocks
// go through AVX shuffles where the machine has them (0.1 instead of 0.8
// ns an element: in a decode step of the built-in policy, whose projections
// are all computed swapped, the transposes had cost as much as the
// products); the edges, and every element elsewhere, through a loop that
// walks the source in blocks of transposeBlockRows rows, so the destination
// is written contiguously while the rows read stay in cache.
func transposeBlock(dst, src []float32, m, n, r0, r1, c0, c1 int) {
	rb, cb := (r1-r0)/8, (c1-c0)/8
	if !transposeBlocks8(dst, src, m, n, r0, rb, c0, cb) {
		transposeScalar(dst, src, m, n, r0, r1, c0, c1)
		return
	}
	rEnd, cEnd := r0+8*rb, c0+8*cb
	transposeScalar(dst, src, m, n, r0, rEnd, cEnd, c1) // right edge
	transposeScalar(dst, src, m, n, rEnd, r1, c0, c1)   // bottom edge
}

// transposeScalar is transposeBlock one element at a time.
func transposeScalar(dst, src []float32, m, n, r0, r1, c0, c1 int) {
	for rb := r0; rb < r1; rb += transposeBlockRows {
		re := min(rb+transposeBlockRows, r1)
		for c := c0; c < c1; c++ {
			d := dst[c*n+rb : c*n+re]
			for i := range d {
				d[i] = src[(rb+i)*m+c]
			}
		}
	}
}
