package gobackend

import (
	"math"
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
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
// fused softmax that computes the probabilities. When nothing else reads
// them, they stay in scratch; otherwise (a train step) a new node computes
// both, in the softmax's place, as long as the values come before it.
// uses is nodeUses of the graph after fuseAttentionGrad.
func (b *Builder) fuseAttention(uses []int) {
	moves := make(map[*Node]*Node)
	for _, n := range b.nodes {
		values, ok := n.data.(*dotGeneralNodeData)
		if n.opType != backends.OpTypeDotGeneral || !ok || uses[n.builderIdx] == 0 || n.shape.DType != dtypes.Float32 ||
			n.inputs[1].shape.DType != dtypes.Float32 {
			continue
		}
		p := n.inputs[0]
		softmax, ok := p.data.(softmaxFusion)
		if !ok || softmax.product == nil || (uses[p.builderIdx] > 1 && n.inputs[1].builderIdx > p.builderIdx) || moves[p] != nil {
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
		fusion := attentionFusion{softmax: softmax, values: values, probsDims: slices.Clone(p.shape.Dimensions)}
		inputs := append(append([]*Node(nil), p.inputs...), n.inputs[1])
		if uses[p.builderIdx] == 1 {
			n.inputs, n.data = inputs, fusion
			b.backend.fused.attention.Add(1)
			continue
		}
		both := &Node{builder: b, opType: p.opType, shape: shapes.Invalid(), inputs: inputs, data: attentionProbsFusion{fusion},
			multiOutputsShapes: []shapes.Shape{p.shape, n.shape}, multiOutputsNodes: []*Node{p, n}}
		for i, out := range both.multiOutputsNodes {
			out.inputs, out.data = []*Node{both}, nil
			out.isNodeSelectOutput, out.selectOutputIdx = true, i
		}
		moves[p] = both
		b.backend.fused.attentionProbs.Add(1)
	}
	b.placeBefore(moves)
}

// execAttentionFused executes a node marked attentionFusion.
func execAttentionFused(backend *Backend, node *Node, f attentionFusion, inputs []*Buffer) (*Buffer, error) {
	output := backend.getBufferForShape(node.shape.Clone())
	if err := attentionRows(backend, f, inputs, nil, output.flat.([]float32)); err != nil {
		backend.putBuffer(output)
		return nil, err
	}
	return output, nil
}

// attentionRows computes a fused attention's output out: blocks of rows
// of scores are multiplied and turned into probabilities, in scratch or,
// when probsOut is not nil, in those rows of probsOut
// (fuse_softmax_causal.go), then multiplied by the values into out, over
// the columns that may be non-zero when the values there are finite.
func attentionRows(backend *Backend, f attentionFusion, inputs []*Buffer, probsOut, out []float32) error {
	values := f.values
	last := len(inputs) - 1
	var addend []float32
	if last == 3 {
		addend = inputs[2].flat.([]float32)
	}
	s, release := newScoresSoftmax(backend, f.softmax.product, inputs[0], inputs[1], addend, f.probsDims, f.softmax.addendDims)
	defer release()
	v, vBatch, vCol, vRow, valuesTmp := dgStridedOperand(backend, inputs[last], values.rhsContractingAxes, values.rhsBatchAxes, values.batchSize, values.rhsCrossSize, values.contractingSize)
	if valuesTmp != nil {
		defer backend.putBuffer(valuesTmp)
	}
	width, m, hd := s.width, s.rowsPerItem, values.rhsCrossSize
	var errs firstError
	splitRows(backend, values.batchSize*m, width, func(lo, hi int) {
		buf := getEWScratch(2 * softmaxProductRows * width)
		defer ewScratch.Put(buf)
		probs, compact := (*buf)[:softmaxProductRows*width], (*buf)[softmaxProductRows*width:]
		bound := itemBound{item: -1}
		finiteItem, finite := -1, false
		for r := lo; r < hi; {
			item := r / m
			rows := min(hi-r, m-r%m, softmaxProductRows)
			if probsOut != nil {
				probs = probsOut[r*width : (r+rows)*width]
			}
			cols, err := s.block(probs[:rows*width], compact, r, rows, &bound)
			if err != nil {
				errs.set(err)
				return
			}
			if cols < width && finiteItem != item {
				finiteItem, finite = item, valuesFinite(v[item*vBatch:], vRow, vCol, width, hd)
			}
			if !finite {
				cols = width // 0·Inf is NaN: the full sum
			}
			err = gemm.Multiply(&gemm.Params{
				Batch: 1, M: rows, N: hd, K: cols,
				A: probs, ARowStride: width, AColStride: 1,
				B: v[item*vBatch:], BRowStride: vRow, BColStride: vCol,
				C: out[r*hd : (r+rows)*hd], MaxWorkers: 1,
			})
			if err != nil {
				errs.set(errors.Wrapf(err, "attention of %s, %s and values %s", inputs[0].shape, inputs[1].shape, inputs[last].shape))
				return
			}
			r += rows
		}
	})
	return errs.first()
}

// attentionProbsFusion is the data of a node with two results, a fused
// softmax's probabilities (with their scores product) and their product
// with the values, which reads them as they are computed: the attention
// of a train step, whose backward pass reads the probabilities as well.
// Its inputs are an attentionFusion's.
type attentionProbsFusion struct {
	attention attentionFusion
}

func (f attentionProbsFusion) executeMulti(backend *Backend, node *Node, inputs []*Buffer, _ []bool) ([]*Buffer, error) {
	probs := backend.getBufferForShape(node.multiOutputsShapes[0].Clone())
	output := backend.getBufferForShape(node.multiOutputsShapes[1].Clone())
	if err := attentionRows(backend, f.attention, inputs, probs.flat.([]float32), output.flat.([]float32)); err != nil {
		backend.putBuffer(probs)
		backend.putBuffer(output)
		return nil, err
	}
	return []*Buffer{probs, output}, nil
}

// valuesFinite reports whether rows [0, keys) of a batch item's values
// (row stride rs, column stride cs, cols columns) are all finite.
func valuesFinite(v []float32, rs, cs, keys, cols int) bool {
	for j := range keys {
		for c := range cols {
			if x := v[j*rs+c*cs]; math.IsInf(float64(x), 0) || x != x {
				return false
			}
		}
	}
	return true
}
