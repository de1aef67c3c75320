package graphrun

import (
	"fmt"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// Once compiles build on backend, runs it once on inputs and returns its
// outputs. Failures while building or running, panics included, come back
// wrapping sentinel, so each caller keeps its own error vocabulary. backend
// must not be nil.
func Once(backend backends.Backend, sentinel error, build func(in []*graph.Node) []*graph.Node, inputs ...*tensors.Tensor) (outs []*tensors.Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			outs, err = nil, fmt.Errorf("%w: %v", sentinel, r)
		}
	}()
	exec, err := graph.NewExec(backend, build)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", sentinel, err)
	}
	defer exec.Finalize()
	args := make([]any, len(inputs))
	for i, t := range inputs {
		args[i] = t
	}
	outs, err = exec.Exec(args...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", sentinel, err)
	}
	return outs, nil
}
