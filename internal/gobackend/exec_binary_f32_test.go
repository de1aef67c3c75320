package gobackend

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/org/agentevolver/internal/vecmath"
)

// TestExecFloat32Binary checks the SIMD float32 path against upstream's
// generic code bit for bit, on every case it distinguishes: scalar on
// either side, same shape (odd lengths for the vector tails), and broadcast
// runs that are long or short, contiguous or broadcast on either side.
func TestExecFloat32Binary(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	type pair struct{ lhs, rhs, out []int }
	pairs := []pair{
		{[]int{}, []int{}, []int{}},
		{[]int{37}, []int{}, []int{37}},
		{[]int{}, []int{37}, []int{37}},
		{[]int{1}, []int{1000}, []int{1000}},
		{[]int{0}, []int{0}, []int{0}},
		{[]int{7}, []int{7}, []int{7}},
		{[]int{17}, []int{17}, []int{17}},
		{[]int{3, 33}, []int{3, 33}, []int{3, 33}},
		{[]int{4, 5, 33}, []int{1, 1, 33}, []int{4, 5, 33}}, // contiguous runs on both sides
		{[]int{4, 5, 33}, []int{4, 5, 1}, []int{4, 5, 33}},  // rhs broadcast within runs
		{[]int{4, 5, 1}, []int{4, 5, 33}, []int{4, 5, 33}},  // lhs broadcast within runs
		{[]int{4, 5, 3}, []int{4, 1, 3}, []int{4, 5, 3}},    // short runs
		{[]int{2, 1, 16}, []int{1, 3, 1}, []int{2, 3, 16}},  // both broadcast
		{[]int{6, 1, 1, 9}, []int{1, 5, 7, 1}, []int{6, 5, 7, 9}},
	}
	ops := []struct {
		op  f32Op
		ref func(lhs, rhs, out []float32, ls, rs, os shapes.Shape)
	}{
		{f32Add, execAddNumericGeneric[float32]},
		{f32Sub, execSubNumericGeneric[float32]},
		{f32Mul, execMulNumericGeneric[float32]},
		{f32Div, execDivNumericGeneric[float32]},
	}
	rand32 := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(rng.NormFloat64() * 10)
			if rng.IntN(20) == 0 {
				s[i] = 0
			}
		}
		return s
	}
	for _, p := range pairs {
		ls := shapes.Make(dtypes.Float32, p.lhs...)
		rs := shapes.Make(dtypes.Float32, p.rhs...)
		os := shapes.Make(dtypes.Float32, p.out...)
		lhs, rhs := rand32(ls.Size()), rand32(rs.Size())
		for _, o := range ops {
			name := fmt.Sprintf("op%d %v %v", o.op, p.lhs, p.rhs)
			want := make([]float32, os.Size())
			if len(lhs) == 1 && len(rhs) != 1 && (o.op == f32Add || o.op == f32Mul) {
				// Upstream's commutative ops expect the scalar on the right
				// (execAdd/execMul swap them first).
				o.ref(rhs, lhs, want, rs, ls, os)
			} else {
				o.ref(lhs, rhs, want, ls, rs, os)
			}
			got := make([]float32, os.Size())
			execFloat32Binary(backend.(*Backend), o.op, lhs, rhs, got, ls, rs, os)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Fatalf("%s: element %d = %g, want %g", name, i, got[i], want[i])
				}
			}
		}
	}
}

// TestExecFloat32BinaryInPlace covers the output reusing an operand's
// buffer, which binaryOperandsAndOutput does when the operand is owned.
func TestExecFloat32BinaryInPlace(t *testing.T) {
	s := shapes.Make(dtypes.Float32, 3, 11)
	a := make([]float32, s.Size())
	b := make([]float32, s.Size())
	for i := range a {
		a[i], b[i] = float32(i)+0.5, float32(2*i+1)
	}
	want := make([]float32, s.Size())
	execDivNumericGeneric[float32](a, b, want, s, s, s)
	execFloat32Binary(backend.(*Backend), f32Div, a, b, b, s, s, s) // output aliases rhs
	for i := range want {
		if b[i] != want[i] {
			t.Fatalf("element %d = %g, want %g", i, b[i], want[i])
		}
	}
}

// TestSplitElementwise checks that large elementwise ops, which splitRange spreads over the
// backend's workers, give the same bits as one pass: binary ops against upstream's generic code,
// Exp and Logistic against the single-goroutine kernels, Cos and Sin against a plain loop.
func TestSplitElementwise(t *testing.T) {
	const n = 5*splitMinElements + 37 // ragged last chunk
	s := shapes.Make(dtypes.Float32, n)
	rng := rand.New(rand.NewPCG(9, 10))
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(rng.NormFloat64()*10), float32(rng.NormFloat64()*10)
	}
	refs := map[f32Op]func(lhs, rhs, out []float32, ls, rs, os shapes.Shape){
		f32Add: execAddNumericGeneric[float32], f32Sub: execSubNumericGeneric[float32],
		f32Mul: execMulNumericGeneric[float32], f32Div: execDivNumericGeneric[float32],
	}
	be := backend.(*Backend)
	for op, ref := range refs {
		for _, rhs := range [][]float32{b, b[:1]} {
			rs := s
			if len(rhs) == 1 {
				rs = shapes.Make(dtypes.Float32)
			}
			want, got := make([]float32, n), make([]float32, n)
			ref(a, rhs, want, s, rs, s)
			execFloat32Binary(be, op, a, rhs, got, s, rs, s)
			if !slices.Equal(got, want) {
				t.Fatalf("op %d (rhs of %d): split result differs", op, len(rhs))
			}
		}
	}
	unary := []struct {
		name   string
		kernel func(dst, src []float32) int
		op     func(x *graph.Node) *graph.Node
	}{{"exp", vecmath.Exp, graph.Exp}, {"logistic", vecmath.Sigmoid, graph.Logistic},
		{"cos", scalarMath(math.Cos), graph.Cos}, {"sin", scalarMath(math.Sin), graph.Sin}}
	for _, u := range unary {
		want := make([]float32, n)
		u.kernel(want, a)
		got, err := tensors.CopyFlatData[float32](graph.MustExecOnce(backend, u.op, a))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: split result differs", u.name)
		}
	}
}

// scalarMath applies f to each element in float64, as upstream's Cos and Sin do.
func scalarMath(f func(float64) float64) func(dst, src []float32) int {
	return func(dst, src []float32) int {
		for i, x := range src {
			dst[i] = float32(f(float64(x)))
		}
		return len(src)
	}
}

// BenchmarkSplitElementwise times a float32 Mul and an Exp done in one pass
// and split by splitRange, at sizes around splitMinElements per worker; it
// is what splitMinElements is tuned with.
func BenchmarkSplitElementwise(b *testing.B) {
	be := backend.(*Backend)
	for _, n := range []int{1 << 13, 1 << 14, 1 << 15, 1 << 17, 1 << 21} {
		x, y, out := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = float32(i%97)/97, float32(i%89)/89
		}
		mul := func(lo, hi int) { vecmath.Mul(out[lo:hi], x[lo:hi], y[lo:hi]) }
		exp := func(lo, hi int) { vecmath.Exp(out[lo:hi], x[lo:hi]) }
		for _, op := range []struct {
			name string
			fn   func(lo, hi int)
		}{{"mul", mul}, {"exp", exp}} {
			b.Run(fmt.Sprintf("%s/%dK/one", op.name, n>>10), func(b *testing.B) {
				for b.Loop() {
					op.fn(0, n)
				}
			})
			b.Run(fmt.Sprintf("%s/%dK/split", op.name, n>>10), func(b *testing.B) {
				for b.Loop() {
					splitRange(be, n, op.fn)
				}
			})
		}
	}
}
