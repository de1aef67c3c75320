package gobackend

import (
	"math"
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/support/xslices"

	"github.com/org/agentevolver/internal/vecmath"
)

// Softmax fusion (gofast change).
//
// graph.Softmax(x, -1) reaches the backend as six nodes:
//
//	m := Reshape(ReduceMax(x, last))   // [..., 1]
//	e := Exp(Sub(x, m))
//	s := Reshape(ReduceSum(e, last))   // [..., 1]
//	p := Div(e, s)
//
// and each of the four full-size ones reads and writes the whole tensor: on
// the attention scores of a train step ([B,KV,T,G,T], 16 MB on the small
// benchmark model) they cost about 3.5 ms a layer, mostly memory traffic.
// When nothing else reads m, the Sub, e or s, Compile replaces p by one
// node that does all of it a row at a time, the row staying in L1; when x is
// itself an Add of two same-shaped operands read by nothing else (the
// scores plus the attention bias), the Add is folded in too.
//
// The fused node applies to each row the very kernels the separate ops
// apply to it (vecmath's Max, SubScalar, Exp and DivScalar, and sumRow,
// which ReduceSum uses for a last-axis sum), so its results are the same
// bit for bit; TestSoftmaxFusionBitwise checks it against the unfused graph.

// The gradient of a softmax p over the last axis, dx = p·(v − Σ v·p) as
// the model writes it (Mul(p, Sub(v, Reshape(ReduceSum(Mul(v, p)))))), is
// fused the same way: one node reading p and v a row at a time instead of
// four full passes, with the kernels the separate ops use.

// softmaxGradFusion marks a Mul node that computes p·(v − Σ v·p) over the
// last axis from its inputs p and v.
type softmaxGradFusion struct {
	// product, when set, is the DotGeneral whose result is v, folded in
	// (fuse_softmax_product.go): the inputs are p and its operands.
	product *dotGeneralNodeData
}

func (f softmaxGradFusion) execute(backend *Backend, node *Node, inputs []*Buffer, inputsOwned []bool) (*Buffer, error) {
	if f.product != nil {
		return execSoftmaxGradProductFused(backend, node, f, inputs)
	}
	return execSoftmaxGradFused(backend, node, inputs, inputsOwned)
}

// softmaxFusion marks a Div node that computes a whole softmax over its
// last axis from its inputs: x alone, or addends whose sum is x.
type softmaxFusion struct {
	// addendDims, when set, are the dimensions of the second addend, which
	// the sum broadcasts over its size-1 axes (never the last): the
	// attention bias [B,1,T,1,T] is read as it is, instead of the
	// [B,KV,T,G,T] copy the graph broadcast it to.
	addendDims []int
	// product, when set, is the DotGeneral whose result is x, folded in
	// (fuse_softmax_product.go): the inputs are its operands, then the
	// other addend, if any.
	product *dotGeneralNodeData
}

func (f softmaxFusion) execute(backend *Backend, node *Node, inputs []*Buffer, inputsOwned []bool) (*Buffer, error) {
	if f.product != nil {
		return execSoftmaxProductFused(backend, node, f, inputs)
	}
	return execSoftmaxFused(backend, node, f.addendDims, inputs, inputsOwned)
}

// softmaxGradPattern reports whether d is Mul(p, Sub(v, Reshape(ReduceSum(
// Mul(v, p), last)))), either operand order of either Mul, float32, with
// every intermediate read by nothing else, and returns p and v.
func softmaxGradPattern(d *Node, uses []int) ([]*Node, bool) {
	if d.opType != backends.OpTypeMul || d.data != nil || d.shape.DType != dtypes.Float32 || d.shape.Rank() == 0 || uses[d.builderIdx] == 0 {
		return nil, false
	}
	if d.shape.Dimensions[d.shape.Rank()-1] < 2 {
		return nil, false
	}
	for _, order := range [2][2]int{{0, 1}, {1, 0}} {
		p, sub := d.inputs[order[0]], d.inputs[order[1]]
		if sub.opType != backends.OpTypeSub || uses[sub.builderIdx] != 1 || !sub.shape.Equal(d.shape) || !p.shape.Equal(d.shape) {
			continue
		}
		v, keep := sub.inputs[0], sub.inputs[1]
		if !v.shape.Equal(d.shape) || keep.opType != backends.OpTypeReshape || uses[keep.builderIdx] != 1 {
			continue
		}
		vp := keep.inputs[0]
		if vp.opType != backends.OpTypeReduceSum {
			continue
		}
		vp = vp.inputs[0]
		if vp.opType != backends.OpTypeMul || uses[vp.builderIdx] != 1 || !vp.shape.Equal(d.shape) ||
			!(vp.inputs[0] == v && vp.inputs[1] == p || vp.inputs[0] == p && vp.inputs[1] == v) {
			continue
		}
		if !lastAxisReduction(keep, backends.OpTypeReduceSum, vp, uses) {
			continue
		}
		return []*Node{p, v}, true
	}
	return nil, false
}

// softmaxPattern reports whether p is the Div of a float32 softmax over
// the last axis whose intermediates nothing else reads, and returns the
// fused node's inputs.
func softmaxPattern(p *Node, uses []int) ([]*Node, bool) {
	if p.opType != backends.OpTypeDiv || p.data != nil || p.shape.DType != dtypes.Float32 || p.shape.Rank() == 0 || uses[p.builderIdx] == 0 {
		return nil, false
	}
	rank := p.shape.Rank()
	if p.shape.Dimensions[rank-1] < 2 {
		return nil, false // nothing to reduce: ReduceMax/Sum take another path
	}
	e, sum := p.inputs[0], p.inputs[1]
	if e.opType != backends.OpTypeExp || !e.shape.Equal(p.shape) || uses[e.builderIdx] != 2 {
		return nil, false
	}
	if !lastAxisReduction(sum, backends.OpTypeReduceSum, e, uses) || uses[sum.builderIdx] != 1 {
		return nil, false
	}
	sub := e.inputs[0]
	if sub.opType != backends.OpTypeSub || !sub.shape.Equal(p.shape) || uses[sub.builderIdx] != 1 {
		return nil, false
	}
	x, m := sub.inputs[0], sub.inputs[1]
	if !x.shape.Equal(p.shape) || !lastAxisReduction(m, backends.OpTypeReduceMax, x, uses) || uses[m.builderIdx] != 1 {
		return nil, false
	}
	if x.opType == backends.OpTypeAdd && uses[x.builderIdx] == 2 && x.inputs[0].shape.Equal(x.shape) && x.inputs[1].shape.Equal(x.shape) {
		return []*Node{x.inputs[0], x.inputs[1]}, true
	}
	return []*Node{x}, true
}

// broadcastSource returns the addends y and z of a fused sum in the order
// the fused node reads them, and, when one of them is a BroadcastInDim
// over size-1 axes other than the last (rank kept, axes in order), puts its
// source second and returns the source's dimensions. IEEE addition is
// commutative, so the order changes no bit.
func broadcastSource(y, z *Node) (first, second *Node, sourceDims []int) {
	for _, pair := range [2][2]*Node{{y, z}, {z, y}} {
		full, bcast := pair[0], pair[1]
		if bcast.opType != backends.OpTypeBroadcastInDim {
			continue
		}
		src := bcast.inputs[0]
		axes, ok := bcast.data.([]int)
		rank := bcast.shape.Rank()
		if !ok || src.shape.DType != bcast.shape.DType || src.shape.Rank() != rank || !slices.Equal(axes, xslices.Iota(0, rank)) {
			continue
		}
		dims, srcDims := bcast.shape.Dimensions, src.shape.Dimensions
		fits := srcDims[rank-1] == dims[rank-1]
		for a := range rank - 1 {
			fits = fits && (srcDims[a] == dims[a] || srcDims[a] == 1)
		}
		if fits {
			return full, src, slices.Clone(srcDims)
		}
	}
	return y, z, nil
}

// lastAxisReduction reports whether keep is Reshape(op(of, last axis)) to
// of's shape with a last dimension of 1, the reduction read by nothing
// else.
func lastAxisReduction(keep *Node, op backends.OpType, of *Node, uses []int) bool {
	if keep.opType != backends.OpTypeReshape {
		return false
	}
	red := keep.inputs[0]
	if red.opType != op || red.inputs[0] != of || uses[red.builderIdx] != 1 {
		return false
	}
	axes, ok := red.data.([]int)
	rank := of.shape.Rank()
	if !ok || len(axes) != 1 || axes[0] != rank-1 {
		return false
	}
	kept := keep.shape.Dimensions
	return keep.shape.DType == of.shape.DType && len(kept) == rank && kept[rank-1] == 1 &&
		slices.Equal(kept[:rank-1], of.shape.Dimensions[:rank-1])
}

// execSoftmaxFused executes a node marked softmaxFusion (addendDims its
// broadcast addend's dimensions, or nil): its output row by row, each as
// the unfused ops compute it. The output takes over an owned
// input's buffer: every row is read before it is written, and the vecmath
// kernels allow dst to be one of their inputs.
func execSoftmaxFused(backend *Backend, node *Node, addendDims []int, inputs []*Buffer, inputsOwned []bool) (*Buffer, error) {
	x := inputs[0].flat.([]float32)
	var addend []float32
	if len(inputs) == 2 {
		addend = inputs[1].flat.([]float32)
	}
	output := fusedOutput(backend, node, inputs, inputsOwned)
	out := output.flat.([]float32)
	dims := node.shape.Dimensions
	width := dims[len(dims)-1]
	addendRow := func(r int) int { return r }
	if addendDims != nil {
		addendRow = broadcastRows(dims, addendDims)
	}
	splitRows(backend, len(out)/width, width, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			var add []float32
			if addend != nil {
				a := addendRow(r)
				add = addend[a*width : (a+1)*width]
			}
			softmaxRow(out[r*width:(r+1)*width], x[r*width:(r+1)*width], add)
		}
	})
	return output, nil
}

// softmaxRow sets dst to the softmax of src (plus add, when not nil) with
// the kernels of the separate ops: Add, Max, SubScalar, Exp, the row sum of
// ReduceSum and DivScalar. dst may be src.
func softmaxRow(dst, src, add []float32) {
	if add != nil {
		vecmath.Add(dst, src, add)
		src = dst
	}
	m := vecmath.Max(float32(math.Inf(-1)), src) // ReduceMax's initial value
	vecmath.SubScalar(dst, src, m)
	vecmath.Exp(dst, dst)
	vecmath.DivScalar(dst, dst, sumRow(dst))
}

// broadcastRows returns the map from a row of an array of dims to the row
// of an array of srcDims (the same last dimension, other axes equal or 1)
// that broadcasts to it.
func broadcastRows(dims, srcDims []int) func(r int) int {
	rank := len(dims)
	strides := make([]int, rank-1) // in rows of the source; 0 on broadcast axes
	step := 1
	for a := rank - 2; a >= 0; a-- {
		if srcDims[a] != 1 {
			strides[a] = step
		}
		step *= srcDims[a]
	}
	return func(r int) int {
		row := 0
		for a := rank - 2; a >= 0; a-- {
			row += (r % dims[a]) * strides[a]
			r /= dims[a]
		}
		return row
	}
}

// execSoftmaxGradFused executes a node marked softmaxGradFusion, inputs p
// and v, row by row as the unfused ops compute it: s = Σ v·p, then
// p·(v − s). The output may take over p's or v's buffer: a row of it is
// written only after that row of both is read, or exactly in place.
func execSoftmaxGradFused(backend *Backend, node *Node, inputs []*Buffer, inputsOwned []bool) (*Buffer, error) {
	p, v := inputs[0].flat.([]float32), inputs[1].flat.([]float32)
	output := fusedOutput(backend, node, inputs, inputsOwned)
	out := output.flat.([]float32)
	width := node.shape.Dimensions[node.shape.Rank()-1]
	splitRows(backend, len(out)/width, width, func(lo, hi int) {
		scratch := make([]float32, width)
		for r := lo; r < hi; r++ {
			softmaxGradRow(out[r*width:(r+1)*width], p[r*width:(r+1)*width], v[r*width:(r+1)*width], scratch)
		}
	})
	return output, nil
}

// softmaxGradRow sets dst to p·(v − Σ v·p) with the kernels of the separate
// ops (Mul, the row sum of ReduceSum, SubScalar), using scratch, which must
// be none of the others. dst may be p or v.
func softmaxGradRow(dst, p, v, scratch []float32) {
	vecmath.Mul(scratch, v, p)
	vecmath.SubScalar(scratch, v, sumRow(scratch))
	vecmath.Mul(dst, p, scratch)
}

// splitRows calls fn over rows [0, rows) of width elements in contiguous
// chunks, concurrently, as splitRange splits elements.
func splitRows(backend *Backend, rows, width int, fn func(lo, hi int)) {
	workers := min(gemmWorkers(backend), rows*width/splitMinElements, rows)
	if workers <= 1 {
		fn(0, rows)
		return
	}
	backend.team.Split(rows, (rows+workers-1)/workers, workers, fn)
}
