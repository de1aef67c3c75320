//go:build amd64 && !purego

package gemm

// copyRows12 and copyRows6 are in pack_amd64.s: 12 (6) floats a step, k
// steps, the source stride elements apart. Callers check the bounds.
//
//go:noescape
func copyRows12(dst, src *float32, stride, k int)

//go:noescape
func copyRows6(dst, src *float32, stride, k int)

// packColumns packs a panel of mr rows of A whose columns are contiguous
// (A[., p] is mr values at base + p*cs) for the two tile heights, 12 and
// 6, by AVX moves: a copy call per step cost more than the move. It
// reports false, having done nothing, for other heights or without AVX2.
func packColumns(panel, src []float32, base, cs, k, mr int) bool {
	if !hasAVX2 || (mr != 12 && mr != 6) {
		return false
	}
	if k == 0 {
		return true
	}
	_ = panel[mr*k-1]
	_ = src[base+(k-1)*cs+mr-1] // the last step's values are in range
	if mr == 12 {
		copyRows12(&panel[0], &src[base], cs, k)
	} else {
		copyRows6(&panel[0], &src[base], cs, k)
	}
	return true
}
