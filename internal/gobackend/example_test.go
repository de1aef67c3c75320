package gobackend_test

import (
	"fmt"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/distributed"
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

// Run an SPMD program on two virtual devices: each sums its input with
// the other's.
func Example_devices() {
	backend, err := backends.NewWithConfig("gofast:devices=2")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer backend.Finalize()
	mesh, err := distributed.NewDeviceMesh([]int{2}, []string{"data"})
	if err != nil {
		fmt.Println(err)
		return
	}
	exec, err := graph.NewExec(backend, func(x *graph.Node) *graph.Node {
		return x.Graph().Distributed().AllReduceOne(x, backends.ReduceOpSum)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	outs, err := exec.SPMD(mesh).Exec([]float32{1, 2}, []float32{10, 20}) // device 0's input, then device 1's
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(outs[0].Value(), outs[1].Value())
	// Output: [11 22] [11 22]
}
