package gobackend

import (
	"slices"
	"sync/atomic"
)

// Fusion (gofast change).
//
// Compile rewrites a few patterns of ops into one node each, which works a
// row or a block at a time so that its intermediates stay in L1 instead of
// each op reading and writing a whole tensor: a softmax over the last axis
// and its gradient (fuse_softmax.go), with the product the softmax reads
// (fuse_softmax_product.go), the softmax gradient with the products that
// read it (fuse_attention_grad.go), the product of the probabilities with
// the values (fuse_attention.go), and then any chain of
// float32 elementwise ops, such as the MLP's silu(x)·up
// (fuse_elementwise.go); and first, any float32 product whose operand
// converts an int8 or bfloat16 weight, which then reads the weight as it is
// (fuse_narrow_product.go). A pattern is fused only when nothing else reads its
// intermediates, and a fused node applies the kernels the separate ops
// apply, in the same order, so that its results are the same bits. The
// rewritten node keeps its op type and shape; its inputs become the
// pattern's operands and its data a fusedOp, which executes it. A fusion
// with several results (the attention's in a train step) is a node with
// several outputs instead, whose data is a multiFusedOp and whose results
// are the nodes it replaces. The intermediates are left unreachable, so
// the executable never runs them. The nofusion backend option turns all
// of it off.

// fusedOp is the data of a fused node: it computes the node's output from
// its (rewritten) inputs.
type fusedOp interface {
	execute(backend *Backend, node *Node, inputs []*Buffer, inputsOwned []bool) (*Buffer, error)
}

// multiFusedOp is the data of a fused node with several results, one per
// node of its multiOutputsNodes.
type multiFusedOp interface {
	executeMulti(backend *Backend, node *Node, inputs []*Buffer, inputsOwned []bool) ([]*Buffer, error)
}

// fusionCounts counts the fusions Compile made.
type fusionCounts struct {
	// softmax and softmaxGrad count fused softmaxes and gradients;
	// broadcastAddend the fused softmaxes that read a broadcast's source;
	// softmaxProduct the fused softmaxes that compute the product they
	// read; attention the values' products that compute their softmax;
	// elementwise the elementwise regions and elementwiseOps the ops in
	// them; rowSum the last-axis sums that compute their operand;
	// attentionGrad the softmax gradients that compute the products
	// reading them (attentionGradProducts of them); attentionProbs the
	// values' products computed with probabilities that others read.
	softmax, softmaxGrad, broadcastAddend, softmaxProduct, attention atomic.Int64
	elementwise, elementwiseOps, rowSum                              atomic.Int64
	attentionGrad, attentionGradProducts, attentionProbs             atomic.Int64
	// narrowProduct counts the float32 products that read an int8 or
	// bfloat16 operand in place of its conversion (fuse_narrow_product.go).
	narrowProduct atomic.Int64
}

// fuse rewrites every fusable pattern among the nodes reachable from the
// outputs. It must run before the executable counts uses.
func (b *Builder) fuse() {
	if b.backend.noFusion {
		return
	}
	b.fuseNarrowProducts(b.nodeUses())
	uses := b.nodeUses()
	for _, n := range b.nodes {
		if inputs, ok := softmaxPattern(n, uses); ok {
			fusion := softmaxFusion{}
			if len(inputs) == 2 {
				inputs[0], inputs[1], fusion.addendDims = broadcastSource(inputs[0], inputs[1])
				if fusion.addendDims != nil {
					b.backend.fused.broadcastAddend.Add(1)
				}
			}
			n.inputs = inputs
			n.data = fusion
			b.backend.fused.softmax.Add(1)
		} else if inputs, ok := softmaxGradPattern(n, uses); ok {
			n.inputs = inputs
			n.data = softmaxGradFusion{}
			b.backend.fused.softmaxGrad.Add(1)
		}
	}
	// The patterns above left their intermediates unreachable; products
	// are folded into softmaxes, and regions formed, among what remains.
	b.fuseSoftmaxProducts(b.nodeUses())
	b.fuseAttentionGrad(b.nodeUses())
	b.fuseAttention(b.nodeUses())
	b.fuseElementwise(b.nodeUses())
}

// nodeUses counts, for each node reachable from the outputs, how many
// inputs of reachable nodes (and outputs) refer to it.
func (b *Builder) nodeUses() []int {
	uses := make([]int, len(b.nodes))
	reached := make([]bool, len(b.nodes))
	stack := slices.Clone(b.outputs)
	for _, out := range b.outputs {
		uses[out.builderIdx]++
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if reached[n.builderIdx] {
			continue
		}
		reached[n.builderIdx] = true
		for _, in := range n.inputs {
			uses[in.builderIdx]++
			stack = append(stack, in)
		}
	}
	return uses
}

// nodeReaders lists, for each node, the builderIdx of every reachable node
// that reads it, once per input that refers to it. uses is nodeUses.
func (b *Builder) nodeReaders(uses []int) [][]int {
	readers := make([][]int, len(b.nodes))
	for _, n := range b.nodes {
		if uses[n.builderIdx] == 0 {
			continue
		}
		for _, in := range n.inputs {
			readers[in.builderIdx] = append(readers[in.builderIdx], n.builderIdx)
		}
	}
	return readers
}

// placeBefore puts each node of moves right before its key in b.nodes,
// taking it from where it was, if anywhere, and renumbers the nodes. A
// node with several results must come before them, since the executor
// runs nodes in index order.
func (b *Builder) placeBefore(moves map[*Node]*Node) {
	if len(moves) == 0 {
		return
	}
	moved := make(map[*Node]bool, len(moves))
	for _, n := range moves {
		moved[n] = true
	}
	order := make([]*Node, 0, len(b.nodes)+len(moves))
	for _, n := range b.nodes {
		if moved[n] {
			continue
		}
		if m := moves[n]; m != nil {
			order = append(order, m)
		}
		order = append(order, n)
	}
	for i, n := range order {
		n.builderIdx = i
	}
	b.nodes = order
}

// fusedOutput returns the buffer a fused node writes: the first owned
// input of the node's shape (not a broadcast addend), taken over, or a new
// one.
func fusedOutput(backend *Backend, node *Node, inputs []*Buffer, inputsOwned []bool) *Buffer {
	for i, in := range inputs {
		if inputsOwned[i] && in.shape.Equal(node.shape) {
			inputs[i] = nil // taken over
			return in
		}
	}
	return backend.getBufferForShape(node.shape.Clone())
}
