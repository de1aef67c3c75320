package gemm

// fewRows reports whether p is computed by taskFewRows: no more rows than
// one tile of the kernels holds, B stored transposed (its rows, the
// contracting axis, contiguous: a weight in [out, in] layout, as every
// projection of a decode step multiplies it) and wider than a panel.
//
// Computed swapped instead (multiplySwapped), such a product is Wᵀ's rows
// by the few rows of x in the kernels' columns: for a single stream one
// live lane of 16 (AVX-512), with a broadcast load and a FMA for each
// weight element, which left single-stream decoding of the Qwen2.5-0.5B
// shape at a third of the memory bound (issue 42). Here each weight
// element is moved once, by AVX transposes into a panel that stays in L1,
// and the kernels then run their full width over it. BenchmarkFewRows,
// two workers, weights from memory, GB/s of weights, AVX-512 / AVX2 on an
// Intel Xeon shared with other work: 1x4864x896 11.2 against 7.6 / 10.7
// against 6.3 swapped; 4 rows 9.7 against 6.6 / 10.8 against 7.9; a tile
// (12 / 6 rows) 5.7 against 4.7 / 9.6 against 7.6; the main job's 1x384x128
// in cache 20.6 against 7.1 / 18.8 against 7.6.
func fewRows(p *Params, ks *kernelSet) bool {
	return p.M <= ks.maxMR && p.N >= ks.nr() && p.BRowStride == 1 && p.BColStride != 1
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
			pl.packFewRowsPanel(s.b, b*p.BBatchStride+pc+jr*p.BColStride, kcb, ncols, width)
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

// packTransposedPanel is packBPanel's case of B's rows contiguous (row
// stride 1): dst[p*width + j] = src[off + p + j*cs] for p < k and j <
// ncols, and zeros for ncols <= j < width. Whole 8x8 blocks go through the
// AVX transposes (transposeBlocks8's kernel), the edges element by
// element: the scalar scatter alone had cost as much as a decode step's
// products.
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
