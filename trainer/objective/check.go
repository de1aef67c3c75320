package objective

import (
	"fmt"
	"strconv"

	"github.com/gomlx/gomlx/pkg/core/graph"
)

// checkSameShape reports an ErrShape error unless all nodes are float
// matrices of one shape.
func checkSameShape(nodes ...*graph.Node) error {
	var first *graph.Node
	for _, n := range nodes {
		if n == nil {
			return fmt.Errorf("%w: missing input", ErrShape)
		}
		if n.Rank() != 2 || !n.DType().IsFloat() {
			return fmt.Errorf("%w: want a float [batch, length] matrix, got %s", ErrShape, n.Shape())
		}
		if first == nil {
			first = n
			continue
		}
		if !n.Shape().Equal(first.Shape()) {
			return fmt.Errorf("%w: %s and %s differ", ErrShape, first.Shape(), n.Shape())
		}
	}
	if first == nil {
		return fmt.Errorf("%w: no inputs", ErrShape)
	}
	return nil
}

// quoted returns untrusted text Go-quoted and cut to a bounded length, for
// error messages.
func quoted(s string) string {
	const max = 80
	q := strconv.Quote(s)
	if len(q) <= max {
		return q
	}
	return q[:max] + "..."
}
