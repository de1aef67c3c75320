package vecmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMax checks every kernel's Max against a sequential scan with Go's max
// bit for bit, over lengths around the vector widths and values that test
// the rules: NaN anywhere, +0 against -0, infinities, and init winning.
func TestMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	negZero := float32(math.Copysign(0, -1))
	inf := float32(math.Inf(1))
	sequential := func(init float32, src []float32) float32 {
		m := init
		for _, v := range src {
			m = max(m, v)
		}
		return m
	}
	type mutation struct {
		name string
		fn   func(src []float32) float32 // edits src, returns init
	}
	mutations := []mutation{
		{"random", func(src []float32) float32 { return -inf }},
		{"init wins", func(src []float32) float32 { return 100 }},
		{"NaN init", func(src []float32) float32 { return float32(math.NaN()) }},
		{"one NaN", func(src []float32) float32 {
			if len(src) > 0 {
				src[rng.IntN(len(src))] = float32(math.NaN())
			}
			return -inf
		}},
		{"zeros of both signs", func(src []float32) float32 {
			for i := range src {
				src[i] = negZero
				if rng.IntN(4) == 0 {
					src[i] = 0
				}
			}
			return -inf
		}},
		{"negative zeros only", func(src []float32) float32 {
			for i := range src {
				src[i] = negZero
			}
			return -inf
		}},
		{"negatives and -0, +0 init", func(src []float32) float32 {
			for i := range src {
				src[i] = -float32(math.Abs(float64(src[i])))
			}
			if len(src) > 0 {
				src[len(src)-1] = negZero
			}
			return 0
		}},
		{"infinities", func(src []float32) float32 {
			for i := range src {
				if rng.IntN(3) == 0 {
					src[i] = -inf
				}
			}
			if len(src) > 2 {
				src[2] = inf
			}
			return -inf
		}},
	}
	for _, k := range allKernels(t) {
		for _, n := range append(testLengths, 31, 32, 40, 257) {
			for _, mu := range mutations {
				for offset := range 3 { // unaligned starts too
					buf := randSlice(rng, n+offset)
					src := buf[offset:]
					init := mu.fn(src)
					got, want := k.max(init, src), sequential(init, src)
					if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
						t.Errorf("%s %s n=%d offset %d: max %v (bits %08x), want %v (bits %08x)",
							k.name, mu.name, n, offset, got, math.Float32bits(got), want, math.Float32bits(want))
					}
				}
			}
		}
	}
	if got := Max(1, []float32{3, -2, 7, 0}); got != 7 {
		t.Errorf("Max = %v, want 7", got)
	}
	// ScanMax over float64 follows the same rules: widening is exact and
	// keeps NaN and the sign of zero, so its result is the widened one.
	for _, n := range append(testLengths, 31, 257) {
		for _, mu := range mutations {
			src := randSlice(rng, n)
			init := mu.fn(src)
			wide := make([]float64, n)
			for i, v := range src {
				wide[i] = float64(v)
			}
			got, want := ScanMax(float64(init), wide), float64(sequential(init, src))
			if math.Float64bits(got) != math.Float64bits(want) && !(got != got && want != want) {
				t.Errorf("ScanMax float64 %s n=%d: %v, want %v", mu.name, n, got, want)
			}
		}
	}
}

func BenchmarkMax(b *testing.B) {
	src := randSlice(rand.New(rand.NewPCG(1, 2)), 256)
	for _, k := range allKernels(b) {
		b.Run(k.name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(src)))
			for b.Loop() {
				k.max(float32(math.Inf(-1)), src)
			}
		})
	}
}

// TestNeg checks every kernel's Neg against Go's negation bit for bit,
// zeros, infinities and NaNs (whose sign flips too) included, in place and
// not.
func TestNeg(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, k := range allKernels(t) {
		for _, n := range testLengths {
			src := randSlice(rng, n)
			for i := range src {
				switch rng.IntN(8) {
				case 0:
					src[i] = float32(math.Copysign(0, -1))
				case 1:
					src[i] = 0
				case 2:
					src[i] = float32(math.Inf(1 - 2*rng.IntN(2)))
				case 3:
					src[i] = math.Float32frombits(0x7fc00001 | uint32(rng.IntN(2))<<31) // NaNs of both signs
				}
			}
			exact := func(what string, got []float32) {
				for i, v := range got {
					if math.Float32bits(v) != math.Float32bits(-src[i]) {
						t.Fatalf("%s %s n=%d: element %d = %08x, want %08x", k.name, what, n, i, math.Float32bits(v), math.Float32bits(-src[i]))
					}
				}
			}
			dst := make([]float32, n)
			k.neg(dst, src)
			exact("neg", dst)
			in := append([]float32(nil), src...)
			k.neg(in, in)
			exact("neg in place", in)
		}
	}
	if dst := make([]float32, 2); Neg(dst, []float32{1, -2, 3}) != 2 || dst[0] != -1 || dst[1] != 2 {
		t.Errorf("Neg(dst[:2], 3 values) = %v", dst)
	}
}
