//go:build !amd64 || purego

package gemm

// transposeBlocks8 has no assembly here: transposeBlock's loop does the work.
func transposeBlocks8(dst, src []float32, m, n, r0, rb, c0, cb int) bool { return false }

// transposePanel8 has no assembly here: packTransposedPanel's and
// packTransposedPanelNarrow's loops do the work.
func transposePanel8[T element](dst []float32, ldd int, src []T, off, cs, jb, pb int) bool {
	return false
}

// widenRows8 has no assembly here: packNarrowPanel's loop does the work.
func widenRows8[T narrow](dst []float32, ldd int, src []T, off, lds, rows, blocks int) bool {
	return false
}
