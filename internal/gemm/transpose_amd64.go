//go:build amd64 && !purego

package gemm

// transpose8x8Blocks is in transpose_amd64.s. Callers check the bounds.
//
//go:noescape
func transpose8x8Blocks(dst *float32, ldd int, src *float32, lds int, rowBlocks, colBlocks int)

// transposeBlocks8 transposes the whole 8x8 blocks of rows [r0, r0+8*rb)
// and columns [c0, c0+8*cb) of src ([n, m], row-major) into dst ([m, n])
// by AVX shuffles, and reports whether it did (AVX2 machines only; it is
// a copy, so the bits are the scalar loop's).
func transposeBlocks8(dst, src []float32, m, n, r0, rb, c0, cb int) bool {
	if !hasAVX2 {
		return false
	}
	if rb == 0 || cb == 0 {
		return true
	}
	r1, c1 := r0+8*rb, c0+8*cb
	_ = src[(r1-1)*m+c1-1]
	_ = dst[(c1-1)*n+r1-1]
	transpose8x8Blocks(&dst[c0*n+r0], n, &src[r0*m+c0], m, rb, cb)
	return true
}

// transpose8x8BlocksInt8 and transpose8x8BlocksBFloat16 are in
// transpose_amd64.s: transpose8x8Blocks converting an int8 or
// bfloat16 source to float32 as it loads. Callers check the bounds.
//
//go:noescape
func transpose8x8BlocksInt8(dst *float32, ldd int, src *int8, lds int, rowBlocks, colBlocks int)

//go:noescape
func transpose8x8BlocksBFloat16(dst *float32, ldd int, src *uint16, lds int, rowBlocks, colBlocks int)

// transposePanel8 writes dst[p*ldd + j] = src[off + j*cs + p] for the
// whole 8x8 blocks j < 8*jb, p < 8*pb by AVX shuffles, an int8 or bfloat16
// source converted to float32 as it loads, and reports whether it did
// (AVX2 machines only).
func transposePanel8[T element](dst []float32, ldd int, src []T, off, cs, jb, pb int) bool {
	if !hasAVX2 {
		return false
	}
	if jb == 0 || pb == 0 {
		return true
	}
	_ = src[off+(8*jb-1)*cs+8*pb-1]
	_ = dst[(8*pb-1)*ldd+8*jb-1]
	switch s := any(src).(type) {
	case []float32:
		transpose8x8Blocks(&dst[0], ldd, &s[off], cs, jb, pb)
	case []int8:
		transpose8x8BlocksInt8(&dst[0], ldd, &s[off], cs, jb, pb)
	case []uint16:
		transpose8x8BlocksBFloat16(&dst[0], ldd, &s[off], cs, jb, pb)
	default:
		return false
	}
	return true
}

// widenRowsInt8 and widenRowsBFloat16 are in narrow_amd64.s:
// rows of 8-column blocks converted to float32. Callers check the bounds.
//
//go:noescape
func widenRowsInt8(dst *float32, ldd int, src *int8, lds int, rows, blocks int)

//go:noescape
func widenRowsBFloat16(dst *float32, ldd int, src *uint16, lds int, rows, blocks int)

// widenRows8 writes dst[r*ldd + j] = src[off + r*lds + j] as float32 for
// r < rows and j < 8*blocks by AVX loads that widen, and reports whether
// it did (AVX2 machines only).
func widenRows8[T narrow](dst []float32, ldd int, src []T, off, lds, rows, blocks int) bool {
	if !hasAVX2 {
		return false
	}
	if rows == 0 || blocks == 0 {
		return true
	}
	_ = src[off+(rows-1)*lds+8*blocks-1]
	_ = dst[(rows-1)*ldd+8*blocks-1]
	switch s := any(src).(type) {
	case []int8:
		widenRowsInt8(&dst[0], ldd, &s[off], lds, rows, blocks)
	case []uint16:
		widenRowsBFloat16(&dst[0], ldd, &s[off], lds, rows, blocks)
	default:
		return false
	}
	return true
}
