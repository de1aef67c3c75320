//go:build amd64 && !purego

package gemm

// The fused one-row kernels of narrow_amd64.s. Callers check the bounds.
//
//go:noescape
func narrowRowInt8AVX512(k int, a *float32, b *int8, ldb int, c *float32, accum int)

//go:noescape
func narrowRowBFloat16AVX512(k int, a *float32, b *uint16, ldb int, c *float32, accum int)

//go:noescape
func narrowRowInt8AVX2(k int, a *float32, b *int8, ldb int, c *float32, accum int)

//go:noescape
func narrowRowBFloat16AVX2(k int, a *float32, b *uint16, ldb int, c *float32, accum int)

// narrowRow computes, for one row of A (contiguous, at aOff) and a full
// panel of nr columns of a narrow B with contiguous rows (at bOff, row
// stride ldb), k steps into C at cOff (added to C with accum) by the
// ISA's fused kernel, which widens B as it loads: a decode step's product
// without the panel's conversion into L1. It reports false where ks's ISA
// has none (pure Go), and the caller converts the panel instead; the bits
// are the same either way.
func narrowRow[T narrow](ks *kernelSet, k int, a []float32, aOff int, b []T, bOff, ldb int, c []float32, cOff int, accum bool) bool {
	if k == 0 || (ks.isa != AVX512 && ks.isa != AVX2) {
		return false
	}
	nr := ks.nr()
	_ = a[aOff+k-1]
	_ = b[bOff+(k-1)*ldb+nr-1]
	_ = c[cOff+nr-1]
	acc := 0
	if accum {
		acc = 1
	}
	switch bb := any(b).(type) {
	case []int8:
		if ks.isa == AVX512 {
			narrowRowInt8AVX512(k, &a[aOff], &bb[bOff], ldb, &c[cOff], acc)
		} else {
			narrowRowInt8AVX2(k, &a[aOff], &bb[bOff], ldb, &c[cOff], acc)
		}
	case []uint16:
		if ks.isa == AVX512 {
			narrowRowBFloat16AVX512(k, &a[aOff], &bb[bOff], ldb, &c[cOff], acc)
		} else {
			narrowRowBFloat16AVX2(k, &a[aOff], &bb[bOff], ldb, &c[cOff], acc)
		}
	default:
		return false
	}
	return true
}
