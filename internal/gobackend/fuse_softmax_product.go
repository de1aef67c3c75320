package gobackend

import (
	"sync"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/pkg/errors"
)

// Product into softmax fusion (gofast change).
//
// Attention's scores are a DotGeneral (reshaped from the backend's
// [batch, rows, columns]) read only by the softmax over its last axis
// (plus the bias): on the small benchmark model's train step a
// [B,KV,T,G,T] tensor of 16 MiB, written by the product and read back by
// the softmax, both from memory. When the fused softmax's operand is such
// a product, Compile folds it in too: the node multiplies a block of
// softmaxProductRows rows of the product at a time into scratch that stays
// in cache and runs the softmax on those rows from there. Each element of
// a product is one sum over the contracted axis in a fixed order whatever
// the block (package gemm), and the rows go through the softmax kernels as
// before, so the results are the same bits (TestSoftmaxProductFusion).

// softmaxProductRows is how many rows of the product a block holds: with
// the small model's 256 keys, 64 KiB of scratch.
const softmaxProductRows = 64

// softmaxProductMinRows is the fewest rows per batch item worth a block of
// their own: a decode step's scores (2 rows a batch item) are multiplied as
// one batched product, which costs less than a product call per item.
const softmaxProductMinRows = 16

// fuseSoftmaxProducts folds into each fused softmax the product it reads,
// and into each fused softmax gradient the product its gradient v is, when
// nothing else reads them. uses is nodeUses of the graph after the softmax
// patterns.
func (b *Builder) fuseSoftmaxProducts(uses []int) {
	if b.backend.dotGeneralForceProblemSize != unknownProblemSize {
		return // upstream's kernels: other bits than the fused product's
	}
	for _, n := range b.nodes {
		if _, ok := n.data.(fusedOp); !ok || uses[n.builderIdx] == 0 || n.shape.Rank() == 0 {
			continue
		}
		width := n.shape.Dimensions[n.shape.Rank()-1]
		switch f := n.data.(type) {
		case softmaxFusion:
			for i := range min(len(n.inputs), 2) {
				if i == 1 && f.addendDims != nil {
					break // the second input is a broadcast addend's source
				}
				x, params := foldableProduct(n.inputs[i], width, uses)
				if x == nil {
					continue
				}
				// The product's operands come first, then the other addend,
				// if any (IEEE addition is commutative: the order changes no
				// bit).
				inputs := []*Node{x.inputs[0], x.inputs[1]}
				if len(n.inputs) == 2 {
					inputs = append(inputs, n.inputs[1-i])
				}
				f.product = params
				n.inputs, n.data = inputs, f
				b.backend.fused.softmaxProduct.Add(1)
				break
			}
		case softmaxGradFusion:
			if x, params := foldableProduct(n.inputs[1], width, uses); x != nil {
				f.product = params
				n.inputs, n.data = []*Node{n.inputs[0], x.inputs[0], x.inputs[1]}, f
				b.backend.fused.softmaxProduct.Add(1)
			}
		}
	}
}

// foldableProduct returns the float32 DotGeneral that x is (or reshapes)
// and its parameters when nothing else reads either, its only column axis
// is the softmax's of width elements and it has at least
// softmaxProductMinRows rows a batch item; nil otherwise.
func foldableProduct(x *Node, width int, uses []int) (*Node, *dotGeneralNodeData) {
	if x.opType == backends.OpTypeReshape && uses[x.builderIdx] == 1 {
		// The backend's DotGeneral is [batch, lhs cross, rhs cross], which
		// a Reshape (the same data) gives its axes.
		x = x.inputs[0]
	}
	params, ok := x.data.(*dotGeneralNodeData)
	if x.opType != backends.OpTypeDotGeneral || !ok || uses[x.builderIdx] != 1 ||
		x.shape.DType != dtypes.Float32 || x.inputs[0].shape.DType != dtypes.Float32 || x.inputs[1].shape.DType != dtypes.Float32 ||
		params.rhsCrossSize != width || params.lhsCrossSize < softmaxProductMinRows {
		return nil, nil
	}
	return x, params
}

// execSoftmaxProductFused executes a softmax fused with the product it
// reads (inputs lhs, rhs and the addend, if any): blocks of rows of the
// product go through the softmax in scratch (fuse_softmax_causal.go) and
// into the output.
func execSoftmaxProductFused(backend *Backend, node *Node, f softmaxFusion, inputs []*Buffer) (*Buffer, error) {
	var addend []float32
	if len(inputs) == 3 {
		addend = inputs[2].flat.([]float32)
	}
	s, release := newScoresSoftmax(backend, f.product, inputs[0], inputs[1], addend, node.shape.Dimensions, f.addendDims)
	defer release()
	output := backend.getBufferForShape(node.shape.Clone())
	out := output.flat.([]float32)
	width, m := s.width, s.rowsPerItem
	var errs firstError
	splitRows(backend, f.product.batchSize*m, width, func(lo, hi int) {
		buf := getEWScratch(softmaxProductRows * width)
		defer ewScratch.Put(buf)
		bound := itemBound{item: -1}
		for r := lo; r < hi; {
			rows := min(hi-r, m-r%m, softmaxProductRows)
			if _, err := s.block(out[r*width:(r+rows)*width], *buf, r, rows, &bound); err != nil {
				errs.set(err)
				return
			}
			r += rows
		}
	})
	return errs.result(backend, output)
}

// execSoftmaxGradProductFused executes a softmax gradient fused with the
// product its gradient v is (inputs p, then the product's lhs and rhs):
// each row of v goes through the gradient from scratch into the output.
func execSoftmaxGradProductFused(backend *Backend, node *Node, f softmaxGradFusion, inputs []*Buffer) (*Buffer, error) {
	p := inputs[0].flat.([]float32)
	width := f.product.rhsCrossSize
	return execProductRows(backend, node, f.product, inputs[1], inputs[2], func(r int, v, dst, tmp []float32) {
		softmaxGradRow(dst, p[r*width:(r+1)*width], v, tmp)
	})
}

// execProductRows computes the product lhs·rhs (params its DotGeneral) a
// block of softmaxProductRows rows at a time into scratch and calls row
// with each row's index, its values (scratch it may overwrite), the row of
// the new output to write and a row of scratch of its own.
func execProductRows(backend *Backend, node *Node, params *dotGeneralNodeData, lhs, rhs *Buffer, row func(r int, values, dst, tmp []float32)) (*Buffer, error) {
	product, release := newRowProduct(backend, params, lhs, rhs)
	defer release()
	output := backend.getBufferForShape(node.shape.Clone())
	out := output.flat.([]float32)
	width, m := product.width, product.rowsPerItem
	block := softmaxProductRows
	if product.kRow == 1 && product.kCol != 1 {
		// B transposed (the values' gradient dOut·vᵀ): gemm computes
		// products of up to 256 rows of it swapped, with a transpose of
		// each block; as many rows as the unfused product takes the
		// ordinary path.
		block = max(block, min(m, 512))
	}
	var errs firstError
	splitRows(backend, params.batchSize*m, width, func(lo, hi int) {
		buf := getEWScratch((block + 1) * width)
		defer ewScratch.Put(buf)
		scratch, tmp := (*buf)[:block*width], (*buf)[block*width:]
		for r := lo; r < hi; {
			rows := min(hi-r, m-r%m, block)
			if err := product.multiply(scratch[:rows*width], r, rows, width); err != nil {
				errs.set(errors.Wrapf(err, "%s of DotGeneral(%s, %s)", node.opType, lhs.shape, rhs.shape))
				return
			}
			for k := range rows {
				row(r+k, scratch[k*width:(k+1)*width], out[(r+k)*width:(r+k+1)*width], tmp)
			}
			r += rows
		}
	})
	return errs.result(backend, output)
}

// firstError keeps the first error reported by any goroutine.
type firstError struct {
	mu  sync.Mutex
	err error
}

func (e *firstError) set(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err == nil {
		e.err = err
	}
}

// first returns the first error set, or nil.
func (e *firstError) first() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// result returns output, or the first error after returning output to the
// pool; call it once the goroutines are done.
func (e *firstError) result(backend *Backend, output *Buffer) (*Buffer, error) {
	if err := e.first(); err != nil {
		backend.putBuffer(output)
		return nil, err
	}
	return output, nil
}
