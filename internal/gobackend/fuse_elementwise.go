package gobackend

import (
	"sync"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/org/agentevolver/internal/vecmath"
)

// Elementwise fusion (gofast change).
//
// A chain of float32 elementwise ops, such as the gradient of the MLP's
// activation, is one pass over memory per op: each reads its operands and
// writes a whole tensor, which for the small benchmark model's [8,256,768]
// activations (6 MiB) goes beyond L2. Compile groups such ops into regions:
// an op joins the region of its consumers when all of them are in one
// region of its shape and nothing else (no other op, no output) reads it.
// A region of two or more ops (or of one op with a broadcast operand)
// becomes its root node, which computes a block of elements at a time
// through every op of the region, with each intermediate block in L1; a
// last-axis ReduceSum that alone reads a region computes it a row at a
// time (rowSumFusion). The steps call the kernels the separate ops
// call (execFloat32Binary's f32VV/f32VS/f32SV, vecmath's Neg, Exp, Sigmoid
// and Sqrt), whose results depend on an element's operands alone, so the
// fused results are the same bits; TestElementwiseFusionBitwise checks it.
//
// An operand of a region's op is another op of the region, an input of the
// root's shape read block by block, an input of one element (a scalar, as
// MulScalar builds), or an input broadcast to the root's shape: the
// operand of a binary op with axes of size 1 ([B,T,1] against [B,T,D], an
// RMS norm's scale) or the source of a BroadcastInDim, which then is an op
// of the region. A broadcast operand's block is filled from its source
// (an ewFill step, ewBroadcast) before the ops read it; it is a copy, so
// the bits are the same.

// ewKind is what one step of an elementwise region computes.
type ewKind uint8

const (
	ewAdd ewKind = iota
	ewSub
	ewMul
	ewDiv
	ewNeg
	ewExp
	ewLogistic
	ewSqrt
	// ewFill fills the block from an input broadcast to the region's
	// shape: a BroadcastInDim, or a binary op's operand with axes of size 1.
	ewFill
)

// ewKinds maps the fusable op types to their step kinds.
var ewKinds = map[backends.OpType]ewKind{
	backends.OpTypeAdd: ewAdd, backends.OpTypeSub: ewSub, backends.OpTypeMul: ewMul, backends.OpTypeDiv: ewDiv,
	backends.OpTypeNeg: ewNeg, backends.OpTypeExp: ewExp, backends.OpTypeLogistic: ewLogistic, backends.OpTypeSqrt: ewSqrt,
	backends.OpTypeBroadcastInDim: ewFill,
}

// ewOperand is where a step reads an operand: the result of an earlier
// step (step >= 0) or input input of the fused node, a scalar when it has
// one element.
type ewOperand struct {
	step, input int
	scalar      bool
}

// ewStep is one op of a region: its kind, its operands (one for the unary
// kinds and ewFill, whose operand is an input broadcast as bcast
// says) and the scratch slot that holds its block, -1 for the last step,
// which writes the output.
type ewStep struct {
	kind  ewKind
	args  [2]ewOperand
	slot  int
	bcast *ewBroadcast
}

// elementwiseFusion is the data of a region's root: its steps in an order
// where each step's operands come first, and how many scratch blocks they
// need at once.
type elementwiseFusion struct {
	steps []ewStep
	slots int
}

func (f *elementwiseFusion) execute(backend *Backend, node *Node, inputs []*Buffer, inputsOwned []bool) (*Buffer, error) {
	in := float32Inputs(inputs)
	output := fusedOutput(backend, node, inputs, inputsOwned)
	out := output.flat.([]float32)
	splitRange(backend, len(out), func(lo, hi int) {
		width := min(ewBlock, hi-lo)
		buf := getEWScratch(f.slots * width)
		for b := lo; b < hi; b += width {
			e := min(b+width, hi)
			f.block(*buf, width, in, out[b:e], b, e)
		}
		ewScratch.Put(buf)
	})
	return output, nil
}

// float32Inputs returns the values of a region's inputs.
func float32Inputs(inputs []*Buffer) [][]float32 {
	in := make([][]float32, len(inputs))
	for i, buf := range inputs {
		in[i] = buf.flat.([]float32)
	}
	return in
}

// ewBlock is how many elements a region computes at a time: a few blocks
// of scratch and of the inputs stay in L1.
const ewBlock = 1024

// ewScratch holds the scratch blocks of finished regions for the next:
// allocating them per call cost a decode step's small regions (2048
// elements) about half their time.
var ewScratch sync.Pool

// getEWScratch returns scratch of at least n floats from ewScratch.
func getEWScratch(n int) *[]float32 {
	if buf, ok := ewScratch.Get().(*[]float32); ok && cap(*buf) >= n {
		*buf = (*buf)[:n]
		return buf
	}
	buf := make([]float32, n, max(n, 4*ewBlock))
	return &buf
}

// block computes the region's elements [b, e) through every step, the
// last into final (e-b elements); slot s of scratch starts at s*width.
func (f *elementwiseFusion) block(scratch []float32, width int, in [][]float32, final []float32, b, e int) {
	n := e - b
	vec := func(o ewOperand) []float32 {
		if o.step >= 0 {
			s := f.steps[o.step].slot
			return scratch[s*width : s*width+n]
		}
		return in[o.input][b:e]
	}
	for _, st := range f.steps {
		dst := final
		if st.slot >= 0 {
			dst = scratch[st.slot*width : st.slot*width+n]
		}
		x := st.args[0]
		switch st.kind {
		case ewNeg:
			vecmath.Neg(dst, vec(x))
		case ewExp:
			vecmath.Exp(dst, vec(x))
		case ewLogistic:
			vecmath.Sigmoid(dst, vec(x))
		case ewSqrt:
			vecmath.Sqrt(dst, vec(x))
		case ewFill:
			st.bcast.fill(dst, in[x.input], b)
		default:
			// The cases of execFloat32Binary, in its order.
			op, y := f32Op(st.kind-ewAdd), st.args[1]
			switch {
			case y.scalar:
				f32VS(op, dst, vec(x), in[y.input][0])
			case x.scalar:
				f32SV(op, dst, in[x.input][0], vec(y))
			default:
				f32VV(op, dst, vec(x), vec(y))
			}
		}
	}
}

// ewFusable reports whether n can be an op of an elementwise region: a
// float32 op of ewKinds, as built (not fused), with more than one element;
// a binary op's operands of its shape, of one element or broadcastable to
// it (not all of one element); a BroadcastInDim's of another shape. A
// result of a node with several keeps its op type but is no such op.
func ewFusable(n *Node) bool {
	if _, ok := ewKinds[n.opType]; !ok || n.data != nil && n.opType != backends.OpTypeBroadcastInDim || n.isNodeSelectOutput ||
		n.shape.DType != dtypes.Float32 || n.shape.Size() < 2 {
		return false
	}
	if n.opType == backends.OpTypeBroadcastInDim {
		return n.inputs[0].shape.DType == dtypes.Float32 && !n.inputs[0].shape.Equal(n.shape)
	}
	spread := 0
	for _, in := range n.inputs {
		switch {
		case in.shape.Equal(n.shape) || broadcastsTo(in.shape.Dimensions, n.shape.Dimensions) && in.shape.DType == dtypes.Float32:
			spread++
		case in.shape.DType != dtypes.Float32 || in.shape.Size() != 1:
			return false
		}
	}
	return spread > 0
}

// broadcastsTo reports whether an operand of dimensions src, of more than
// one element, broadcasts to dst: the same rank, each axis equal or 1.
func broadcastsTo(src, dst []int) bool {
	if len(src) != len(dst) {
		return false
	}
	size := 1
	for a, d := range src {
		if d != dst[a] && d != 1 {
			return false
		}
		size *= d
	}
	return size > 1
}

// fuseElementwise forms the regions among the nodes reachable from the
// outputs and rewrites the root of each region of two or more ops (or of
// one op with a broadcast operand), then the last-axis sums that alone
// read a region. uses is nodeUses of the graph as it is now.
func (b *Builder) fuseElementwise(uses []int) {
	consumers := b.nodeReaders(uses)
	isOutput := make([]bool, len(b.nodes))
	for _, out := range b.outputs {
		isOutput[out.builderIdx] = true
	}
	// region[i] is the builderIdx of node i's region's root, -1 when node i
	// is in none. Consumers come after their inputs in b.nodes, so walking
	// backwards sees every consumer's region first.
	region := make([]int, len(b.nodes))
	members := make([]int, len(b.nodes)) // per root
	for i := len(b.nodes) - 1; i >= 0; i-- {
		n := b.nodes[i]
		region[i] = -1
		if uses[i] == 0 || !ewFusable(n) {
			continue
		}
		root, joins := -1, !isOutput[i] && len(consumers[i]) > 0
		for _, c := range consumers[i] {
			if region[c] < 0 || (root >= 0 && region[c] != root) {
				joins = false
				break
			}
			root = region[c]
		}
		if !joins || !b.nodes[root].shape.Equal(n.shape) {
			root = i
		}
		region[i] = root
		members[root]++
	}
	for i, n := range b.nodes {
		// One op with a broadcast operand is rewritten too: the binary ops
		// run such operands on one goroutine, a region on all workers.
		if region[i] == i && (members[i] > 1 || hasBroadcastOperand(n)) {
			b.rewriteRegion(n, region)
			b.backend.fused.elementwise.Add(1)
			b.backend.fused.elementwiseOps.Add(int64(members[i]))
		}
	}
	// A region (or one fusable op) read only by a sum over its last axis
	// is computed a row at a time into scratch and summed there.
	for _, n := range b.nodes {
		if uses[n.builderIdx] == 0 || !lastAxisSum(n) {
			continue
		}
		x := n.inputs[0]
		if uses[x.builderIdx] != 1 || region[x.builderIdx] != x.builderIdx || isOutput[x.builderIdx] {
			continue
		}
		f, ok := x.data.(*elementwiseFusion)
		if !ok {
			// One op: a region of its own.
			b.rewriteRegion(x, region)
			f = x.data.(*elementwiseFusion)
		}
		n.inputs, n.data = x.inputs, &rowSumFusion{region: f, width: x.shape.Dimensions[x.shape.Rank()-1]}
		b.backend.fused.rowSum.Add(1)
	}
}

// hasBroadcastOperand reports whether n reads an operand broadcast to its
// shape (not a scalar).
func hasBroadcastOperand(n *Node) bool {
	if n.opType == backends.OpTypeBroadcastInDim {
		return false // a copy: nothing to compute a block at a time
	}
	for _, in := range n.inputs {
		if in.shape.Size() > 1 && !in.shape.Equal(n.shape) {
			return true
		}
	}
	return false
}

// lastAxisSum reports whether n is a float32 ReduceSum over only the last
// axis, of at least two elements (the sums sumRow computes).
func lastAxisSum(n *Node) bool {
	if n.opType != backends.OpTypeReduceSum || n.shape.DType != dtypes.Float32 || len(n.inputs) != 1 {
		return false
	}
	axes, ok := n.data.([]int)
	rank := n.inputs[0].shape.Rank()
	return ok && len(axes) == 1 && rank > 0 && axes[0] == rank-1 && n.inputs[0].shape.Dimensions[rank-1] >= 2
}

// rowSumFusion is the data of a ReduceSum over the last axis that computes
// its operand, an elementwise region, itself: each row of width elements
// goes through the region's steps into scratch and is summed by sumRow,
// as the unfused ReduceSum sums it, so the bits are the same.
type rowSumFusion struct {
	region *elementwiseFusion
	width  int
}

func (f *rowSumFusion) execute(backend *Backend, node *Node, inputs []*Buffer, _ []bool) (*Buffer, error) {
	in := float32Inputs(inputs)
	output := backend.getBufferForShape(node.shape.Clone())
	out := output.flat.([]float32)
	w := f.width
	splitRows(backend, len(out), w, func(lo, hi int) {
		buf := getEWScratch((f.region.slots + 1) * w)
		defer ewScratch.Put(buf)
		row := (*buf)[f.region.slots*w:]
		for r := lo; r < hi; r++ {
			f.region.block(*buf, w, in, row, r*w, (r+1)*w)
			out[r] = sumRow(row)
		}
	})
	return output, nil
}

// rewriteRegion makes root compute its whole region: its inputs become the
// region's inputs, its data the region's steps.
func (b *Builder) rewriteRegion(root *Node, region []int) {
	r := root.builderIdx
	dims := root.shape.Dimensions
	var (
		steps   []ewStep
		inputs  []*Node
		stepOf  = map[int]int{} // builderIdx -> step
		inputOf = map[int]int{} // builderIdx -> input
		spread  = map[int]int{} // builderIdx -> step broadcasting that input
	)
	input := func(x *Node) ewOperand {
		in, ok := inputOf[x.builderIdx]
		if !ok {
			in = len(inputs)
			inputOf[x.builderIdx] = in
			inputs = append(inputs, x)
		}
		return ewOperand{step: -1, input: in, scalar: x.shape.Size() == 1}
	}
	for i := 0; i <= r; i++ {
		n := b.nodes[i]
		if region[i] != r {
			continue
		}
		st := ewStep{kind: ewKinds[n.opType]}
		if st.kind == ewFill {
			st.args[0] = input(n.inputs[0])
			st.bcast = newEWBroadcast(broadcastSourceDims(n.inputs[0].shape.Dimensions, len(dims), n.data.([]int)), dims)
		}
		for a, x := range n.inputs {
			if st.kind == ewFill {
				break
			}
			if s, ok := stepOf[x.builderIdx]; ok {
				st.args[a] = ewOperand{step: s, input: -1}
				continue
			}
			if isBroadcastOf(x, root) {
				// A broadcast that other regions or ops read too: this region
				// fills its blocks from the source instead of reading the
				// broadcast tensor, which is not made when nothing else
				// reads it.
				s, ok := spread[x.builderIdx]
				if !ok {
					s = len(steps)
					spread[x.builderIdx] = s
					src := x.inputs[0]
					steps = append(steps, ewStep{kind: ewFill, args: [2]ewOperand{input(src)},
						bcast: newEWBroadcast(broadcastSourceDims(src.shape.Dimensions, len(dims), x.data.([]int)), dims)})
				}
				st.args[a] = ewOperand{step: s, input: -1}
				continue
			}
			st.args[a] = input(x)
			if x.shape.Size() > 1 && !x.shape.Equal(root.shape) {
				// An operand with axes of size 1: a step fills its block first.
				s, ok := spread[x.builderIdx]
				if !ok {
					s = len(steps)
					spread[x.builderIdx] = s
					steps = append(steps, ewStep{kind: ewFill, args: [2]ewOperand{st.args[a]}, bcast: newEWBroadcast(x.shape.Dimensions, dims)})
				}
				st.args[a] = ewOperand{step: s, input: -1}
			}
		}
		stepOf[i] = len(steps)
		steps = append(steps, st)
	}
	f := &elementwiseFusion{steps: steps}
	f.slots = assignSlots(steps)
	root.inputs = inputs
	root.data = f
}

// isBroadcastOf reports whether x is a float32 BroadcastInDim to root's
// shape from another shape, which a region can read from its source.
func isBroadcastOf(x, root *Node) bool {
	if x.opType != backends.OpTypeBroadcastInDim || !x.shape.Equal(root.shape) {
		return false
	}
	_, ok := x.data.([]int)
	src := x.inputs[0].shape
	return ok && src.DType == dtypes.Float32 && !src.Equal(x.shape)
}

// broadcastSourceDims returns a BroadcastInDim operand's dimensions at the
// output's rank: its own on the axes broadcastAxes maps them to, 1
// elsewhere (the layout execBroadcastInDim reads it in).
func broadcastSourceDims(src []int, rank int, broadcastAxes []int) []int {
	d := make([]int, rank)
	for a := range d {
		d[a] = 1
	}
	for operandAxis, outputAxis := range broadcastAxes {
		d[outputAxis] = src[operandAxis]
	}
	return d
}

// assignSlots gives each step but the last a scratch slot that no later
// step reads from, and returns how many slots there are. A step may take
// the slot of an operand it is the last to read: the kernels allow dst to
// be exactly one of their inputs.
func assignSlots(steps []ewStep) int {
	lastRead := make([]int, len(steps))
	for i, st := range steps {
		for a := range ewArity(st.kind) {
			if s := st.args[a].step; s >= 0 {
				lastRead[s] = i
			}
		}
	}
	var free []int
	slots := 0
	for i := range steps {
		for a := range ewArity(steps[i].kind) {
			if s := steps[i].args[a].step; s >= 0 && lastRead[s] == i {
				free = append(free, steps[s].slot)
				lastRead[s] = -1 // read twice (x·x): freed once
			}
		}
		switch {
		case i == len(steps)-1:
			steps[i].slot = -1
		case len(free) > 0:
			steps[i].slot, free = free[len(free)-1], free[:len(free)-1]
		default:
			steps[i].slot = slots
			slots++
		}
	}
	return slots
}

// ewArity is how many operands a step kind reads.
func ewArity(k ewKind) int {
	if k >= ewNeg {
		return 1
	}
	return 2
}
