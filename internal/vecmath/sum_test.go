package vecmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSum checks every kernel's Sum against the order Sum documents,
// written out here element by element, bit for bit, over lengths around
// the block sizes and unaligned starts, and against a float64 sum within
// a few roundings of the values' magnitude.
func TestSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	documented := func(src []float32) float32 {
		var s [32]float32
		n, i := len(src), 0
		for ; n-i >= 32; i += 32 {
			for j := range 32 {
				s[j] += src[i+j]
			}
		}
		for ; n-i >= 8; i += 8 {
			for j := range 8 {
				s[j] += src[i+j]
			}
		}
		var v [8]float32
		for j := range v {
			v[j] = (s[j] + s[j+8]) + (s[j+16] + s[j+24])
		}
		total := ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]))
		for ; i < n; i++ {
			total += src[i]
		}
		return total
	}
	for _, k := range allKernels(t) {
		for _, n := range append(testLengths, 31, 32, 40, 63, 64, 100, 256, 257, 4096) {
			for offset := range 3 {
				buf := randSlice(rng, n+offset)
				src := buf[offset:]
				got, want := k.sum(src), documented(src)
				if math.Float32bits(got) != math.Float32bits(want) {
					t.Errorf("%s n=%d offset %d: sum %v, want %v (the documented order)", k.name, n, offset, got, want)
				}
				var exact, mag float64
				for _, v := range src {
					exact += float64(v)
					mag += math.Abs(float64(v))
				}
				if math.Abs(float64(got)-exact) > 1e-6*mag+1e-30 {
					t.Errorf("%s n=%d: sum %v, float64 sum %v", k.name, n, got, exact)
				}
			}
		}
		inf := float32(math.Inf(1))
		if got := k.sum([]float32{1, inf, 2, 3, 4, 5, 6, 7, 8}); !math.IsInf(float64(got), 1) {
			t.Errorf("%s: sum with +Inf = %v", k.name, got)
		}
		nan := make([]float32, 50)
		nan[37] = float32(math.NaN())
		if got := k.sum(nan); got == got {
			t.Errorf("%s: sum with a NaN = %v", k.name, got)
		}
	}
	if got := Sum([]float32{1, 2, 3.5}); got != 6.5 {
		t.Errorf("Sum = %v, want 6.5", got)
	}
}

func BenchmarkSum(b *testing.B) {
	src := randSlice(rand.New(rand.NewPCG(1, 2)), 256)
	for _, k := range allKernels(b) {
		b.Run(k.name, func(b *testing.B) {
			b.SetBytes(int64(4 * len(src)))
			for b.Loop() {
				k.sum(src)
			}
		})
	}
}
