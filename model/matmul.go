package model

import (
	"fmt"
	"slices"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
)

// withGradient returns forward(inputs) and makes reverse-mode autodiff use
// grad(v, i) as the gradient for inputs[i], where v is the gradient arriving
// at the returned node, instead of differentiating the ops inside forward.
//
// GoMLX (v0.26) has per-node custom gradients only for one-input identities,
// so the rule is carried by three kinds of identity nodes: one on each input
// and one on the output. Reverse autodiff visits nodes from the last created
// to the first (its loop follows the DAG order), so the output identity sees
// v before any input identity asks for it. The stock gradients of the ops
// inside forward are still built, but nothing consumes them, so no backend
// executes them.
func withGradient(forward func(in []*graph.Node) *graph.Node, grad func(v *graph.Node, i int) *graph.Node, inputs ...*graph.Node) *graph.Node {
	var adjoint *graph.Node // gradient at the output, captured during autodiff
	wrapped := make([]*graph.Node, len(inputs))
	for i, x := range inputs {
		wrapped[i] = graph.IdentityWithCustomGradient(x, func(_, _ *graph.Node) *graph.Node {
			if adjoint == nil {
				panic(fmt.Sprintf("model: custom gradient of input %d requested before the output's", i))
			}
			return grad(adjoint, i)
		})
	}
	out := forward(wrapped)
	return graph.IdentityWithCustomGradient(out, func(_, v *graph.Node) *graph.Node {
		adjoint = v
		return v
	})
}

// dotGeneral is graph.DotGeneral with a gradient made of one DotGeneral
// (plus a transpose) per operand. The stock gradient of GoMLX v0.26
// broadcasts both operands to the full [batch, lhs, rhs, contracted] product
// and reduces it, which on the pure-Go backend took ~90% of a training step.
func dotGeneral(lhs *graph.Node, lhsContracting, lhsBatch []int, rhs *graph.Node, rhsContracting, rhsBatch []int) *graph.Node {
	lc, lb := normalizeAxes(lhs.Rank(), lhsContracting), normalizeAxes(lhs.Rank(), lhsBatch)
	rc, rb := normalizeAxes(rhs.Rank(), rhsContracting), normalizeAxes(rhs.Rank(), rhsBatch)
	lx, rx := crossAxes(lhs.Rank(), lc, lb), crossAxes(rhs.Rank(), rc, rb)
	nb := len(lb)
	vBatch := iotaInts(0, nb)
	vLhsCross := iotaInts(nb, len(lx))
	vRhsCross := iotaInts(nb+len(lx), len(rx))
	return withGradient(
		func(in []*graph.Node) *graph.Node { return graph.DotGeneral(in[0], lc, lb, in[1], rc, rb) },
		func(v *graph.Node, i int) *graph.Node {
			if i == 0 {
				// dL/dlhs: contract v's rhs-cross axes with rhs; what remains of rhs
				// are its contracting axes, which become lhs's contracting axes.
				g := graph.DotGeneral(v, vRhsCross, vBatch, rhs, rx, rb)
				return transposeTo(g, lhs.Rank(), lb, lx, pairedInOrder(rc, lc))
			}
			g := graph.DotGeneral(v, vLhsCross, vBatch, lhs, lx, lb)
			return transposeTo(g, rhs.Rank(), rb, rx, pairedInOrder(lc, rc))
		},
		lhs, rhs)
}

// transposeTo permutes g, whose axes are [batch..., cross..., rest...], into
// an operand's own axis order, given which operand axis each group maps to.
func transposeTo(g *graph.Node, rank int, batch, cross, rest []int) *graph.Node {
	source := make([]int, rank) // source[a] = axis of g that holds operand axis a
	p := 0
	for _, group := range [][]int{batch, cross, rest} {
		for _, a := range group {
			source[a] = p
			p++
		}
	}
	identity := true
	for a, s := range source {
		if a != s {
			identity = false
		}
	}
	if identity {
		return g
	}
	return graph.TransposeAllAxes(g, source...)
}

// pairedInOrder returns, for the axes of from sorted ascending, the paired
// axes of to (from[i] pairs with to[i]). DotGeneral keeps an operand's
// remaining axes in ascending order, hence the sort.
func pairedInOrder(from, to []int) []int {
	order := make([]int, len(from))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return from[a] - from[b] })
	out := make([]int, len(order))
	for i, k := range order {
		out[i] = to[k]
	}
	return out
}

func normalizeAxes(rank int, axes []int) []int {
	out := make([]int, len(axes))
	for i, a := range axes {
		if a < 0 {
			a += rank
		}
		out[i] = a
	}
	return out
}

func crossAxes(rank int, contracting, batch []int) []int {
	var out []int
	for a := range rank {
		if !slices.Contains(contracting, a) && !slices.Contains(batch, a) {
			out = append(out, a)
		}
	}
	return out
}

func iotaInts(start, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = start + i
	}
	return out
}

// The pure-Go backend multiplies matrices whose output has more than
// smallProductLimit elements (per batch entry) in 32x32 blocks, padding
// every dimension to a multiple of 32. For a few rows (decoding) times a
// wide weight (the output head) that pads the rows, not the weight, and
// wastes most of the work; below the limit it runs an unpadded kernel, one
// batch entry per core. (simplego v0.26: DotGeneralTargetBlockSize 16 KiB
// gives 32x32 float32 blocks; "large" means more than 16 blocks.)
const (
	smallProductLimit = 16 * 32 * 32
	blockRows         = 32
)

// linear applies a Hugging Face Linear layer: x·wᵀ (+ bias), with w in the
// [out, in] layout, contracting x's last axis.
func linear(x, w, bias *graph.Node) *graph.Node {
	var y *graph.Node
	rows := x.Shape().Size() / x.Shape().Dimensions[x.Rank()-1]
	out := w.Shape().Dimensions[0]
	if chunks := outputChunks(rows, out); chunks > 1 {
		y = chunkedLinear(x, w, chunks)
	} else {
		y = dotGeneral(x, []int{-1}, nil, w, []int{1}, nil)
	}
	if bias != nil {
		y = graph.Add(y, graph.ExpandLeftToRank(bias, y.Rank()))
	}
	return y
}

// outputChunks returns into how many equal parts to split a product of
// rows × out outputs so that each stays below smallProductLimit: only for
// fewer than blockRows rows (where blocking would pad them), and only when
// out divides evenly into chunks of at least blockRows features; 1 means
// no split.
func outputChunks(rows, out int) int {
	if rows >= blockRows || rows*out <= smallProductLimit {
		return 1
	}
	for chunks := (rows*out + smallProductLimit - 1) / smallProductLimit; chunks <= out/blockRows; chunks++ {
		if out%chunks == 0 {
			return chunks
		}
	}
	return 1
}

// chunkedLinear computes x·wᵀ as a batch of chunks products over slices
// of w's output features: w [out, in] is viewed (no copy) as
// [chunks, out/chunks, in] and x is repeated per chunk, which is cheap for
// the few rows this is used for.
func chunkedLinear(x, w *graph.Node, chunks int) *graph.Node {
	xd := x.Shape().Dimensions
	in := xd[len(xd)-1]
	rows := x.Shape().Size() / in
	out := w.Shape().Dimensions[0]
	xs := graph.BroadcastToDims(graph.Reshape(x, 1, rows, in), chunks, rows, in)
	ws := graph.Reshape(w, chunks, out/chunks, in)
	y := dotGeneral(xs, []int{2}, []int{0}, ws, []int{2}, []int{0}) // [chunks, rows, out/chunks]
	y = graph.TransposeAllAxes(y, 1, 0, 2)
	return graph.Reshape(y, append(slices.Clone(xd[:len(xd)-1]), out)...)
}

// narrowLinear is linear for a sampler's narrow weight (int8 or bfloat16;
// see SamplerWeights) stored in panels, [out/32, in, 32], or transposed,
// [in, out] (narrowLayout), with scale [out] the per-output scales of an
// int8 one (nil for bfloat16): x·Wᵀ·scale + bias. The weight is converted
// to float32 right at the product, which the pure-Go backend fuses into
// it (it reads the narrow weight itself), and the scales multiply the
// product's output, which is as small as x. No chunks: the backend's
// product splits wide outputs over its workers. Sampling graphs are never
// differentiated, so the product is GoMLX's own.
func narrowLinear(x, w, scale, bias *graph.Node) *graph.Node {
	wide := graph.ConvertDType(w, dtypes.Float32)
	var y *graph.Node
	if w.Rank() == 3 {
		// [.., panels, 32] is [.., out] in order.
		y = graph.DotGeneral(x, []int{-1}, nil, wide, []int{1}, nil)
		dims := slices.Clone(x.Shape().Dimensions)
		dims[len(dims)-1] = w.Shape().Dimensions[0] * w.Shape().Dimensions[2]
		y = graph.Reshape(y, dims...)
	} else {
		y = graph.DotGeneral(x, []int{-1}, nil, wide, []int{0}, nil)
	}
	if scale != nil {
		y = graph.Mul(y, graph.ExpandLeftToRank(scale, y.Rank()))
	}
	if bias != nil {
		y = graph.Add(y, graph.ExpandLeftToRank(bias, y.Rank()))
	}
	return y
}
