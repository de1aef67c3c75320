package vecmath

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// allKernels returns every implementation this machine can run, so each ISA
// path is tested, not only the one chosen at start-up.
func allKernels(t testing.TB) []*kernels {
	var ks []*kernels
	for _, k := range []*kernels{genericKernels, avx2Kernels, avx512Kernels} {
		if k != nil && supported(k) {
			ks = append(ks, k)
		}
	}
	t.Logf("testing ISAs: %v (default %s)", names(ks), ISA())
	return ks
}

func names(ks []*kernels) []string {
	var s []string
	for _, k := range ks {
		s = append(s, k.name)
	}
	return s
}

var testLengths = []int{0, 1, 7, 8, 15, 16, 17, 33, 63, 64, 65, 1000}

// expErr returns the error of got against e^x computed in float64: relative
// for normal results, in units of the smallest subnormal below them (where
// only absolute accuracy is meaningful).
func expErr(x, got float64) float64 {
	want := math.Exp(x)
	switch {
	case math.IsNaN(x):
		if !math.IsNaN(got) {
			return math.Inf(1)
		}
		return 0
	case want > math.MaxFloat32*(1+1e-7): // overflow: must be +Inf
		if !math.IsInf(got, 1) {
			return math.Inf(1)
		}
		return 0
	case want < 0x1p-126:
		return math.Abs(got-want) / 0x1p-126 // relative to the smallest normal
	}
	return math.Abs(got-want) / want
}

// maxExpRelErr is the accepted error: 3 float32 ulp (2^-23 relative each).
// Measured: ~1.4e-7 (about 1.2 ulp) on every path.
const maxExpRelErr = 3 * 0x1p-24

func TestExpSweep(t *testing.T) {
	// Dense sweep over the whole finite range of interest, plus edge cases.
	var xs []float32
	for x := float32(-110); x <= 95; x += 0.00731 {
		xs = append(xs, x)
	}
	xs = append(xs, 0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 88.72, 88.7228, 88.7229, 88.73, -87.33, -87.34,
		-103.27, -103.28, -103.97, -104, -105, float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32)
	for _, k := range allKernels(t) {
		got := make([]float32, len(xs))
		k.exp(got, xs)
		worst, worstX := 0.0, float32(0)
		for i, x := range xs {
			e := expErr(float64(x), float64(got[i]))
			if e > worst {
				worst, worstX = e, x
			}
		}
		t.Logf("%s: max relative error %.3g at x=%g (%d points)", k.name, worst, worstX, len(xs))
		if worst > maxExpRelErr {
			t.Errorf("%s: exp error %.3g at x=%g exceeds %.3g", k.name, worst, worstX, maxExpRelErr)
		}
	}
}

func TestExpEdgeCases(t *testing.T) {
	inf := float32(math.Inf(1))
	cases := []struct{ x, want float32 }{
		{0, 1}, {inf, inf}, {-inf, 0}, {200, inf}, {89, inf}, {-200, 0}, {-104, 0},
		{math.MaxFloat32, inf}, {-math.MaxFloat32, 0},
	}
	for _, k := range allKernels(t) {
		for _, c := range cases {
			got := make([]float32, 1)
			k.exp(got, []float32{c.x})
			if got[0] != c.want {
				t.Errorf("%s: exp(%g) = %g, want %g", k.name, c.x, got[0], c.want)
			}
		}
		got := make([]float32, 1)
		k.exp(got, []float32{float32(math.NaN())})
		if !math.IsNaN(float64(got[0])) {
			t.Errorf("%s: exp(NaN) = %g, want NaN", k.name, got[0])
		}
		k.sigmoid(got, []float32{float32(math.NaN())})
		if !math.IsNaN(float64(got[0])) {
			t.Errorf("%s: sigmoid(NaN) = %g, want NaN", k.name, got[0])
		}
	}
}

func TestExpLengths(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range allKernels(t) {
		for _, n := range testLengths {
			src := make([]float32, n)
			for i := range src {
				src[i] = float32(rng.NormFloat64() * 20)
			}
			dst := make([]float32, n+1) // the extra element must stay untouched
			dst[n] = 42
			k.exp(dst[:n], src)
			if dst[n] != 42 {
				t.Errorf("%s n=%d: wrote past the end", k.name, n)
			}
			for i, x := range src {
				if e := expErr(float64(x), float64(dst[i])); e > maxExpRelErr {
					t.Errorf("%s n=%d: exp(%g) = %g, error %.3g", k.name, n, x, dst[i], e)
				}
			}
			// In place gives the same bits.
			in := append([]float32(nil), src...)
			k.exp(in, in)
			for i := range in {
				if math.Float32bits(in[i]) != math.Float32bits(dst[i]) {
					t.Fatalf("%s n=%d: in-place exp differs at %d", k.name, n, i)
				}
			}
		}
	}
}

func TestSigmoid(t *testing.T) {
	var xs []float32
	for x := float32(-120); x <= 120; x += 0.0137 {
		xs = append(xs, x)
	}
	xs = append(xs, 0, float32(math.Inf(1)), float32(math.Inf(-1)))
	for _, k := range allKernels(t) {
		for _, n := range testLengths {
			if n > len(xs) {
				continue
			}
			got := make([]float32, n)
			k.sigmoid(got, xs[:n])
			checkSigmoid(t, k.name, xs[:n], got)
		}
		got := make([]float32, len(xs))
		k.sigmoid(got, xs)
		checkSigmoid(t, k.name, xs, got)
	}
}

func checkSigmoid(t *testing.T, name string, xs, got []float32) {
	t.Helper()
	worst := 0.0
	defer func() { t.Logf("%s: sigmoid max relative error %.3g over %d points", name, worst, len(xs)) }()
	for i, x := range xs {
		want := 1 / (1 + math.Exp(-float64(x)))
		// Documented: results below the smallest normal may flush to 0, so
		// there only the absolute error (at most 2^-126) is checked.
		if want < 0x1p-126 {
			if math.Abs(float64(got[i])-want) > 0x1p-126 {
				t.Errorf("%s: sigmoid(%g) = %g, want %g", name, x, got[i], want)
				return
			}
			continue
		}
		e := math.Abs(float64(got[i])-want) / want
		worst = max(worst, e)
		if e > 4*0x1p-24 {
			t.Errorf("%s: sigmoid(%g) = %g, want %g (error %.3g)", name, x, got[i], want, e)
			return
		}
	}
}

// binaryCase pairs a kernel with its scalar definition.
type binaryCase struct {
	name string
	vv   func(k *kernels) func(dst, a, b []float32)
	ref  func(a, b float32) float32
}

var binaryCases = []binaryCase{
	{"add", func(k *kernels) func(dst, a, b []float32) { return k.add }, func(a, b float32) float32 { return a + b }},
	{"sub", func(k *kernels) func(dst, a, b []float32) { return k.sub }, func(a, b float32) float32 { return a - b }},
	{"mul", func(k *kernels) func(dst, a, b []float32) { return k.mul }, func(a, b float32) float32 { return a * b }},
	{"div", func(k *kernels) func(dst, a, b []float32) { return k.div }, func(a, b float32) float32 { return a / b }},
}

func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64() * 100)
		if rng.IntN(50) == 0 {
			s[i] = 0 // exercise x/0 and 0/0
		}
	}
	return s
}

func sameBits(t *testing.T, what string, got []float32, ref func(i int) float32) {
	t.Helper()
	for i := range got {
		w := ref(i)
		if math.Float32bits(got[i]) != math.Float32bits(w) && !(w != w && got[i] != got[i]) {
			t.Fatalf("%s: element %d = %g, want %g", what, i, got[i], w)
		}
	}
}

func TestBinary(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range allKernels(t) {
		for _, n := range testLengths {
			a, b := randSlice(rng, n), randSlice(rng, n)
			c := float32(rng.NormFloat64())
			for _, bc := range binaryCases {
				dst := make([]float32, n)
				bc.vv(k)(dst, a, b)
				sameBits(t, k.name+" "+bc.name, dst, func(i int) float32 { return bc.ref(a[i], b[i]) })
			}
			for _, sc := range []struct {
				name string
				fn   func(dst, a []float32, c float32)
				ref  func(x float32) float32
			}{
				{"addVS", k.addVS, func(x float32) float32 { return x + c }},
				{"subVS", k.subVS, func(x float32) float32 { return x - c }},
				{"mulVS", k.mulVS, func(x float32) float32 { return x * c }},
				{"divVS", k.divVS, func(x float32) float32 { return x / c }},
				{"subSV", k.subSV, func(x float32) float32 { return c - x }},
				{"divSV", k.divSV, func(x float32) float32 { return c / x }},
			} {
				dst := make([]float32, n)
				sc.fn(dst, a, c)
				sameBits(t, k.name+" "+sc.name, dst, func(i int) float32 { return sc.ref(a[i]) })
				// In place.
				in := append([]float32(nil), a...)
				sc.fn(in, in, c)
				sameBits(t, k.name+" "+sc.name+" in place", in, func(i int) float32 { return sc.ref(a[i]) })
			}
		}
	}
}

// TestSqrt checks every kernel's square roots bit for bit against
// math.Sqrt in float64 rounded to float32, at every length (vector bodies
// and tails), on ordinary, tiny, subnormal, huge and special values.
func TestSqrt(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	specials := []float32{0, float32(math.Copysign(0, -1)), -1, -math.SmallestNonzeroFloat32, math.SmallestNonzeroFloat32,
		1e-40, 1.17549435e-38, math.MaxFloat32, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 2, 0.25}
	for _, k := range allKernels(t) {
		for _, n := range append(testLengths, 4096) {
			src := make([]float32, n)
			for i := range src {
				if rng.IntN(5) == 0 {
					src[i] = specials[rng.IntN(len(specials))]
				} else {
					src[i] = math.Float32frombits(rng.Uint32() &^ (1 << 31)) // any positive float
				}
			}
			dst := make([]float32, n)
			k.sqrt(dst, src)
			for i, x := range src {
				want := float32(math.Sqrt(float64(x)))
				if math.Float32bits(dst[i]) != math.Float32bits(want) && !(math.IsNaN(float64(want)) && math.IsNaN(float64(dst[i]))) {
					t.Fatalf("%s n=%d: sqrt(%g) = %g, want %g", k.name, n, x, dst[i], want)
				}
			}
		}
	}
}

func TestExportedAPI(t *testing.T) {
	a := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}
	b := []float32{9, 8, 7, 6, 5, 4, 3, 2, 1}
	dst := make([]float32, len(a))
	check := func(name string, ref func(i int) float32) {
		t.Helper()
		sameBits(t, name, dst, ref)
	}
	Add(dst, a, b)
	check("Add", func(i int) float32 { return a[i] + b[i] })
	Sub(dst, a, b)
	check("Sub", func(i int) float32 { return a[i] - b[i] })
	Mul(dst, a, b)
	check("Mul", func(i int) float32 { return a[i] * b[i] })
	Div(dst, a, b)
	check("Div", func(i int) float32 { return a[i] / b[i] })
	AddScalar(dst, a, 3)
	check("AddScalar", func(i int) float32 { return a[i] + 3 })
	SubScalar(dst, a, 3)
	check("SubScalar", func(i int) float32 { return a[i] - 3 })
	ScalarSub(dst, 3, a)
	check("ScalarSub", func(i int) float32 { return 3 - a[i] })
	MulScalar(dst, a, 3)
	check("MulScalar", func(i int) float32 { return a[i] * 3 })
	DivScalar(dst, a, 3)
	check("DivScalar", func(i int) float32 { return a[i] / 3 })
	ScalarDiv(dst, 3, a)
	check("ScalarDiv", func(i int) float32 { return 3 / a[i] })
	Exp(dst, a)
	for i := range a {
		if e := expErr(float64(a[i]), float64(dst[i])); e > maxExpRelErr {
			t.Errorf("Exp(%g) = %g", a[i], dst[i])
		}
	}
	Sigmoid(dst, a)
	checkSigmoid(t, "Sigmoid", a, dst)

	// Mismatched lengths work on the shortest, like copy.
	dst = make([]float32, len(a))
	if n := Add(dst[:3], a, b); n != 3 || dst[3] != 0 || dst[2] != a[2]+b[2] {
		t.Errorf("Add(dst[:3], a, b) = %d, dst %v", n, dst)
	}
	if n := Exp(dst, a[:2]); n != 2 || dst[2] != a[2]+b[2] {
		t.Errorf("Exp(dst, a[:2]) = %d, dst %v", n, dst)
	}
}

func FuzzExp(f *testing.F) {
	for _, x := range []float32{0, 1, -1, 88.7, -87.3, -103.5, 100, float32(math.NaN())} {
		f.Add(x)
	}
	ks := allKernels(f)
	f.Fuzz(func(t *testing.T, x float32) {
		for _, k := range ks {
			// Place x in every lane position of a vector and in the tail.
			src := make([]float32, 19)
			for i := range src {
				src[i] = x
			}
			dst := make([]float32, len(src))
			k.exp(dst, src)
			for i := range dst {
				if e := expErr(float64(x), float64(dst[i])); e > maxExpRelErr {
					t.Fatalf("%s: exp(%g) = %g, error %.3g", k.name, x, dst[i], e)
				}
			}
		}
	})
}

// TestExpUnderflowLanes mixes, within each vector, lanes whose e^x is 0
// (x <= -104: the kernels zero them instead of computing the underflow)
// with lanes of every other kind, and requires each lane's bits to be
// those it gets in a vector of its own value.
func TestExpUnderflowLanes(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	values := []float32{-1e9, -104, -104.5, -103.99, -103.5, -90, -87.4, -20, 0, 3, 88, 89, 1e9,
		float32(math.Inf(-1)), float32(math.Inf(1)), float32(math.NaN())}
	src := make([]float32, 4096)
	for i := range src {
		src[i] = values[rng.IntN(len(values))]
		if rng.IntN(4) == 0 {
			src[i] = float32(rng.NormFloat64() * 60)
		}
	}
	for _, k := range allKernels(t) {
		for _, sigmoid := range []bool{false, true} {
			f := k.exp
			if sigmoid {
				f = k.sigmoid
			}
			got := make([]float32, len(src))
			f(got, src)
			alone := make([]float32, 16)
			for i, x := range src {
				for j := range alone {
					alone[j] = x
				}
				f(alone, alone)
				if math.Float32bits(got[i]) != math.Float32bits(alone[0]) {
					t.Fatalf("%s sigmoid=%v: x=%g gives %g beside other lanes, %g alone", k.name, sigmoid, x, got[i], alone[0])
				}
				if !sigmoid && x <= -104 && math.Float32bits(got[i]) != 0 {
					t.Fatalf("%s: exp(%g) = %g, want +0", k.name, x, got[i])
				}
			}
		}
	}
}

func BenchmarkExp(b *testing.B) {
	src := randSlice(rand.New(rand.NewPCG(5, 6)), 4096)
	// Softmax over causally masked attention scores: half the inputs are
	// about -1e9.
	masked := slices.Clone(src)
	for i := range masked {
		if i%2 == 1 {
			masked[i] = -1e9
		}
	}
	dst := make([]float32, len(src))
	for _, k := range allKernels(b) {
		b.Run(k.name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(src)))
			for b.Loop() {
				k.exp(dst, src)
			}
		})
		b.Run(k.name+"/masked", func(b *testing.B) {
			b.SetBytes(int64(4 * len(masked)))
			for b.Loop() {
				k.exp(dst, masked)
			}
		})
	}
	b.Run("math.Exp", func(b *testing.B) {
		b.SetBytes(int64(4 * len(src)))
		for b.Loop() {
			for i, x := range src {
				dst[i] = float32(math.Exp(float64(x)))
			}
		}
	})
}

func BenchmarkSqrt(b *testing.B) {
	src := randSlice(rand.New(rand.NewPCG(15, 16)), 4096)
	for i, x := range src {
		src[i] = float32(math.Abs(float64(x)))
	}
	dst := make([]float32, len(src))
	for _, k := range allKernels(b) {
		b.Run(k.name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(src)))
			for b.Loop() {
				k.sqrt(dst, src)
			}
		})
	}
}

func BenchmarkMul(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	x, y := randSlice(rng, 4096), randSlice(rng, 4096)
	dst := make([]float32, len(x))
	for _, k := range allKernels(b) {
		b.Run(k.name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(x)))
			for b.Loop() {
				k.mul(dst, x, y)
			}
		})
	}
}
