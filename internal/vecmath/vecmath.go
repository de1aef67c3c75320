package vecmath

// kernels is one implementation (ISA) of every function of the package. The
// assembly kernels handle whole vectors only; the exported functions finish
// the tails.
type kernels struct {
	name  string
	width int // float32 lanes per vector; 1 for the generic kernels

	exp, sigmoid       func(dst, src []float32)
	add, sub, mul, div func(dst, a, b []float32)
	// Scalar forms: xxVS computes a[i] op c, xxSV computes c op a[i].
	addVS, subVS, mulVS, divVS func(dst, a []float32, c float32)
	subSV, divSV               func(dst, a []float32, c float32)
	// neg is Neg; sqrt is Sqrt; max is Max; sum is Sum.
	neg, sqrt func(dst, src []float32)
	max       func(init float32, src []float32) float32
	sum       func(src []float32) float32
}

// best is the fastest implementation this CPU supports; set at start-up by
// the per-architecture file.
var best = selectKernels()

// ISA reports which implementation the package uses on this machine:
// "AVX512", "AVX2" or "generic".
func ISA() string { return best.name }

// Like the built-in copy, every function works on the first n elements, n
// the length of the shortest argument slice, and returns n: mismatched
// lengths are not an error (and never make the kernels read or write out of
// range). dst may be one of the inputs (exactly, not a partial overlap).

// Exp sets dst[i] = e^src[i] and returns the number of elements set.
func Exp(dst, src []float32) int {
	n := min(len(dst), len(src))
	best.exp(dst[:n], src[:n])
	return n
}

// Sigmoid sets dst[i] = 1/(1+e^-src[i]) and returns the number of elements
// set. Results below the smallest normal float32 (src[i] < ~-87.3) may be
// flushed to 0 instead of a subnormal.
func Sigmoid(dst, src []float32) int {
	n := min(len(dst), len(src))
	best.sigmoid(dst[:n], src[:n])
	return n
}

// Add sets dst[i] = a[i] + b[i] and returns the number of elements set.
func Add(dst, a, b []float32) int { return binary(best.add, dst, a, b) }

// Sub sets dst[i] = a[i] - b[i] and returns the number of elements set.
func Sub(dst, a, b []float32) int { return binary(best.sub, dst, a, b) }

// Mul sets dst[i] = a[i] * b[i] and returns the number of elements set.
func Mul(dst, a, b []float32) int { return binary(best.mul, dst, a, b) }

// Div sets dst[i] = a[i] / b[i] and returns the number of elements set.
func Div(dst, a, b []float32) int { return binary(best.div, dst, a, b) }

// AddScalar sets dst[i] = a[i] + c and returns the number of elements set.
func AddScalar(dst, a []float32, c float32) int { return binScalar(best.addVS, dst, a, c) }

// SubScalar sets dst[i] = a[i] - c and returns the number of elements set.
func SubScalar(dst, a []float32, c float32) int { return binScalar(best.subVS, dst, a, c) }

// ScalarSub sets dst[i] = c - a[i] and returns the number of elements set.
func ScalarSub(dst []float32, c float32, a []float32) int { return binScalar(best.subSV, dst, a, c) }

// MulScalar sets dst[i] = a[i] * c and returns the number of elements set.
func MulScalar(dst, a []float32, c float32) int { return binScalar(best.mulVS, dst, a, c) }

// DivScalar sets dst[i] = a[i] / c and returns the number of elements set.
// It divides (rather than multiplying by 1/c) so results match a[i]/c
// exactly.
func DivScalar(dst, a []float32, c float32) int { return binScalar(best.divVS, dst, a, c) }

// ScalarDiv sets dst[i] = c / a[i] and returns the number of elements set.
func ScalarDiv(dst []float32, c float32, a []float32) int { return binScalar(best.divSV, dst, a, c) }

// Neg sets dst[i] = -src[i] (the sign bit flipped, as Go's negation does,
// NaNs included) and returns the number of elements set.
func Neg(dst, src []float32) int {
	n := min(len(dst), len(src))
	best.neg(dst[:n], src[:n])
	return n
}

// Sqrt sets dst[i] = √src[i], correctly rounded (NaN for a negative
// src[i], -0 for -0), and returns the number of elements set: the same
// bits as float32(math.Sqrt(float64(src[i]))).
func Sqrt(dst, src []float32) int {
	n := min(len(dst), len(src))
	best.sqrt(dst[:n], src[:n])
	return n
}

// Max returns the largest of init and src's values by the rules of Go's
// built-in max: a NaN anywhere gives NaN and +0 counts as larger than -0,
// so the result does not depend on the order of the values (or the
// vector lanes they fall in).
func Max(init float32, src []float32) float32 { return best.max(init, src) }

// Sum returns the sum of src's values, added in an order fixed by
// len(src) alone (so the same on every machine and in every
// implementation): from zero, element i of each whole block of 32 goes to
// running sum i, then element i of each remaining whole group of 8 to
// running sum i; lane sums v[i] = (s[i]+s[i+8]) + (s[i+16]+s[i+24]) are
// combined as ((v0+v1)+(v2+v3)) + ((v4+v5)+(v6+v7)), and the last
// len(src)%8 values are added one by one. Thirty-two running sums keep
// the vector adds out of one another's way (and round no worse than a
// single chain).
func Sum(src []float32) float32 { return best.sum(src) }

func binary(kern func(dst, a, b []float32), dst, a, b []float32) int {
	n := min(len(dst), len(a), len(b))
	kern(dst[:n], a[:n], b[:n])
	return n
}

func binScalar(kern func(dst, a []float32, c float32), dst, a []float32, c float32) int {
	n := min(len(dst), len(a))
	kern(dst[:n], a[:n], c)
	return n
}
