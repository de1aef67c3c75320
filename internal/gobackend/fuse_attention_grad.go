package gobackend

import (
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/pkg/errors"

	"github.com/org/agentevolver/internal/gemm"
)

// Attention gradient fusion (gofast change).
//
// In a train step, attention's backward pass computes the scores'
// gradient dS = p·(dP − Σ dP·p) (a fused softmax gradient with its product
// dP = dOut·vᵀ folded in, fuse_softmax_product.go) and then three products
// of a [B,KV,Tq,G,Tk] tensor: the queries' and keys' gradients read dS, the
// values' gradient reads p. On the small benchmark model each of those
// tensors is 16 MiB, so every product reads its operand from memory, at
// about half the speed it runs from cache. Compile makes the softmax
// gradient a node with several results instead: for one batch item at a
// time it computes that item's rows of dS into scratch (512 KiB there)
// and runs every product that reads dS or p on that item right away,
// while both are in cache. dS itself never reaches memory. The products
// are the unfused DotGenerals' own gemm calls, one batch item each, and a
// gemm element's sum does not depend on the batch or the blocking, so the
// results are the same bits (TestAttentionGradFusion).

// attentionGradMaxItemFloats bounds the scratch of one batch item's rows
// of the scores' gradient (4 MiB): past that a batch item no longer stays
// in cache, and the products are left to run on their own.
const attentionGradMaxItemFloats = 1 << 20

// attentionGradFusion is the data of a softmax gradient made a node with
// several results: the products that read its gradient or its
// probabilities, computed with it. Its inputs are the softmax gradient's
// (p, then its product's operands), then the products' other operands.
type attentionGradFusion struct {
	grad     softmaxGradFusion
	products []gradProduct
}

// gradProduct is one product the attention gradient computes: its
// DotGeneral's parameters and where each operand comes from.
type gradProduct struct {
	params   *dotGeneralNodeData
	lhs, rhs gradOperand
}

// gradOperand is an operand of a gradProduct: input (an index into the
// fused node's inputs), or, when input < 0, the scores' gradient of the
// batch item in scratch, whose row and column strides are given.
type gradOperand struct {
	input                int
	crossStride, kStride int // of the scores' gradient in scratch
}

// itemOperand is a gradOperand at execution: data with the strides of its
// batch, cross and contracted indices, or (scratch) the batch item's
// gradient.
type itemOperand struct {
	data            []float32
	batch, cross, k int
	scratch         bool
}

// resolve returns the operand of the gradient's product with the given
// axes and sizes: the input's data in place or, when its axes do not
// collapse to strides, a copy (tmp, for the pool), or the scratch.
func (g gradOperand) resolve(backend *Backend, inputs []*Buffer, contracting, batch []int, batchSize, crossSize, contractingSize int) (op itemOperand, tmp *Buffer) {
	if g.input < 0 {
		return itemOperand{cross: g.crossStride, k: g.kStride, scratch: true}, nil
	}
	op.data, op.batch, op.cross, op.k, tmp = dgStridedOperand(backend, inputs[g.input], contracting, batch, batchSize, crossSize, contractingSize)
	return op, tmp
}

// item returns the operand's data from batch item i on: ds, the item's
// gradient, for the scratch.
func (o itemOperand) item(i int, ds []float32) []float32 {
	if o.scratch {
		return ds
	}
	return o.data[i*o.batch:]
}

func (f attentionGradFusion) executeMulti(backend *Backend, node *Node, inputs []*Buffer, _ []bool) ([]*Buffer, error) {
	return execAttentionGradFused(backend, node, f, inputs)
}

// fuseAttentionGrad makes each fused softmax gradient with a product,
// whose result only products read, compute those products and the
// products of its probabilities that can run where it does. uses is
// nodeUses of the graph after fuseSoftmaxProducts.
//
// The fused node takes the place just before the first product it
// computes (the values' gradient, which autodiff builds before the
// softmax gradient), so that the products' nodes, which become its
// results, still come after it: the executor runs nodes in index order.
// That is only done when every operand it reads comes before that place.
func (b *Builder) fuseAttentionGrad(uses []int) {
	readers := b.nodeReaders(uses)
	workers := gemmWorkers(b.backend)
	hostOf := make(map[*Node]*Node) // the first product fused -> its softmax gradient
	for _, s := range b.nodes {
		grad, ok := s.data.(softmaxGradFusion)
		if !ok || grad.product == nil || uses[s.builderIdx] == 0 {
			continue
		}
		m, width := grad.product.lhsCrossSize, grad.product.rhsCrossSize
		if m*width > attentionGradMaxItemFloats || grad.product.batchSize < 2*workers {
			continue // a batch item beyond cache, or too few items to share
		}
		probs := s.inputs[0]
		// The products of the gradient must all be fused; those of the
		// probabilities may be, when their place allows it.
		var absorbed []*Node
		var products []gradProduct
		first, lastInput, gradUses := s.builderIdx, -1, 0
		for _, x := range s.inputs {
			lastInput = max(lastInput, x.builderIdx)
		}
		add := func(d *Node, required bool) bool {
			if d == s || slices.Contains(absorbed, d) {
				return true
			}
			gp, ok := gradProductOf(d, s, probs, grad.product, uses)
			if !ok {
				return !required
			}
			last := lastInput
			for _, x := range d.inputs {
				if x != s {
					last = max(last, x.builderIdx)
				}
			}
			if last >= min(first, d.builderIdx) {
				return !required
			}
			for _, x := range d.inputs {
				if x == s {
					gradUses++
				}
			}
			first, lastInput = min(first, d.builderIdx), last
			absorbed, products = append(absorbed, d), append(products, gp)
			return true
		}
		all := true
		for _, d := range readers[s.builderIdx] {
			all = all && add(b.nodes[d], true)
		}
		if !all || gradUses == 0 || gradUses != uses[s.builderIdx] {
			continue // the gradient itself is read by something else
		}
		for _, d := range readers[probs.builderIdx] {
			add(b.nodes[d], false)
		}
		inputs := slices.Clone(s.inputs)
		for i, d := range absorbed {
			gp := &products[i]
			for j, side := range []*gradOperand{&gp.lhs, &gp.rhs} {
				if x := d.inputs[j]; x != s {
					side.input = slices.Index(inputs, x)
					if side.input < 0 {
						inputs = append(inputs, x)
						side.input = len(inputs) - 1
					}
				}
			}
		}
		s.inputs = inputs
		s.data = attentionGradFusion{grad: grad, products: products}
		s.shape = shapes.Invalid()
		s.multiOutputsShapes = make([]shapes.Shape, len(absorbed))
		s.multiOutputsNodes = absorbed
		for i, d := range absorbed {
			s.multiOutputsShapes[i] = d.shape
			d.inputs, d.data = []*Node{s}, nil
			d.isNodeSelectOutput, d.selectOutputIdx = true, i
		}
		if first < s.builderIdx {
			hostOf[b.nodes[first]] = s
		}
		b.backend.fused.attentionGrad.Add(1)
		b.backend.fused.attentionGradProducts.Add(int64(len(absorbed)))
	}
	b.placeBefore(hostOf)
}

// gradProductOf reports whether d is a float32 DotGeneral the fused
// gradient s can compute a batch item at a time: one operand is s or its
// probabilities probs, batched as the gradient's product (grad) with the
// items contiguous. The operand fields are left for the caller.
func gradProductOf(d, s, probs *Node, grad *dotGeneralNodeData, uses []int) (gradProduct, bool) {
	params, ok := d.data.(*dotGeneralNodeData)
	if d.opType != backends.OpTypeDotGeneral || !ok || uses[d.builderIdx] == 0 ||
		d.shape.DType != dtypes.Float32 || params.batchSize != grad.batchSize {
		return gradProduct{}, false
	}
	gp := gradProduct{params: params}
	itemSize := grad.lhsCrossSize * grad.rhsCrossSize
	local := false // an operand is s or probs, read a batch item at a time
	for i, side := range []*gradOperand{&gp.lhs, &gp.rhs} {
		x := d.inputs[i]
		if x.shape.DType != dtypes.Float32 {
			return gradProduct{}, false
		}
		if x != s && x != probs {
			continue
		}
		contracting, batch := params.lhsContractingAxes, params.lhsBatchAxes
		if i == 1 {
			contracting, batch = params.rhsContractingAxes, params.rhsBatchAxes
		}
		bs, cross, k, ok := dgAxesStrides(x.shape, contracting, batch)
		if !ok || bs != itemSize {
			return gradProduct{}, false
		}
		local = true
		if x == s {
			*side = gradOperand{input: -1, crossStride: cross, kStride: k}
		}
	}
	return gp, local
}

// execAttentionGradFused executes a node marked attentionGradFusion: for
// each batch item, its rows of the softmax gradient in scratch, then every
// product's rows of that item from there.
func execAttentionGradFused(backend *Backend, node *Node, f attentionGradFusion, inputs []*Buffer) ([]*Buffer, error) {
	dP, release := newRowProduct(backend, f.grad.product, inputs[1], inputs[2])
	defer release()
	p := inputs[0].flat.([]float32)
	width, m := dP.width, dP.rowsPerItem

	type product struct {
		a, b          itemOperand
		rows, cols, k int
		out           []float32
	}
	products := make([]product, len(f.products))
	outputs := make([]*Buffer, len(f.products))
	var tmps []*Buffer
	defer func() {
		for _, t := range tmps {
			backend.putBuffer(t)
		}
	}()
	for j, gp := range f.products {
		pr := gp.params
		o := &products[j]
		o.rows, o.cols, o.k = pr.lhsCrossSize, pr.rhsCrossSize, pr.contractingSize
		var tmpA, tmpB *Buffer
		o.a, tmpA = gp.lhs.resolve(backend, inputs, pr.lhsContractingAxes, pr.lhsBatchAxes, pr.batchSize, pr.lhsCrossSize, pr.contractingSize)
		o.b, tmpB = gp.rhs.resolve(backend, inputs, pr.rhsContractingAxes, pr.rhsBatchAxes, pr.batchSize, pr.rhsCrossSize, pr.contractingSize)
		for _, t := range []*Buffer{tmpA, tmpB} {
			if t != nil {
				tmps = append(tmps, t)
			}
		}
		outputs[j] = backend.getBufferForShape(node.multiOutputsShapes[j].Clone())
		o.out = outputs[j].flat.([]float32)
	}

	var errs firstError
	items := f.grad.product.batchSize
	backend.team.Split(items, 1, min(gemmWorkers(backend), items), func(lo, hi int) {
		buf := getEWScratch((m + 1) * width)
		defer ewScratch.Put(buf)
		ds, tmp := (*buf)[:m*width], (*buf)[m*width:]
		for item := lo; item < hi; item++ {
			if err := dP.multiply(ds, item*m, m, width); err != nil {
				errs.set(errors.Wrapf(err, "attention gradient of DotGeneral(%s, %s)", inputs[1].shape, inputs[2].shape))
				return
			}
			for k := range m {
				r := item*m + k
				row := ds[k*width : (k+1)*width]
				softmaxGradRow(row, p[r*width:(r+1)*width], row, tmp)
			}
			for j := range products {
				o := &products[j]
				size := o.rows * o.cols
				err := gemm.Multiply(&gemm.Params{
					Batch: 1, M: o.rows, N: o.cols, K: o.k,
					A: o.a.item(item, ds), ARowStride: o.a.cross, AColStride: o.a.k,
					B: o.b.item(item, ds), BRowStride: o.b.k, BColStride: o.b.cross,
					C: o.out[item*size : (item+1)*size], MaxWorkers: 1,
				})
				if err != nil {
					errs.set(errors.Wrapf(err, "product %d of an attention gradient", j))
					return
				}
			}
		}
	})
	if err := errs.first(); err != nil {
		for _, out := range outputs {
			backend.putBuffer(out)
		}
		return nil, err
	}
	return outputs, nil
}
