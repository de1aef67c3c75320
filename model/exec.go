package model

import (
	"fmt"
	"strconv"

	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// maxCompiledShapes bounds how many input shapes one compiledGraph keeps
// compiled (GoMLX's own default limit, where it starts failing instead).
const maxCompiledShapes = 32

// compiledGraph is a graph-building function with its compilations, one
// per input shape. When a new shape would exceed its limit, it
// drops every compilation and starts afresh: by then the workload's shapes
// have moved on, and failing (GoMLX's behaviour) would stop a long run.
type compiledGraph struct {
	m     *Model
	name  string
	build any // a graph function accepted by mlctx.NewExecAny
	limit int // most shapes kept compiled
	exec  *mlctx.Exec
	seen  map[string]bool
	// sampling graphs read the model's narrow sampler weights when it has
	// them (Options.SamplerWeights); generation is the sampler context's
	// that exec was built on.
	sampling   bool
	generation int
}

func (m *Model) newCompiledGraph(name string, build any) *compiledGraph {
	return &compiledGraph{m: m, name: name, build: build, limit: maxCompiledShapes}
}

// newSamplingGraph is newCompiledGraph for a graph that samples: it reads
// the sampler's weights (Options.SamplerWeights).
func (m *Model) newSamplingGraph(name string, build any) *compiledGraph {
	c := m.newCompiledGraph(name, build)
	c.sampling = true
	return c
}

// call runs the graph on args (tensors, or donated buffers described by
// shapes), compiling it for their shapes first if needed. Callers hold
// m.mu.
func (c *compiledGraph) call(argShapes []shapes.Shape, args ...any) ([]*tensors.Tensor, error) {
	key := shapesKey(argShapes)
	vars := c.m.vars
	if c.sampling && c.m.sampler != nil {
		ctx, generation, err := c.m.sampler.context(c.m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		if c.exec != nil && generation != c.generation {
			c.close()
		}
		vars, c.generation = ctx, generation
	}
	if c.exec != nil && !c.seen[key] && len(c.seen) >= c.limit {
		c.m.logger.Info("model: dropping compiled graphs", "graph", c.name, "count", len(c.seen))
		c.exec.Finalize()
		c.exec = nil
	}
	if c.exec == nil {
		exec, err := mlctx.NewExecAny(c.m.backend, vars, c.build)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrGraph, c.name, err)
		}
		c.exec, c.seen = exec.SetMaxCache(-1), make(map[string]bool)
	}
	if !c.seen[key] {
		c.m.logger.Debug("model: compiling graph", "graph", c.name, "shapes", key)
		c.seen[key] = true
	}
	for _, a := range args {
		// GoMLX asks a local tensor for its device first, and the error
		// that says it has none records a stack trace: 3% of the engine
		// goroutine's time in bench rollout. Moved first, it has one.
		if t, ok := a.(*tensors.Tensor); ok && t.IsLocal() {
			if err := t.MaterializeOnDevice(c.m.backend, false, 0); err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrGraph, c.name, err)
			}
		}
	}
	outs, err := c.exec.Exec(args...)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrGraph, c.name, err)
	}
	return outs, nil
}

// shapesKey names a list of input shapes: the key of their compilation.
func shapesKey(ss []shapes.Shape) string {
	// Appended, not formatted: it is built for every call of a graph.
	key := make([]byte, 0, 16*len(ss))
	for i, s := range ss {
		if i > 0 {
			key = append(key, ',')
		}
		key = append(key, s.DType.String()...)
		key = append(key, '[')
		for j, d := range s.Dimensions {
			if j > 0 {
				key = append(key, ' ')
			}
			key = strconv.AppendInt(key, int64(d), 10)
		}
		key = append(key, ']')
	}
	return string(key)
}

// tensorShapes returns the shapes of ts.
func tensorShapes(ts ...*tensors.Tensor) []shapes.Shape {
	out := make([]shapes.Shape, len(ts))
	for i, t := range ts {
		out[i] = t.Shape()
	}
	return out
}

// close releases every compilation.
func (c *compiledGraph) close() {
	if c.exec != nil {
		c.exec.Finalize()
		c.exec = nil
	}
}
