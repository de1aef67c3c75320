package gobackend_test

import (
	"fmt"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"

	_ "github.com/org/agentevolver/internal/gobackend"
)

// Select the backend by name, with simplego's options, and run a matmul
// (float32, so on the SIMD GEMM).
func Example() {
	backend, err := backends.NewWithConfig("gofast:ops_sequential")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer backend.Finalize()
	y := graph.MustExecOnce(backend, func(a, b *graph.Node) *graph.Node {
		return graph.Dot(a, b)
	}, [][]float32{{1, 2, 3}, {4, 5, 6}}, [][]float32{{7, 8}, {9, 10}, {11, 12}})
	fmt.Println(y.Value())
	// Output: [[58 64] [139 154]]
}
