package gemm_test

import (
	"fmt"

	"github.com/org/agentevolver/internal/gemm"
)

// Multiply a 2x3 matrix by a 3x2 matrix, both row-major.
func ExampleMultiply() {
	a := []float32{1, 2, 3, 4, 5, 6}
	b := []float32{7, 8, 9, 10, 11, 12}
	c := make([]float32, 4)
	err := gemm.Multiply(&gemm.Params{
		Batch: 1, M: 2, N: 2, K: 3,
		A: a, ARowStride: 3, AColStride: 1,
		B: b, BRowStride: 2, BColStride: 1,
		C: c,
	})
	fmt.Println(c, err)
	// Output: [58 64 139 154] <nil>
}

// A transposed operand is just other strides: here B is stored as its
// transpose (2x3, row-major), as attention keys are.
func ExampleMultiply_transposed() {
	a := []float32{1, 2, 3, 4, 5, 6}
	bT := []float32{7, 9, 11, 8, 10, 12}
	c := make([]float32, 4)
	err := gemm.Multiply(&gemm.Params{
		Batch: 1, M: 2, N: 2, K: 3,
		A: a, ARowStride: 3, AColStride: 1,
		B: bT, BRowStride: 1, BColStride: 3,
		C: c,
	})
	fmt.Println(c, err)
	// Output: [58 64 139 154] <nil>
}
