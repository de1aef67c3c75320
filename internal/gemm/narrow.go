package gemm

import "math"

// narrow is an element type in which B may be stored instead of float32
// (Params.BInt8, Params.BBFloat16): int8 values, or the bit patterns of
// bfloat16 numbers. Both convert to float32 exactly.
type narrow interface{ int8 | uint16 }

// narrowToFloat32 converts one narrow element exactly: an int8 to the
// float32 of its value, a bfloat16 bit pattern to the float32 whose high
// 16 bits it is.
func narrowToFloat32[T narrow](v T) float32 {
	switch x := any(v).(type) {
	case int8:
		return float32(x)
	case uint16:
		return math.Float32frombits(uint32(x) << 16)
	}
	return 0
}

// narrowB reports whether B is stored in a narrow type.
func (p *Params) narrowB() bool { return p.BInt8 != nil || p.BBFloat16 != nil }

// bLen is the length of whichever slice holds B, and how many of B,
// BInt8 and BBFloat16 are set.
func (p *Params) bLen() (n, set int) {
	if p.B != nil {
		n, set = len(p.B), set+1
	}
	if p.BInt8 != nil {
		n, set = len(p.BInt8), set+1
	}
	if p.BBFloat16 != nil {
		n, set = len(p.BBFloat16), set+1
	}
	return n, set
}

// multiplyWidened computes a product whose narrow B the few-rows path does
// not take (more rows than a tile, or B not stored transposed) by
// converting the part of B the view reaches to float32 once, then
// multiplying as usual: for many rows the conversion is a small share of
// the product's work.
func multiplyWidened(p *Params) error {
	last := (p.Batch-1)*p.BBatchStride + (p.K-1)*p.BRowStride + (p.N-1)*p.BColStride
	wide := getFloats(last + 1)
	defer putFloats(wide)
	if p.BInt8 != nil {
		widen(wide, p.BInt8[:last+1])
	} else {
		widen(wide, p.BBFloat16[:last+1])
	}
	q := *p
	q.B, q.BInt8, q.BBFloat16 = wide, nil, nil
	return Multiply(&q)
}

// widen converts src to float32 into dst[:len(src)].
func widen[T narrow](dst []float32, src []T) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = narrowToFloat32(v)
	}
}

// packFewRowsPanel is taskFewRows's packing of one kc block of a column
// panel of B (stored transposed, at element off) into dst, from whichever
// slice holds B.
func (pl *plan) packFewRowsPanel(dst []float32, off, k, ncols, width int) {
	p := pl.p
	switch {
	case p.BInt8 != nil:
		packTransposedPanelNarrow(dst, p.BInt8, off, p.BColStride, k, ncols, width)
	case p.BBFloat16 != nil:
		packTransposedPanelNarrow(dst, p.BBFloat16, off, p.BColStride, k, ncols, width)
	default:
		packBPanel(dst, p.B, off, 1, p.BColStride, k, ncols, width)
	}
}

// packTransposedPanelNarrow is packTransposedPanel for a narrow source,
// each element converted to float32 as it is moved: whole 8x8 blocks by
// the AVX transposes that convert as they load, the edges element by
// element.
func packTransposedPanelNarrow[T narrow](dst []float32, src []T, off, cs, k, ncols, width int) {
	dst = dst[:k*width]
	if ncols < width {
		for p := range k {
			clear(dst[p*width+ncols : (p+1)*width])
		}
	}
	jb, pb := ncols/8, k/8
	if !transposePanel8Narrow(dst, width, src, off, cs, jb, pb) {
		jb, pb = 0, 0
	}
	for j := 8 * jb; j < ncols; j++ {
		col := src[off+j*cs : off+j*cs+k]
		for p, v := range col {
			dst[p*width+j] = narrowToFloat32(v)
		}
	}
	for j := range 8 * jb {
		col := src[off+j*cs : off+j*cs+k]
		for p := 8 * pb; p < k; p++ {
			dst[p*width+j] = narrowToFloat32(col[p])
		}
	}
}
