//go:build amd64 && !purego

package gemm

// copyRows12 is in pack_amd64.s: 12 floats a step, k steps, the source
// stride elements apart. Callers check the bounds.
//
//go:noescape
func copyRows12(dst, src *float32, stride, k int)

// packColumns12 packs a 12-row panel of A whose columns are contiguous
// (A[., p] is 12 values at base + p*cs): a copy call per 48-byte step
// cost more than the move, so AVX moves them in a loop.
func packColumns12(panel, src []float32, base, cs, k int) {
	if k == 0 {
		return
	}
	_ = panel[12*k-1]
	_ = src[base+(k-1)*cs+11] // the last step's 12 values are in range
	if !hasAVX2 {
		packColumns12Go(panel, src, base, cs, k)
		return
	}
	copyRows12(&panel[0], &src[base], cs, k)
}

// copyRows6 is copyRows12 for 6 floats a step.
//
//go:noescape
func copyRows6(dst, src *float32, stride, k int)

// packColumns6 is packColumns12 for 6-row panels (AVX2's tiles).
func packColumns6(panel, src []float32, base, cs, k int) {
	if k == 0 {
		return
	}
	_ = panel[6*k-1]
	_ = src[base+(k-1)*cs+5]
	if !hasAVX2 {
		packColumns6Go(panel, src, base, cs, k)
		return
	}
	copyRows6(&panel[0], &src[base], cs, k)
}
