package gobackend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// softmaxBackends returns a backend that fuses softmaxes and one that
// does not.
func softmaxBackends(t testing.TB) (fused, plain *Backend) {
	t.Helper()
	f, err := New("ops_sequential")
	if err != nil {
		t.Fatal(err)
	}
	p, err := New("ops_sequential,nofusion")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Finalize(); p.Finalize() })
	return f.(*Backend), p.(*Backend)
}

// softmaxInput returns random scores of the given dimensions with masked
// (-1e9) entries, fully masked rows, large values and, when special is
// set, a row holding NaN, one holding +Inf and one holding -Inf.
func softmaxInput(rng *rand.Rand, special bool, dims ...int) hostTensor {
	n := 1
	for _, d := range dims {
		n *= d
	}
	width := dims[len(dims)-1]
	x := make([]float32, n)
	for i := range x {
		switch r := rng.IntN(10); {
		case r == 0:
			x[i] = -1e9
		case r == 1:
			x[i] = float32(rng.NormFloat64() * 80)
		default:
			x[i] = float32(rng.NormFloat64() * 3)
		}
	}
	rows := n / width
	if rows > 1 {
		for i := range width {
			x[width+i] = -1e9
		}
	}
	if special && rows > 4 {
		x[2*width] = float32(math.NaN())
		x[3*width+width/2] = float32(math.Inf(1))
		x[4*width] = float32(math.Inf(-1))
	}
	return hostTensor{x, dims}
}

// hostTensor is a tensor's values, made into a new tensor for each backend
// (a tensor serves one backend).
type hostTensor struct {
	flat []float32
	dims []int
}

func (h hostTensor) tensor() *tensors.Tensor {
	return tensors.FromFlatDataAndDimensions(append([]float32(nil), h.flat...), h.dims...)
}

// runGraph executes fn on be and returns its outputs' values.
func runGraph(t *testing.T, be backends.Backend, fn any, args ...any) [][]float32 {
	t.Helper()
	exec, err := graph.NewExecAny(be, fn)
	if err != nil {
		t.Fatal(err)
	}
	local := make([]any, len(args))
	for i, a := range args {
		local[i] = a.(hostTensor).tensor()
	}
	outs, err := exec.Exec(local...)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]float32
	for _, o := range outs {
		got = append(got, tensors.MustCopyFlatData[float32](o))
	}
	return got
}

// sameBits compares float32 slices bit for bit.
func sameBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestSoftmaxFusionBitwise runs graph.Softmax, alone and on a sum of two
// operands, on rows of many widths (some not a multiple of any vector
// width, with masked, NaN and infinite entries), with and without the
// fusion, and requires the same bits; it also checks that the fusion
// happened, and that it does not where an intermediate has another reader.
func TestSoftmaxFusionBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, dims := range [][]int{{3, 2}, {5, 7}, {6, 17}, {2, 3, 33}, {8, 300}, {2, 1, 4, 2, 64}, {1, 1000}, {1100, 256}} {
		for _, special := range []bool{false, true} {
			name := fmt.Sprint(dims, special)
			x := softmaxInput(rng, special, dims...)
			bias := softmaxInput(rng, false, dims...)
			// A bias of size 1 on every other leading axis, broadcast up.
			smallDims := slices.Clone(dims)
			for a := 0; a < len(dims)-1; a += 2 {
				smallDims[a] = 1
			}
			small := softmaxInput(rng, false, smallDims...)
			cases := []struct {
				what              string
				fn                any
				args              []any
				fuses, broadcasts int64
			}{
				{"softmax", func(x *graph.Node) *graph.Node { return graph.Softmax(x, -1) }, []any{x}, 1, 0},
				{"softmax of a sum", func(x, b *graph.Node) *graph.Node { return graph.Softmax(graph.Add(x, b), -1) }, []any{x, bias}, 1, 0},
				{"exp read elsewhere", func(x *graph.Node) (*graph.Node, *graph.Node) {
					return graph.Softmax(x, -1), graph.Exp(graph.Sub(x, graph.ReduceAndKeep(x, graph.ReduceMax, -1)))
				}, []any{x}, 1, 0}, // the second Exp is a node of its own: both fuse and unfuse alike
				{"softmax of a sum with a broadcast bias", func(x, b *graph.Node) *graph.Node {
					return graph.Softmax(graph.Add(graph.BroadcastToDims(b, dims...), x), -1)
				}, []any{x, small}, 1, 1},
				{"broadcast bias read elsewhere", func(x, b *graph.Node) (*graph.Node, *graph.Node) {
					full := graph.BroadcastToDims(b, dims...)
					return graph.Softmax(graph.Add(x, full), -1), graph.Softmax(graph.Add(graph.Neg(x), full), -1)
				}, []any{x, small}, 2, 2},
				{"sum read elsewhere", func(x, b *graph.Node) (*graph.Node, *graph.Node) {
					s := graph.Add(x, b)
					return graph.Softmax(s, -1), s
				}, []any{x, bias}, 1, 0},
			}
			for _, tc := range cases {
				fused, plain := softmaxBackends(t)
				got := runGraph(t, fused, tc.fn, tc.args...)
				want := runGraph(t, plain, tc.fn, tc.args...)
				for i := range want {
					if !sameBits(got[i], want[i]) {
						t.Errorf("%s %s: output %d differs from the unfused ops", name, tc.what, i)
					}
				}
				if n := fused.fused.softmax.Load(); n != tc.fuses {
					t.Errorf("%s %s: %d softmaxes fused, want %d", name, tc.what, n, tc.fuses)
				}
				if n := fused.fused.broadcastAddend.Load(); n != tc.broadcasts {
					t.Errorf("%s %s: %d softmaxes read a broadcast's source, want %d", name, tc.what, n, tc.broadcasts)
				}
				if n := plain.fused.softmax.Load(); n != 0 {
					t.Errorf("%s %s: nofusion fused %d", name, tc.what, n)
				}
			}
		}
	}
}

// TestSoftmaxFusionSkipsGradients checks that a softmax whose
// intermediates the gradient reads is left unfused, and that value and
// gradient are still the same bits.
func TestSoftmaxFusionSkipsGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := softmaxInput(rng, false, 4, 3, 40)
	w := softmaxInput(rng, false, 4, 3, 40)
	fn := func(x, w *graph.Node) (*graph.Node, *graph.Node) {
		loss := graph.ReduceAllSum(graph.Mul(graph.Softmax(x, -1), w))
		return loss, graph.Gradient(loss, x)[0]
	}
	fused, plain := softmaxBackends(t)
	got, want := runGraph(t, fused, fn, x, w), runGraph(t, plain, fn, x, w)
	for i := range want {
		if !sameBits(got[i], want[i]) {
			t.Errorf("output %d differs from the unfused ops", i)
		}
	}
	if n := fused.fused.softmax.Load() + fused.fused.softmaxGrad.Load(); n != 0 {
		t.Errorf("%d softmaxes or gradients fused in a graph whose gradient reads the intermediates", n)
	}
}

// TestSoftmaxGradFusionBitwise runs p·(v − Σ v·p) over the last axis, as
// the model writes a softmax's gradient, in every operand order, with and
// without the fusion, and requires the same bits; it checks the fusion
// happened, and did not where the product v·p is read elsewhere.
func TestSoftmaxGradFusionBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	grad := func(swapInner, swapOuter bool) func(p, v *graph.Node) *graph.Node {
		return func(p, v *graph.Node) *graph.Node {
			vp := graph.Mul(v, p)
			if swapInner {
				vp = graph.Mul(p, v)
			}
			centred := graph.Sub(v, graph.ReduceAndKeep(vp, graph.ReduceSum, -1))
			if swapOuter {
				return graph.Mul(centred, p)
			}
			return graph.Mul(p, centred)
		}
	}
	for _, dims := range [][]int{{3, 2}, {5, 7}, {6, 17}, {2, 3, 33}, {2, 1, 4, 2, 64}, {1100, 256}} {
		p := softmaxInput(rng, false, dims...)
		for i, x := range p.flat {
			p.flat[i] = float32(math.Abs(float64(x)) / 1e9) // probabilities' range, some exactly 0
		}
		v := softmaxInput(rng, true, dims...)
		for _, tc := range []struct {
			what  string
			fn    any
			fuses int64
		}{
			{"p·(v−Σv·p)", grad(false, false), 1},
			{"p·(v−Σp·v)", grad(true, false), 1},
			{"(v−Σv·p)·p", grad(false, true), 1},
			{"(v−Σp·v)·p", grad(true, true), 1},
			{"product read elsewhere", func(p, v *graph.Node) (*graph.Node, *graph.Node) {
				vp := graph.Mul(v, p)
				return graph.Mul(p, graph.Sub(v, graph.ReduceAndKeep(vp, graph.ReduceSum, -1))), vp
			}, 0},
		} {
			fused, plain := softmaxBackends(t)
			got, want := runGraph(t, fused, tc.fn, p, v), runGraph(t, plain, tc.fn, p, v)
			for i := range want {
				if !sameBits(got[i], want[i]) {
					t.Errorf("%v %s: output %d differs from the unfused ops", dims, tc.what, i)
				}
			}
			if n := fused.fused.softmaxGrad.Load(); n != tc.fuses {
				t.Errorf("%v %s: %d gradients fused, want %d", dims, tc.what, n, tc.fuses)
			}
		}
	}
}

// BenchmarkSoftmax times a softmax of the scores plus the attention bias
// over the small benchmark model's attention shape [B,KV,T,G,T], fused and
// not, the bias [B,1,T,1,T] broadcast in the graph as the model does it.
func BenchmarkSoftmax(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	dims := []int{8, 4, 256, 2, 256}
	benchFusedAndNot(b, func(x, bias *graph.Node) *graph.Node {
		return graph.Softmax(graph.Add(x, graph.BroadcastToDims(bias, dims...)), -1)
	}, softmaxInput(rng, false, dims...), softmaxInput(rng, false, 8, 1, 256, 1, 256))
}

// benchFusedAndNot times fn on args with and without the fusions.
func benchFusedAndNot(b *testing.B, fn any, args ...hostTensor) {
	fused, plain := softmaxBackends(b)
	for _, be := range []struct {
		name string
		b    *Backend
	}{{"fused", fused}, {"unfused", plain}} {
		b.Run(be.name, func(b *testing.B) {
			exec, err := graph.NewExecAny(be.b, fn)
			if err != nil {
				b.Fatal(err)
			}
			in := make([]any, len(args))
			for i, a := range args {
				in[i] = a.tensor()
			}
			for b.Loop() {
				out, err := exec.Exec(in...)
				if err != nil {
					b.Fatal(err)
				}
				out[0].FinalizeAll()
			}
		})
	}
}
