package gemm

// fewRowsMaxM is the most rows for which a product with B stored
// transposed (a weight in [out, in] layout, as every projection of a
// decode step multiplies it) is computed by taskFewRows rather than
// swapped. Swapped, such a product is Wᵀ's rows by the few rows of x in
// the kernels' columns: one live lane of 16 (AVX-512) for a single
// stream, a broadcast load per weight element and a FMA for each, which
// left single-stream decoding of the Qwen2.5-0.5B shape at a third of the
// memory bound (issue 42). Here each weight element is moved once, by AVX
// transposes into a panel that stays in L1, and the kernels then run
// their full width over it.
const fewRowsMaxM = 4

// fewRows reports whether p is computed by taskFewRows: few rows, B stored
// transposed (its rows, the contracting axis, contiguous) and wider than a
// panel, so that the transposes pay.
func fewRows(p *Params, ks *kernelSet) bool {
	return p.M <= fewRowsMaxM && p.M <= ks.maxMR && p.N >= ks.nr() &&
		p.BRowStride == 1 && p.BColStride != 1
}

// taskFewRows computes C[b, i0:i1, j0:j1] for a product with B stored
// transposed: for each panel of nr columns and each kc block it transposes
// that block of B into s.b (kcb rows of the panel's width, zero-padded)
// and runs one tile of the i1-i0 rows over it, A read in place when its
// rows are contiguous. Each output element sums p in order within a kc
// block from zero and adds the blocks in order, as every other path does,
// so a row's bits do not depend on the path (TestFewRowsMatchPacked).
func (pl *plan) taskFewRows(s *scratch, b, i0, i1, j0, j1 int) {
	p, ks := pl.p, pl.ks
	w := ks.width
	mrows := i1 - i0
	aRows := b*p.ABatchStride + i0*p.ARowStride
	cRows := b*p.M*p.N + i0*p.N
	direct := ks.runDirect != nil && p.AColStride == 1
	for jr := j0; jr < j1; jr += pl.nr {
		ncols := min(pl.nr, j1-jr)
		nv := ceilDiv(ncols, w)
		width := nv * w
		for pc := 0; pc < p.K; pc += kc {
			kcb := min(kc, p.K-pc)
			s.b = growFloats(s.b, kcb*width)
			packTransposedPanel(s.b, p.B, b*p.BBatchStride+pc+jr*p.BColStride, p.BColStride, kcb, ncols, width)
			a, aOff, lda := p.A, aRows+pc*p.AColStride, p.ARowStride
			if !direct {
				s.a = growFloats(s.a, mrows*kcb)
				packA(s.a, p.A, aOff, p.ARowStride, p.AColStride, mrows, kcb, ks.maxMR)
				a, aOff, lda = s.a, 0, -1
			}
			pl.tile(s, mrows, nv, ncols, kcb, a, aOff, lda, s.b, 0, width, cRows+jr, pc > 0)
		}
	}
}

// packTransposedPanel is packBPanel for B's rows contiguous (row stride
// 1): dst[p*width + j] = src[off + p + j*cs] for p < k and j < ncols, and
// zeros for ncols <= j < width. Whole 8x8 blocks go through the AVX
// transposes (transposeBlocks8's kernel); the edges element by element.
func packTransposedPanel(dst, src []float32, off, cs, k, ncols, width int) {
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
	// Columns past the whole blocks, every step; then the steps past them
	// for the blocked columns.
	for j := 8 * jb; j < ncols; j++ {
		col := src[off+j*cs : off+j*cs+k]
		for p, v := range col {
			dst[p*width+j] = v
		}
	}
	for j := range 8 * jb {
		col := src[off+j*cs : off+j*cs+k]
		for p := 8 * pb; p < k; p++ {
			dst[p*width+j] = col[p]
		}
	}
}
