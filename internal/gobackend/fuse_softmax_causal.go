package gobackend

import (
	"math"

	"github.com/pkg/errors"

	"github.com/org/agentevolver/internal/gemm"
	"github.com/org/agentevolver/internal/vecmath"
)

// Masked columns of a softmax of a product (gofast change).
//
// A causal attention bias masks half the scores: key j of query i > j gets
// about -1e9 (the model's maskedScore), so its probability is exactly 0.
// The fused softmax of a product (fuse_softmax_product.go, and attention,
// fuse_attention.go) skips such columns where it can prove the result is
// the same bits: for a block of rows it finds the columns from which the
// bias of every row is at most maskedBias, multiplies only the columns
// before, and for each row checks that no skipped score can matter: a
// score is at most K·max|q|·max|k|, so with the bias it stays more
// than 1000 below the row's maximum over the computed columns, which makes
// it neither the maximum nor anything but an exact 0 after exp (the
// kernels flush x − max <= -104 to 0). The skipped columns are written as
// 0, the row sum runs over the whole row as before (adding +0 changes no
// partial sum), and 0 divided by the sum stays 0. A row that fails the
// check (fully masked, huge or non-finite values) sends its block through
// the full computation. A product with the probabilities (the values)
// then contracts over the computed columns only: the skipped terms are
// +0·v, which add nothing to a sum that starts at +0, provided v is finite.

// maskedBias is the bias at or below which a column counts as masked.
const maskedBias = -1e8

// maskedMargin is how far below a row's maximum a skipped score must be
// proven to lie: far beyond the 104 at which exp flushes to 0, and beyond
// any rounding of sums of that size.
const maskedMargin = 1e3

// minSkippedColumns is the fewest masked columns worth multiplying a block
// narrower for; the computed columns are rounded up to a multiple of it.
const minSkippedColumns = 16

// leadingColumns returns, for each row of width elements of bias, one past
// the last column whose bias is above maskedBias (or not a number): the
// columns from there on are masked.
func leadingColumns(bias []float32, width int) []int {
	rows := len(bias) / width
	lead := make([]int, rows)
	inf := float32(math.Inf(-1))
	for r := range rows {
		row := bias[r*width : (r+1)*width]
		j := width
		// 16 columns at a time by SIMD (Max is NaN when one is), then one.
		for j >= 16 && vecmath.Max(inf, row[j-16:j]) <= maskedBias {
			j -= 16
		}
		for j > 0 && row[j-1] <= maskedBias {
			j--
		}
		lead[r] = j
	}
	return lead
}

// rowProduct is a DotGeneral's operands with the strides of its batch,
// row and contracted indices, for products of blocks of rows.
type rowProduct struct {
	a                     []float32
	aBatch, aRow, aCol    int
	k                     []float32
	kBatch, kRow, kCol    int
	width, rowsPerItem, K int // columns, rows a batch item, contracted
}

// newRowProduct reads the operands of the product lhs·rhs (params its
// DotGeneral) in place or, when their axes do not collapse to strides,
// from copies; release returns the copies to the pool.
func newRowProduct(backend *Backend, params *dotGeneralNodeData, lhs, rhs *Buffer) (p rowProduct, release func()) {
	p = rowProduct{width: params.rhsCrossSize, rowsPerItem: params.lhsCrossSize, K: params.contractingSize}
	var lhsTmp, rhsTmp *Buffer
	p.a, p.aBatch, p.aRow, p.aCol, lhsTmp = dgStridedOperand(backend, lhs, params.lhsContractingAxes, params.lhsBatchAxes, params.batchSize, params.lhsCrossSize, params.contractingSize)
	p.k, p.kBatch, p.kCol, p.kRow, rhsTmp = dgStridedOperand(backend, rhs, params.rhsContractingAxes, params.rhsBatchAxes, params.batchSize, params.rhsCrossSize, params.contractingSize)
	return p, func() {
		for _, tmp := range []*Buffer{lhsTmp, rhsTmp} {
			if tmp != nil {
				backend.putBuffer(tmp)
			}
		}
	}
}

// multiply sets c (rows×cols) to the first cols columns of rows [r,
// r+rows) of the product, rows of one batch item, on this goroutine.
func (p *rowProduct) multiply(c []float32, r, rows, cols int) error {
	item, i := r/p.rowsPerItem, r%p.rowsPerItem
	err := gemm.Multiply(&gemm.Params{
		Batch: 1, M: rows, N: cols, K: p.K,
		A: p.a[item*p.aBatch+i*p.aRow:], ARowStride: p.aRow, AColStride: p.aCol,
		B: p.k[item*p.kBatch:], BRowStride: p.kRow, BColStride: p.kCol,
		C: c, MaxWorkers: 1,
	})
	return errors.Wrap(err, "product of a fused softmax")
}

// scoresSoftmax is the softmax of a product prepared for blocks of rows:
// the product, the addend and, when the addend masks columns, each addend
// row's leading columns.
type scoresSoftmax struct {
	rowProduct
	addend    []float32
	addendRow func(r int) int
	lead      []int // nil: no columns are skipped
}

// itemBound caches, for one goroutine, the largest |k| of the batch item
// it is working on, and holds its scratch for the bounds.
type itemBound struct {
	item    int
	kMax    float64
	scratch []float32
}

// addendOf returns row r's addend, or nil.
func (s *scoresSoftmax) addendOf(r int) []float32 {
	if s.addend == nil {
		return nil
	}
	a := s.addendRow(r)
	return s.addend[a*s.width : (a+1)*s.width]
}

// block writes the probabilities of rows [r, r+rows) (of one batch item)
// into probs (rows×width) and returns how many leading columns of them may
// be non-zero: width, or fewer where the skipped columns are proven 0.
// compact is scratch of rows×width.
func (s *scoresSoftmax) block(probs, compact []float32, r, rows int, bound *itemBound) (int, error) {
	item, i := r/s.rowsPerItem, r%s.rowsPerItem
	width := s.width
	cols := width
	if s.lead != nil {
		cols = 0
		for kk := range rows {
			cols = max(cols, s.lead[s.addendRow(r+kk)])
		}
		cols = min(width, (cols+minSkippedColumns-1)/minSkippedColumns*minSkippedColumns)
		if width-cols < minSkippedColumns {
			cols = width
		}
	}
	aOff := item*s.aBatch + i*s.aRow
	if cols < width && s.blockPrefix(probs, compact[:rows*cols], aOff, item, r, rows, cols, bound) {
		return cols, nil
	}
	if err := s.multiply(probs[:rows*width], r, rows, width); err != nil {
		return 0, err
	}
	for kk := range rows {
		row := probs[kk*width : (kk+1)*width]
		softmaxRow(row, row, s.addendOf(r+kk))
	}
	return width, nil
}

// blockPrefix computes the block on its first cols columns and reports
// whether every row passed the check that the rest are exact zeros; when
// one does not, probs holds nothing of use.
func (s *scoresSoftmax) blockPrefix(probs, compact []float32, aOff, item, r, rows, cols int, bound *itemBound) bool {
	if s.multiply(compact, r, rows, cols) != nil {
		return false // the full path multiplies again and reports the error
	}
	if bound.item != item {
		bound.item, bound.kMax = item, s.maxAbsK(item, bound)
	}
	// |score| <= Σ|q||k| <= K·max|q|·max|k|, with room for rounding.
	scoreBound := float64(s.K) * s.maxAbsA(aOff, rows, bound) * bound.kMax * (1 + 1e-3)
	width := s.width
	for kk := range rows {
		dst := probs[kk*width : (kk+1)*width]
		vecmath.Add(dst[:cols], compact[kk*cols:(kk+1)*cols], s.addendOf(r + kk)[:cols])
		m := vecmath.Max(float32(math.Inf(-1)), dst[:cols])
		if !(float64(m)-(scoreBound+maskedBias) >= maskedMargin) {
			return false // also when m or the bound is NaN or infinite
		}
		vecmath.SubScalar(dst[:cols], dst[:cols], m)
		vecmath.Exp(dst[:cols], dst[:cols])
		clear(dst[cols:])
		vecmath.DivScalar(dst[:cols], dst[:cols], sumRow(dst))
	}
	return true
}

// maxAbsA is the largest |a| of the block's rows of A from off (NaN when
// one is).
func (s *scoresSoftmax) maxAbsA(off, rows int, bound *itemBound) float64 {
	if s.aCol == 1 && s.aRow == s.K {
		return maxAbs(s.a[off:off+rows*s.K], bound)
	}
	m := 0.0
	for i := range rows {
		for p := range s.K {
			if m = maxAbsStep(m, s.a[off+i*s.aRow+p*s.aCol]); m != m {
				return m
			}
		}
	}
	return m
}

// maxAbsK is the largest |k| of a batch item's operand (NaN when one is).
func (s *scoresSoftmax) maxAbsK(item int, bound *itemBound) float64 {
	base := item * s.kBatch
	if s.kCol == 1 && s.kRow == s.width || s.kRow == 1 && s.kCol == s.K {
		return maxAbs(s.k[base:base+s.K*s.width], bound)
	}
	m := 0.0
	for p := range s.K {
		for j := range s.width {
			if m = maxAbsStep(m, s.k[base+p*s.kRow+j*s.kCol]); m != m {
				return m
			}
		}
	}
	return m
}

// maxAbs is the largest |x| by SIMD: the larger of max x and max -x (NaN
// when an element is).
func maxAbs(x []float32, bound *itemBound) float64 {
	if cap(bound.scratch) < len(x) {
		bound.scratch = make([]float32, len(x))
	}
	neg := bound.scratch[:len(x)]
	vecmath.Neg(neg, x)
	inf := float32(math.Inf(-1))
	return float64(max(vecmath.Max(inf, x), vecmath.Max(inf, neg)))
}

// maxAbsStep is max(m, |v|), NaN when v is.
func maxAbsStep(m float64, v float32) float64 {
	a := math.Abs(float64(v))
	if a != a {
		return a
	}
	return max(m, a)
}

// newScoresSoftmax prepares the softmax of the product lhs·rhs (params its
// DotGeneral) plus addend (nil, or rows that addendDims broadcast to dims,
// the softmax's dimensions) for blocks of rows. release returns the
// operands' copies, if any, to the pool.
func newScoresSoftmax(backend *Backend, params *dotGeneralNodeData, lhs, rhs *Buffer, addend []float32, dims, addendDims []int) (s *scoresSoftmax, release func()) {
	s = &scoresSoftmax{addend: addend}
	s.rowProduct, release = newRowProduct(backend, params, lhs, rhs)
	s.addendRow = func(r int) int { return r }
	if addendDims != nil {
		s.addendRow = broadcastRows(dims, addendDims)
	}
	if addend != nil {
		s.lead = leadingColumns(addend, s.width)
	}
	return s, release
}
