package gobackend

import (
	"slices"
	"sync"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/pkg/errors"

	"github.com/org/agentevolver/internal/gemm"
)

// Attention fusion (gofast change).
//
// In a forward-only graph (log-probs, prefill, a reference policy) the
// attention probabilities are read only by the product with the values.
// When that product's operand is a fused softmax with its scores product
// folded in (fuse_softmax_product.go), Compile folds the softmax into the
// values' product as well: each block of softmaxProductRows rows of
// scores is multiplied, turned into probabilities and multiplied by the
// values in scratch, and only the output [rows, head dim] reaches memory.
// The products and the softmax compute every element as the separate ops
// do, so the bits are the same (TestAttentionFusion).

// attentionFusion is the data of the values' DotGeneral that computes its
// probabilities itself: the softmax's (with its scores product) and the
// values' product's parameters. The inputs are the softmax's (the scores'
// operands, then the bias, if any), then the values.
type attentionFusion struct {
	softmax   softmaxFusion
	values    *dotGeneralNodeData
	probsDims []int // the softmax's dimensions, which its addend broadcasts to
}

func (f attentionFusion) execute(backend *Backend, node *Node, inputs []*Buffer, _ []bool) (*Buffer, error) {
	return execAttentionFused(backend, node, f, inputs)
}

// fuseAttention folds into each product of probabilities and values the
// fused softmax that computes the probabilities, when nothing else reads
// them. uses is nodeUses of the graph after fuseSoftmaxProducts.
func (b *Builder) fuseAttention(uses []int) {
	for _, n := range b.nodes {
		values, ok := n.data.(*dotGeneralNodeData)
		if n.opType != backends.OpTypeDotGeneral || !ok || uses[n.builderIdx] == 0 || n.shape.DType != dtypes.Float32 ||
			n.inputs[1].shape.DType != dtypes.Float32 {
			continue
		}
		p := n.inputs[0]
		softmax, ok := p.data.(softmaxFusion)
		if !ok || softmax.product == nil || uses[p.builderIdx] != 1 {
			continue
		}
		// The probabilities must be the product's rows as they are: row r
		// of the softmax is row r of the batched [batch, rows, keys] operand.
		width := p.shape.Dimensions[p.shape.Rank()-1]
		bs, rs, cs, ok := dgAxesStrides(p.shape, values.lhsContractingAxes, values.lhsBatchAxes)
		if !ok || cs != 1 || rs != width || values.contractingSize != width ||
			values.batchSize != softmax.product.batchSize || values.lhsCrossSize != softmax.product.lhsCrossSize ||
			values.batchSize > 1 && bs != values.lhsCrossSize*width {
			continue
		}
		n.inputs = append(append([]*Node(nil), p.inputs...), n.inputs[1])
		n.data = attentionFusion{softmax: softmax, values: values, probsDims: slices.Clone(p.shape.Dimensions)}
		b.backend.fused.attention.Add(1)
	}
}

// execAttentionFused executes a node marked attentionFusion: blocks of
// rows of scores are multiplied, turned into probabilities in place and
// multiplied by the values into the output.
func execAttentionFused(backend *Backend, node *Node, f attentionFusion, inputs []*Buffer) (*Buffer, error) {
	scores, values := f.softmax.product, f.values
	last := len(inputs) - 1
	a, aBatch, aRow, aCol, lhsTmp := dgStridedOperand(backend, inputs[0], scores.lhsContractingAxes, scores.lhsBatchAxes, scores.batchSize, scores.lhsCrossSize, scores.contractingSize)
	k, kBatch, kCol, kRow, rhsTmp := dgStridedOperand(backend, inputs[1], scores.rhsContractingAxes, scores.rhsBatchAxes, scores.batchSize, scores.rhsCrossSize, scores.contractingSize)
	v, vBatch, vCol, vRow, valuesTmp := dgStridedOperand(backend, inputs[last], values.rhsContractingAxes, values.rhsBatchAxes, values.batchSize, values.rhsCrossSize, values.contractingSize)
	defer func() {
		for _, tmp := range []*Buffer{lhsTmp, rhsTmp, valuesTmp} {
			if tmp != nil {
				backend.putBuffer(tmp)
			}
		}
	}()
	var addend []float32
	if last == 3 {
		addend = inputs[2].flat.([]float32)
	}
	width, m, hd := scores.rhsCrossSize, scores.lhsCrossSize, values.rhsCrossSize
	addendRow := func(r int) int { return r }
	if f.softmax.addendDims != nil {
		addendRow = broadcastRows(f.probsDims, f.softmax.addendDims)
	}
	output := backend.getBufferForShape(node.shape.Clone())
	out := output.flat.([]float32)
	var (
		mu       sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil {
			firstErr = errors.Wrapf(err, "attention of %s, %s and values %s", inputs[0].shape, inputs[1].shape, inputs[last].shape)
		}
	}
	splitRows(backend, scores.batchSize*m, width, func(lo, hi int) {
		buf := getEWScratch(softmaxProductRows * width)
		defer ewScratch.Put(buf)
		scratch := *buf
		for r := lo; r < hi; {
			item, i := r/m, r%m
			rows := min(hi-r, m-i, softmaxProductRows)
			probs := scratch[:rows*width]
			err := gemm.Multiply(&gemm.Params{
				Batch: 1, M: rows, N: width, K: scores.contractingSize,
				A: a[item*aBatch+i*aRow:], ARowStride: aRow, AColStride: aCol,
				B: k[item*kBatch:], BRowStride: kRow, BColStride: kCol,
				C: probs, MaxWorkers: 1,
			})
			if err != nil {
				fail(err)
				return
			}
			for j := range rows {
				var add []float32
				if addend != nil {
					ar := addendRow(r + j)
					add = addend[ar*width : (ar+1)*width]
				}
				row := probs[j*width : (j+1)*width]
				softmaxRow(row, row, add)
			}
			err = gemm.Multiply(&gemm.Params{
				Batch: 1, M: rows, N: hd, K: width,
				A: probs, ARowStride: width, AColStride: 1,
				B: v[item*vBatch:], BRowStride: vRow, BColStride: vCol,
				C: out[r*hd : (r+rows)*hd], MaxWorkers: 1,
			})
			if err != nil {
				fail(err)
				return
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
