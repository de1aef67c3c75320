//go:build amd64 && !purego

package vecmath

import (
	"math"

	"golang.org/x/sys/cpu"
)

//go:generate go run gen_asm.go

type (
	asmUnary     func(dst, src *float32, n int)
	asmBinary    func(dst, a, b *float32, n int)
	asmBinScalar func(dst, a *float32, c float32, n int)
)

var (
	avx512Kernels = newAsmKernels("AVX512", 16,
		expAVX512, sigmoidAVX512,
		addVVAVX512, subVVAVX512, mulVVAVX512, divVVAVX512,
		addVSAVX512, subVSAVX512, mulVSAVX512, divVSAVX512,
		subSVAVX512, divSVAVX512, xorVSAVX512, sqrtAVX512)
	avx2Kernels = newAsmKernels("AVX2", 8,
		expAVX2, sigmoidAVX2,
		addVVAVX2, subVVAVX2, mulVVAVX2, divVVAVX2,
		addVSAVX2, subVSAVX2, mulVSAVX2, divVSAVX2,
		subSVAVX2, divSVAVX2, xorVSAVX2, sqrtAVX2)
)

// selectKernels picks the widest ISA the CPU (and OS, which x/sys/cpu also
// checks) supports.
func selectKernels() *kernels {
	switch {
	case cpu.X86.HasAVX512F:
		return avx512Kernels
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return avx2Kernels
	default:
		return genericKernels
	}
}

// supported reports whether this CPU can run k (the tests use it to cover
// every available path).
func supported(k *kernels) bool {
	switch k {
	case avx512Kernels:
		return cpu.X86.HasAVX512F
	case avx2Kernels:
		return cpu.X86.HasAVX2 && cpu.X86.HasFMA
	}
	return true
}

func newAsmKernels(name string, width int, exp, sigmoid asmUnary,
	add, sub, mul, div asmBinary, addVS, subVS, mulVS, divVS, subSV, divSV, xorVS asmBinScalar, sqrt asmUnary) *kernels {
	return &kernels{
		name:    name,
		width:   width,
		exp:     wrapUnary(width, exp),
		sigmoid: wrapUnary(width, sigmoid),
		add:     wrapBinary(width, add, addGeneric),
		sub:     wrapBinary(width, sub, subGeneric),
		mul:     wrapBinary(width, mul, mulGeneric),
		div:     wrapBinary(width, div, divGeneric),
		addVS:   wrapBinScalar(width, addVS, addVSGeneric),
		subVS:   wrapBinScalar(width, subVS, subVSGeneric),
		mulVS:   wrapBinScalar(width, mulVS, mulVSGeneric),
		divVS:   wrapBinScalar(width, divVS, divVSGeneric),
		subSV:   wrapBinScalar(width, subSV, subSVGeneric),
		divSV:   wrapBinScalar(width, divSV, divSVGeneric),
		neg:     negWith(wrapBinScalar(width, xorVS, xorVSGeneric)),
		sqrt:    wrapUnary(width, sqrt), // exact per element: the padded tail gives the scalar bits
		max:     maxVector,
		sum:     sumVector,
	}
}

// sumVector is Sum on the AVX2 kernel (AVX-512 machines run it too, so the
// lane sums, and the bits, are the same).
func sumVector(src []float32) float32 {
	body := len(src) &^ 7
	var lanes [8]float32
	if body > 0 {
		sumAVX2(&lanes[0], &src[0], body)
	}
	return finishSum(&lanes, src[body:])
}

// maxVector is Max on the AVX2 kernel, whose VMAXPS keeps either zero of
// a +0/-0 pair: a zero result is recomputed exactly; that is rare and
// costs one more scan. Any other result is the one value that is largest,
// so which zero a lane kept does not matter. (AVX-512 machines run the
// AVX2 kernel too: the scan is memory-bound.)
func maxVector(init float32, src []float32) float32 {
	body := len(src) &^ 7
	m := init
	if body > 0 {
		var nanLanes int
		if m, nanLanes = maxAVX2(init, &src[0], body); nanLanes != 0 {
			return float32(math.NaN())
		}
		if m == 0 || m != m { // a NaN init stays in every lane
			return maxGeneric(init, src)
		}
	}
	for _, v := range src[body:] {
		m = max(m, v)
	}
	return m
}

// wrapUnary runs the kernel over whole vectors, and over the tail through a
// padded stack buffer, so every element gets the same (vector) arithmetic.
func wrapUnary(width int, kern asmUnary) func(dst, src []float32) {
	return func(dst, src []float32) {
		n := len(src)
		body := n &^ (width - 1)
		if body > 0 {
			kern(&dst[0], &src[0], body)
		}
		if body < n {
			var buf [16]float32
			copy(buf[:], src[body:])
			kern(&buf[0], &buf[0], width)
			copy(dst[body:n], buf[:])
		}
	}
}

// wrapBinary runs the kernel over whole vectors and the scalar loop over the
// tail: IEEE add/sub/mul/div are exact per element, so both give the same
// bits.
func wrapBinary(width int, kern asmBinary, tail func(dst, a, b []float32)) func(dst, a, b []float32) {
	return func(dst, a, b []float32) {
		n := len(dst)
		body := n &^ (width - 1)
		if body > 0 {
			kern(&dst[0], &a[0], &b[0], body)
		}
		if body < n {
			tail(dst[body:], a[body:n], b[body:n])
		}
	}
}

func wrapBinScalar(width int, kern asmBinScalar, tail func(dst, a []float32, c float32)) func(dst, a []float32, c float32) {
	return func(dst, a []float32, c float32) {
		n := len(dst)
		body := n &^ (width - 1)
		if body > 0 {
			kern(&dst[0], &a[0], c, body)
		}
		if body < n {
			tail(dst[body:], a[body:n], c)
		}
	}
}
