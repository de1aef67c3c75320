package vecmath_test

import (
	"fmt"
	"math"

	"github.com/org/agentevolver/internal/vecmath"
)

func ExampleExp() {
	x := []float32{0, 1, -1, 10}
	y := make([]float32, len(x))
	vecmath.Exp(y, x)
	fmt.Printf("%.5g\n", y)
	// Output: [1 2.7183 0.36788 22026]
}

func ExampleSigmoid() {
	x := []float32{0, 2, -2, 100, -50}
	vecmath.Sigmoid(x, x) // in place
	fmt.Printf("%.4g\n", x)
	// Output: [0.5 0.8808 0.1192 1 1.929e-22]
}

func ExampleMulScalar() {
	a := []float32{1, 2, 3}
	vecmath.MulScalar(a, a, 0.5)
	fmt.Println(a)
	// Output: [0.5 1 1.5]
}

func ExampleScanMax() {
	fmt.Println(vecmath.ScanMax(math.Inf(-1), []float64{3, -1, 7.5, 2, 0}))
	fmt.Println(vecmath.ScanMax(0, []float32{-2, -1}))
	// Output:
	// 7.5
	// 0
}
