package graphrun_test

import (
	"errors"
	"fmt"

	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/org/agentevolver/internal/graphrun"
)

var errGraph = errors.New("my package: graph failed")

func ExampleOnce() {
	backend, err := simplego.New("")
	if err != nil {
		fmt.Println(err)
		return
	}
	double := func(in []*graph.Node) []*graph.Node { return []*graph.Node{graph.MulScalar(in[0], 2)} }
	outs, err := graphrun.Once(backend, errGraph, double, tensors.FromValue([]float32{1, 2, 3}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(outs[0].Value())

	// Shapes that do not fit panic inside GoMLX; the panic comes back as
	// an error wrapping the caller's sentinel.
	add := func(in []*graph.Node) []*graph.Node { return []*graph.Node{graph.Add(in[0], in[1])} }
	_, err = graphrun.Once(backend, errGraph, add, tensors.FromValue([]float32{1, 2}), tensors.FromValue([]float32{1, 2, 3}))
	fmt.Println(errors.Is(err, errGraph))
	// Output:
	// [2 4 6]
	// true
}
