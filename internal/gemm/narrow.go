package gemm

import "math"

// narrow is an element type in which B may be stored instead of float32
// (Params.BInt8, Params.BBFloat16): int8 values, or the bit patterns of
// bfloat16 numbers. Both convert to float32 exactly.
type narrow interface{ int8 | uint16 }

// element is any type B may be stored in.
type element interface{ float32 | narrow }

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

// PanelWidth is the unit of Params.BPanelWidth: every kernel's widest
// tile (32 columns with AVX-512, 16 with AVX2, 8 in pure Go) divides it,
// so no tile straddles two panels.
const PanelWidth = 32

// bColumn is the offset of B's column j from its column 0, with or
// without panels.
func (p *Params) bColumn(j int) int {
	if p.BPanelWidth > 0 {
		return (j/p.BPanelWidth)*p.BPanelStride + (j%p.BPanelWidth)*p.BColStride
	}
	return j * p.BColStride
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

// multiplyWidened computes a product whose narrow B neither the few-rows
// path nor taskNarrowPanels takes (B's rows not contiguous, nor its
// columns with a tile's rows at most) by
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
	if !transposePanel8(dst, width, src, off, cs, jb, pb) {
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

// taskNarrowPanels computes C[b, i0:i1, j0:j1] for a narrow B with
// contiguous rows (a weight stored [in, out], or in panels of columns,
// Params.BPanelWidth): for each kc block and each
// panel of nr columns it converts that block of B into s.b (kcb rows of
// the panel's width, zero-padded: a copy that widens, with no transpose)
// and runs every row tile of [i0, i1) over it; a single row (decoding)
// over a full panel goes through a fused kernel that widens B as it
// loads, with no conversion into L1. Each output
// element sums p in order within a kc block and adds the blocks in order,
// as every path does, so the bits are those of the float32 product of the
// converted B.
func (pl *plan) taskNarrowPanels(s *scratch, b, i0, i1, j0, j1 int) {
	p, ks := pl.p, pl.ks
	w := ks.width
	aBase := b * p.ABatchStride
	cBase := b * p.M * p.N
	direct := ks.runDirect != nil && p.AColStride == 1
	// Blocks of depth outside, panels inside: a kc block's rows of B are
	// then read left to right, each once, where panel by panel they were
	// read 32 values a row, a cache line from every row, at half the
	// speed. Each output element still adds its blocks in order.
	for pc := 0; pc < p.K; pc += kc {
		kcb := min(kc, p.K-pc)
		for jr := j0; jr < j1; jr += pl.nr {
			ncols := min(pl.nr, j1-jr)
			nv := ceilDiv(ncols, w)
			width := nv * w
			off := b*p.BBatchStride + pc*p.BRowStride + p.bColumn(jr)
			if i1-i0 == 1 && p.AColStride == 1 && ncols == pl.nr && pl.narrowRow(kcb, aBase+i0*p.ARowStride+pc, off, cBase+i0*p.N+jr, pc > 0) {
				continue
			}
			s.b = growFloats(s.b, kcb*width)
			if p.BInt8 != nil {
				packNarrowPanel(s.b, p.BInt8, off, p.BRowStride, kcb, ncols, width)
			} else {
				packNarrowPanel(s.b, p.BBFloat16, off, p.BRowStride, kcb, ncols, width)
			}
			for ir := i0; ir < i1; ir += ks.maxMR {
				mr := min(ks.maxMR, i1-ir)
				a, aOff, lda := p.A, aBase+ir*p.ARowStride+pc*p.AColStride, p.ARowStride
				if !direct {
					s.a = growFloats(s.a, mr*kcb)
					packA(s.a, p.A, aOff, p.ARowStride, p.AColStride, mr, kcb, ks.maxMR)
					a, aOff, lda = s.a, 0, -1
				}
				pl.tile(s, mr, nv, ncols, kcb, a, aOff, lda, s.b, 0, width, cBase+ir*p.N+jr, pc > 0)
			}
		}
	}
}

// packNarrowPanel writes dst[q*width + j] = float32(src[off + q*rs + j])
// for q < k and j < ncols, and zeros for ncols <= j < width: whole blocks
// of 8 columns by AVX loads that widen, the rest element by element.
func packNarrowPanel[T narrow](dst []float32, src []T, off, rs, k, ncols, width int) {
	dst = dst[:k*width]
	blocks := ncols / 8
	if !widenRows8(dst, width, src, off, rs, k, blocks) {
		blocks = 0
	}
	if 8*blocks == width {
		return // every column converted, no padding
	}
	for q := range k {
		row := dst[q*width : (q+1)*width]
		for j, v := range src[off+q*rs+8*blocks : off+q*rs+ncols] {
			row[8*blocks+j] = narrowToFloat32(v)
		}
		clear(row[ncols:])
	}
}

// narrowRow runs the fused one-row kernel over a full panel when the ISA
// has one (see narrowRow in narrow_amd64.go).
func (pl *plan) narrowRow(k, aOff, bOff, cOff int, accum bool) bool {
	p := pl.p
	if p.BInt8 != nil {
		return narrowRow(pl.ks, k, p.A, aOff, p.BInt8, bOff, p.BRowStride, p.C, cOff, accum)
	}
	return narrowRow(pl.ks, k, p.A, aOff, p.BBFloat16, bOff, p.BRowStride, p.C, cOff, accum)
}
