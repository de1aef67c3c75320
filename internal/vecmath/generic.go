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
