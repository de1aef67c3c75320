package vecmath

import "math"

var genericKernels = &kernels{
	name:  "generic",
	width: 1,
	// Without SIMD, math.Exp in float64 is both faster than the scalar
	// polynomial and correctly rounded once converted to float32.
	exp: func(dst, src []float32) {
		dst = dst[:len(src)]
		for i, x := range src {
			dst[i] = float32(math.Exp(float64(x)))
		}
	},
	sigmoid: func(dst, src []float32) {
		dst = dst[:len(src)]
		for i, x := range src {
			dst[i] = float32(1 / (1 + math.Exp(-float64(x))))
		}
	},
	add:   addGeneric,
	sub:   subGeneric,
	mul:   mulGeneric,
	div:   divGeneric,
	addVS: addVSGeneric,
	subVS: subVSGeneric,
	mulVS: mulVSGeneric,
	divVS: divVSGeneric,
	subSV: subSVGeneric,
	divSV: divSVGeneric,
	neg:   negWith(xorVSGeneric),
	sqrt:  sqrtGeneric,
	max:   maxGeneric,
	sum:   sumGeneric,
}

// sumGeneric is Sum without SIMD: the same running sums, so the same bits.
func sumGeneric(src []float32) float32 {
	var s [32]float32
	n := len(src)
	i := 0
	for ; i+32 <= n; i += 32 {
		for j := range s {
			s[j] += src[i+j]
		}
	}
	for ; i+8 <= n; i += 8 {
		for j := range 8 {
			s[j] += src[i+j]
		}
	}
	var lanes [8]float32
	for j := range lanes {
		lanes[j] = (s[j] + s[j+8]) + (s[j+16] + s[j+24])
	}
	return finishSum(&lanes, src[i:])
}

// finishSum combines Sum's eight lane sums and adds the tail.
func finishSum(v *[8]float32, tail []float32) float32 {
	total := ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]))
	for _, x := range tail {
		total += x
	}
	return total
}

// sqrtGeneric is Sqrt without SIMD: the float64 square root rounded to
// float32 is the correctly rounded float32 one (53 >= 2·24+2 bits).
func sqrtGeneric(dst, src []float32) {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = float32(math.Sqrt(float64(x)))
	}
}

// signBit, as a float32 (-0), flips a value's sign when xor-ed with it.
var signBit = math.Float32frombits(1 << 31)

// negWith is Neg from a kernel that xors every element with a constant's
// bits.
func negWith(xorVS func(dst, a []float32, c float32)) func(dst, src []float32) {
	return func(dst, src []float32) { xorVS(dst, src, signBit) }
}

// xorVSGeneric sets dst[i] to a[i]'s bits xor c's.
func xorVSGeneric(dst, a []float32, c float32) {
	a = a[:len(dst)]
	bits := math.Float32bits(c)
	for i := range dst {
		dst[i] = math.Float32frombits(math.Float32bits(a[i]) ^ bits)
	}
}

// maxGeneric is Max without SIMD.
func maxGeneric(init float32, src []float32) float32 { return ScanMax(init, src) }

// ScanMax returns the largest of init and src's values with four running
// maxima, which break the dependency chain of one. Go's max is exact and
// order-independent (NaN propagates, +0 beats -0), so the result is that
// of a sequential scan. It serves either float type; Max is its SIMD
// float32 version.
func ScanMax[T float32 | float64](init T, src []T) T {
	m0, m1, m2, m3 := init, init, init, init
	i := 0
	for ; i+4 <= len(src); i += 4 {
		m0 = max(m0, src[i])
		m1 = max(m1, src[i+1])
		m2 = max(m2, src[i+2])
		m3 = max(m3, src[i+3])
	}
	for ; i < len(src); i++ {
		m0 = max(m0, src[i])
	}
	return max(max(m0, m1), max(m2, m3))
}

// The generic binary loops reslice so the compiler drops the bounds checks;
// the assembly wrappers also use them for the tails.

func addGeneric(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}

func subGeneric(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] - b[i]
	}
}

func mulGeneric(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] * b[i]
	}
}

func divGeneric(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] / b[i]
	}
}

func addVSGeneric(dst, a []float32, c float32) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] + c
	}
}

func subVSGeneric(dst, a []float32, c float32) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] - c
	}
}

func mulVSGeneric(dst, a []float32, c float32) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] * c
	}
}

func divVSGeneric(dst, a []float32, c float32) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] / c
	}
}

func subSVGeneric(dst, a []float32, c float32) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = c - a[i]
	}
}

func divSVGeneric(dst, a []float32, c float32) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = c / a[i]
	}
}
