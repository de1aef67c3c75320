package gobackend

import (
	"sync"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/pkg/errors"

	"github.com/org/agentevolver/internal/gemm"
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
// when nothing else reads it. uses is nodeUses of the graph after the
// softmax patterns.
func (b *Builder) fuseSoftmaxProducts(uses []int) {
	if b.backend.dotGeneralForceProblemSize != unknownProblemSize {
		return // upstream's kernels: other bits than the fused product's
	}
	for _, n := range b.nodes {
		f, ok := n.data.(softmaxFusion)
		if !ok || uses[n.builderIdx] == 0 || f.product != nil {
			continue
		}
		width := n.shape.Dimensions[n.shape.Rank()-1]
		for i := range min(len(n.inputs), 2) {
			x := n.inputs[i]
			if x.opType == backends.OpTypeReshape && uses[x.builderIdx] == 1 {
				// The backend's DotGeneral is [batch, lhs cross, rhs cross],
				// which a Reshape (the same data) gives its axes.
				x = x.inputs[0]
			}
			params, ok := x.data.(*dotGeneralNodeData)
			if x.opType != backends.OpTypeDotGeneral || !ok || uses[x.builderIdx] != 1 ||
				x.shape.DType != dtypes.Float32 || x.inputs[0].shape.DType != dtypes.Float32 || x.inputs[1].shape.DType != dtypes.Float32 ||
				params.rhsCrossSize != width || params.lhsCrossSize < softmaxProductMinRows {
				continue
			}
			if i == 1 && f.addendDims != nil {
				continue // the second input is a broadcast addend's source
			}
			// The product's operands come first, then the other addend, if
			// any (IEEE addition is commutative: the order changes no bit).
			inputs := []*Node{x.inputs[0], x.inputs[1]}
			if len(n.inputs) == 2 {
				inputs = append(inputs, n.inputs[1-i])
			}
			f.product = params
			n.inputs, n.data = inputs, f
			b.backend.fused.softmaxProduct.Add(1)
			break
		}
	}
}

// execSoftmaxProductFused executes a softmax fused with the product it
// reads (inputs lhs, rhs and the addend, if any): blocks of rows of the
// product are multiplied into scratch, and each row goes through the
// softmax from there into the output.
func execSoftmaxProductFused(backend *Backend, node *Node, f softmaxFusion, inputs []*Buffer) (*Buffer, error) {
	params := f.product
	lhs, rhs := inputs[0], inputs[1]
	a, aBatch, aRow, aCol, lhsTmp := dgStridedOperand(backend, lhs, params.lhsContractingAxes, params.lhsBatchAxes, params.batchSize, params.lhsCrossSize, params.contractingSize)
	bData, bBatch, bCol, bRow, rhsTmp := dgStridedOperand(backend, rhs, params.rhsContractingAxes, params.rhsBatchAxes, params.batchSize, params.rhsCrossSize, params.contractingSize)
	defer func() {
		for _, tmp := range []*Buffer{lhsTmp, rhsTmp} {
			if tmp != nil {
				backend.putBuffer(tmp)
			}
		}
	}()
	var addend []float32
	if len(inputs) == 3 {
		addend = inputs[2].flat.([]float32)
	}
	output := backend.getBufferForShape(node.shape.Clone())
	out := output.flat.([]float32)
	dims := node.shape.Dimensions
	width, m := params.rhsCrossSize, params.lhsCrossSize
	addendRow := func(r int) int { return r }
	if f.addendDims != nil {
		addendRow = broadcastRows(dims, f.addendDims)
	}
	var (
		mu       sync.Mutex
		firstErr error
	)
	splitRows(backend, params.batchSize*m, width, func(lo, hi int) {
		buf := getEWScratch(softmaxProductRows * width)
		defer ewScratch.Put(buf)
		scratch := *buf
		for r := lo; r < hi; {
			item, i := r/m, r%m
			rows := min(hi-r, m-i, softmaxProductRows)
			aOff, bOff := item*aBatch+i*aRow, item*bBatch
			err := gemm.Multiply(&gemm.Params{
				Batch: 1, M: rows, N: width, K: params.contractingSize,
				A: a[aOff:], ARowStride: aRow, AColStride: aCol,
				B: bData[bOff:], BRowStride: bRow, BColStride: bCol,
				C: scratch[:rows*width], MaxWorkers: 1,
			})
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = errors.Wrapf(err, "softmax of DotGeneral(%s, %s)", lhs.shape, rhs.shape)
				}
				mu.Unlock()
				return
			}
			for k := range rows {
				var add []float32
				if addend != nil {
					ar := addendRow(r + k)
					add = addend[ar*width : (ar+1)*width]
				}
				softmaxRow(out[(r+k)*width:(r+k+1)*width], scratch[k*width:(k+1)*width], add)
			}
			r += rows
		}
	})
	if firstErr != nil {
		backend.putBuffer(output)
		return nil, firstErr
	}
	return output, nil
}
