package gobackend

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
)

// elementwiseCase is a graph of three same-shaped float32 inputs and the
// regions and ops the elementwise fusion should make of it.
type elementwiseCase struct {
	what         string
	fn           any
	regions, ops int64
	// rank1, when set, is regions and ops for rank-1 inputs, where a row
	// reduced with its axis kept has one element.
	rank1 *[2]int64
}

// elementwiseCases covers the region rules: chains, every kind, scalar
// operands on either side, an operand read twice, intermediates read
// outside the region or returned, operands of another shape, an owned
// input the output can take over, and the MLP's activation.
func elementwiseCases() []elementwiseCase {
	type n = *graph.Node
	return []elementwiseCase{
		{"(x·y)·z", func(x, y, z n) n { return graph.Mul(graph.Mul(x, y), z) }, 1, 2, nil},
		{"every kind", func(x, y, z n) n {
			a := graph.Sub(graph.Exp(graph.Neg(x)), graph.Sigmoid(y))
			return graph.Div(graph.Sqrt(graph.Add(graph.Mul(a, a), z)), y)
		}, 1, 8, nil},
		{"scalars on both sides", func(x, y, z n) n {
			g := x.Graph()
			c := graph.Scalar(g, dtypes.Float32, 1.5)
			a := graph.Div(c, graph.Sub(c, graph.MulScalar(x, 3)))
			return graph.Add(graph.Mul(c, a), graph.DivScalar(graph.AddScalar(y, -2), 7))
		}, 1, 7, nil},
		{"x² read twice", func(x, y, z n) n {
			e := graph.Exp(x)
			return graph.Mul(graph.Mul(e, e), graph.Mul(e, y))
		}, 1, 4, nil},
		{"intermediate read by two regions", func(x, y, z n) (n, n) {
			t := graph.Neg(graph.Exp(x)) // a region of its own, rooted at Neg
			return graph.Mul(graph.Mul(t, y), z), graph.Add(graph.Add(t, z), y)
		}, 3, 6, nil},
		{"intermediate returned", func(x, y, z n) (n, n) {
			s := graph.Sigmoid(x)
			return s, graph.Mul(graph.Neg(s), y)
		}, 1, 2, nil},
		{"silu(x)·up", func(x, up, z n) n { return graph.Mul(graph.Mul(x, graph.Sigmoid(x)), up) }, 1, 3, nil},
		{"up·(σ(x)·x)", func(x, up, z n) n { return graph.Mul(up, graph.Mul(graph.Sigmoid(x), x)) }, 1, 3, nil},
		{"silu read elsewhere", func(x, up, z n) (n, n) {
			s := graph.Mul(x, graph.Sigmoid(x))
			return graph.Mul(s, up), s
		}, 1, 2, nil},
		{"broadcast operand", func(x, y, z n) n {
			row := graph.ReduceAndKeep(y, graph.ReduceMax, -1) // [..., 1]
			return graph.Mul(graph.Exp(graph.Sub(x, row)), z)
		}, 1, 3, nil},
		{"owned input taken over", func(x, y, z n) n {
			t := graph.Max(x, y) // not fusable: owned, read twice
			return graph.Mul(graph.Sigmoid(t), graph.Sub(t, z))
		}, 1, 3, nil},
		{"rms norm", func(x, y, z n) n {
			w := graph.ReduceAndKeep(y, graph.ReduceMax, 0) // [1, ...]
			meanSquare := graph.ReduceAndKeep(graph.Mul(x, x), graph.ReduceMean, -1)
			return graph.Mul(graph.Div(x, graph.Sqrt(graph.AddScalar(meanSquare, 1e-6))), w)
		}, 2, 4, &[2]int64{1, 2}}, // rank 1: the mean square is a scalar
		{"BroadcastInDim", func(x, y, z n) n {
			sum := graph.ReduceAndKeep(y, graph.ReduceSum, -1)
			return graph.Mul(graph.BroadcastToDims(sum, x.Shape().Dimensions...), graph.Neg(x))
		}, 1, 3, nil},
		{"row plus column", func(x, y, z n) n {
			row, col := graph.ReduceAndKeep(x, graph.ReduceMax, 0), graph.ReduceAndKeep(y, graph.ReduceMax, -1)
			return graph.Mul(graph.Exp(graph.Add(row, col)), z)
		}, 1, 3, &[2]int64{0, 0}}, // rank 1: row + col has one element
		{"broadcast read by two regions", func(x, y, z n) (n, n) {
			b := graph.BroadcastToDims(graph.ReduceAndKeep(y, graph.ReduceSum, -1), x.Shape().Dimensions...)
			return graph.Mul(graph.Neg(x), b), graph.Add(graph.Exp(z), b) // each fills b's blocks
		}, 2, 4, nil},
		{"one op with a broadcast operand", func(x, y, z n) n {
			return graph.Add(x, graph.ReduceAndKeep(y, graph.ReduceMax, -1)) // split over the workers as a region
		}, 1, 1, &[2]int64{0, 0}}, // rank 1: the operand is a scalar
		{"a single op", func(x, y, z n) n { return graph.Mul(x, y) }, 0, 0, nil},
		{"float64", func(x, y, z n) n {
			d := graph.ConvertDType(x, dtypes.Float64)
			return graph.ConvertDType(graph.Mul(graph.Exp(d), d), dtypes.Float32)
		}, 0, 0, nil},
	}
}

// TestElementwiseFusionBitwise runs every case on lengths that are not
// multiples of the vector width or the block, and on shapes large enough
// to be split over the workers, sequentially and in parallel, with and
// without fusion, and requires the same bits and the regions expected.
func TestElementwiseFusionBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, dims := range [][]int{{2}, {7}, {3, 17}, {2, 1000}, {5, 1023}, {2, 3, 4100}, {8, 256, 768}} {
		if testing.Short() && len(dims) == 3 && dims[2] == 768 {
			continue
		}
		x, y, z := softmaxInput(rng, true, dims...), softmaxInput(rng, true, dims...), softmaxInput(rng, false, dims...)
		for _, tc := range elementwiseCases() {
			for _, mode := range []string{"ops_sequential", "ops_parallel"} {
				name := fmt.Sprint(dims, " ", tc.what, " ", mode)
				fused := fusedAndPlain(t, name, mode, tc.fn, x, y, z)
				regions, ops := tc.regions, tc.ops
				if len(dims) == 1 && tc.rank1 != nil {
					regions, ops = tc.rank1[0], tc.rank1[1]
				}
				if r, o := fused.fused.elementwise.Load(), fused.fused.elementwiseOps.Load(); r != regions || o != ops {
					t.Errorf("%s: %d regions of %d ops, want %d of %d", name, r, o, regions, ops)
				}
			}
		}
	}
}

// newBackend returns a gofast backend of the given configuration, finalized
// when the test ends.
func newBackend(t testing.TB, config string) *Backend {
	t.Helper()
	b, err := New(config)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Finalize)
	return b.(*Backend)
}

// fusedAndPlain runs fn on args on a new backend of mode and on one with
// nofusion as well, fails the test where an output's bits differ, and
// returns the fused backend, whose counts tell what it fused.
func fusedAndPlain(t *testing.T, name, mode string, fn any, args ...any) *Backend {
	t.Helper()
	fused, plain := newBackend(t, mode), newBackend(t, mode+",nofusion")
	got, want := runGraph(t, fused, fn, args...), runGraph(t, plain, fn, args...)
	for i := range want {
		if !sameBits(got[i], want[i]) {
			t.Errorf("%s: output %d differs from the unfused ops", name, i)
		}
	}
	c := &plain.fused
	if n := c.softmax.Load() + c.softmaxGrad.Load() + c.softmaxProduct.Load() + c.attention.Load() + c.attentionGrad.Load() + c.attentionProbs.Load() + c.elementwise.Load() + c.rowSum.Load() + c.narrowProduct.Load(); n != 0 {
		t.Errorf("%s: nofusion fused %d nodes", name, n)
	}
	return fused
}

// TestAssignSlots checks that no step writes a slot an operand it has yet
// to be read from holds, and that slots are reused.
func TestAssignSlots(t *testing.T) {
	step := func(k ewKind, args ...int) ewStep {
		st := ewStep{kind: k}
		for a, s := range args {
			st.args[a] = ewOperand{step: s, input: -1}
			if s < 0 {
				st.args[a] = ewOperand{step: -1, input: 0}
			}
		}
		return st
	}
	for _, tc := range []struct {
		what  string
		steps []ewStep
		slots int
	}{
		// 0 is read last by 4, after its square.
		{"e^x, (e^x)², -x, sum, product", []ewStep{step(ewExp, -1), step(ewMul, 0, 0), step(ewNeg, -1), step(ewAdd, 1, 2), step(ewMul, 3, 0)}, 3},
		// Here its square is its last read, which must free its slot once.
		{"e^x, (e^x)², -x, sum", []ewStep{step(ewExp, -1), step(ewMul, 0, 0), step(ewNeg, -1), step(ewAdd, 1, 2)}, 2},
	} {
		steps := tc.steps
		if slots := assignSlots(steps); slots != tc.slots {
			t.Errorf("%s: %d slots, want %d", tc.what, slots, tc.slots)
		}
		if steps[len(steps)-1].slot != -1 {
			t.Errorf("%s: last step in slot %d, want the output", tc.what, steps[len(steps)-1].slot)
		}
		for i, st := range steps {
			for j := i + 1; j < len(steps); j++ {
				// A later step j may take i's slot only if nothing after j reads i.
				if steps[j].slot != st.slot {
					continue
				}
				for k := j + 1; k < len(steps); k++ {
					for a := range ewArity(steps[k].kind) {
						if steps[k].args[a].step == i {
							t.Errorf("%s: step %d overwrites step %d's slot %d, which step %d reads", tc.what, j, i, st.slot, k)
						}
					}
				}
			}
		}
	}
}

// BenchmarkElementwiseRegion times regions of the small benchmark model's
// MLP shape [8,256,768], fused and not: a product of three inputs and the
// MLP's activation silu(x)·up.
func BenchmarkElementwiseRegion(b *testing.B) {
	rng := rand.New(rand.NewPCG(21, 22))
	x, y, z := softmaxInput(rng, false, 8, 256, 768), softmaxInput(rng, false, 8, 256, 768), softmaxInput(rng, false, 8, 256, 768)
	b.Run("x·y·z", func(b *testing.B) {
		benchFusedAndNot(b, func(x, y, z *graph.Node) *graph.Node { return graph.Mul(graph.Mul(x, y), z) }, x, y, z)
	})
	b.Run("silu(x)·up", func(b *testing.B) {
		benchFusedAndNot(b, func(x, up *graph.Node) *graph.Node { return graph.Mul(graph.Mul(x, graph.Sigmoid(x)), up) }, x, y)
	})
}

// TestEWBroadcastFill checks ewBroadcast's blocks against the definition
// of broadcasting, element by element, for random shapes, sources and
// blocks.
func TestEWBroadcastFill(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for range 500 {
		rank := 1 + rng.IntN(4)
		dims, src := make([]int, rank), make([]int, rank)
		size, srcSize := 1, 1
		for a := range dims {
			dims[a] = 1 + rng.IntN(6)
			src[a] = dims[a]
			if rng.IntN(2) == 0 {
				src[a] = 1
			}
			size *= dims[a]
			srcSize *= src[a]
		}
		source := make([]float32, srcSize)
		for i := range source {
			source[i] = float32(i)
		}
		bc := newEWBroadcast(src, dims)
		b := rng.IntN(size)
		got := make([]float32, 1+rng.IntN(size-b))
		bc.fill(got, source, b)
		for i := range got {
			// The region's element b+i at its multi-index, read from src.
			rem, at, stride := b+i, 0, 1
			for a := rank - 1; a >= 0; a-- {
				idx := rem % dims[a]
				rem /= dims[a]
				if src[a] != 1 {
					at += idx * stride
				}
				stride *= src[a]
			}
			if got[i] != source[at] {
				t.Fatalf("%v broadcast to %v, element %d: %v, want %v (collapsed %v strides %v)", src, dims, b+i, got[i], source[at], bc.dims, bc.strides)
			}
		}
	}
}

// BenchmarkElementwiseBroadcast times an RMS norm's scaling x/√(m+ε)·w of
// the small model's [8,256,256] hidden states, fused and not.
func BenchmarkElementwiseBroadcast(b *testing.B) {
	rng := rand.New(rand.NewPCG(25, 26))
	x := softmaxInput(rng, false, 8, 256, 256)
	benchFusedAndNot(b, func(x *graph.Node) *graph.Node {
		meanSquare := graph.ReduceAndKeep(graph.Mul(x, x), graph.ReduceMean, -1)
		w := graph.ReduceAndKeep(x, graph.ReduceMax, 0, 1)
		return graph.Mul(graph.Div(x, graph.Sqrt(graph.AddScalar(meanSquare, 1e-6))), w)
	}, x)
}

// TestRowSumFusion checks last-axis sums that compute their operand: the
// same bits as the unfused ops, on rows shorter and longer than a block,
// and no fusion where the operand is read elsewhere or the sum is over
// another axis.
func TestRowSumFusion(t *testing.T) {
	type n = *graph.Node
	rng := rand.New(rand.NewPCG(37, 38))
	for _, dims := range [][]int{{2, 7}, {3, 17}, {5, 1023}, {2, 3, 4100}, {64, 256}} {
		x, y := softmaxInput(rng, true, dims...), softmaxInput(rng, false, dims...)
		for _, tc := range []struct {
			what string
			fn   any
			sums int64
		}{
			{"sum of squares", func(x, y n) n { return graph.ReduceAndKeep(graph.Mul(x, x), graph.ReduceSum, -1) }, 1},
			{"sum of a region", func(x, y n) n {
				shifted := graph.Sub(x, graph.ReduceAndKeep(x, graph.ReduceMax, -1))
				return graph.ReduceSum(graph.Mul(graph.Exp(shifted), y), -1)
			}, 1},
			{"operand read elsewhere", func(x, y n) (n, n) {
				sq := graph.Mul(x, y)
				return graph.ReduceSum(sq, -1), graph.Neg(sq)
			}, 0},
			{"sum over the first axis", func(x, y n) n { return graph.ReduceSum(graph.Mul(x, y), 0) }, 0},
		} {
			for _, mode := range []string{"ops_sequential", "ops_parallel"} {
				name := fmt.Sprint(dims, " ", tc.what, " ", mode)
				fused := fusedAndPlain(t, name, mode, tc.fn, x, y)
				if c := fused.fused.rowSum.Load(); c != tc.sums {
					t.Errorf("%s: %d sums fused, want %d", name, c, tc.sums)
				}
			}
		}
	}
}

// TestBroadcastReadBySeveralRegions checks that a broadcast read only by
// regions is not made: each region fills its blocks from the source.
func TestBroadcastReadBySeveralRegions(t *testing.T) {
	be := newBackend(t, "ops_sequential,opprofile")
	rng := rand.New(rand.NewPCG(39, 40))
	x, y := softmaxInput(rng, false, 4, 300), softmaxInput(rng, false, 4, 300)
	runGraph(t, be, func(x, y *graph.Node) (*graph.Node, *graph.Node) {
		b := graph.BroadcastToDims(graph.ReduceAndKeep(y, graph.ReduceSum, -1), 4, 300)
		return graph.Mul(graph.Neg(x), b), graph.Add(graph.Exp(x), b)
	}, x, y)
	for _, r := range be.OpProfile() {
		if r.Op == "BroadcastInDim" {
			t.Errorf("the broadcast was made (%d times): %+v", r.Calls, r)
		}
	}
}
