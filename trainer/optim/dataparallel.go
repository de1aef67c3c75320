package optim

import (
	"fmt"
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/distributed"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// dataParallel runs optimiser steps as SPMD programs over the devices of a
// one-axis mesh ("data"), with GoMLX's distributed package: every device
// holds the whole model and computes the gradients of its share of the
// rows of each micro-batch; the gradients are summed over the devices
// (AllReduce) before clipping, so every device takes the same step. The
// trainable weights and their AdamW moments are sharded (ZeRO stage 3's
// storage): a trainable weight whose first axis divides by the number of
// devices is stored split along it, each device holding its rows of the
// weight and of both moments; a step reassembles the weight on every
// device (an AllReduce of each device's rows in place, zeros elsewhere)
// for the forward and backward passes, and each device updates only its
// rows. Frozen weights (a LoRA base) are replicated. Explicit collectives rather than
// XLA's automatic sharding, so the same program runs on XLA (GPUs) and on
// the pure-Go backend's virtual devices (gofast:devices=N), where it is
// tested.
type dataParallel struct {
	devices int
	mesh    *distributed.DeviceMesh
	// rowSpecs[r] splits the first axis of rank r tensors over "data".
	// (Each axis needs its spec: ShardingSpec.ShardShape ignores shorter ones.)
	rowSpecs map[int]*distributed.ShardingSpec
}

// dataAxis is the name of the mesh axis the rows are split over.
const dataAxis = "data"

func newDataParallel(backend backends.Backend, devices int) (*dataParallel, error) {
	if devices <= 1 {
		return nil, nil
	}
	if n := backend.NumDevices(); n < devices {
		return nil, fmt.Errorf("%w: %d devices requested, backend %s has %d (gofast takes devices=N in its configuration, e.g. gofast:devices=%d)",
			ErrConfig, devices, backend.Name(), n, devices)
	}
	mesh, err := distributed.NewDeviceMesh([]int{devices}, []string{dataAxis})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return &dataParallel{devices: devices, mesh: mesh, rowSpecs: map[int]*distributed.ShardingSpec{}}, nil
}

// rowSpec is the sharding of a rank r tensor split along its first axis.
func (dp *dataParallel) rowSpec(r int) *distributed.ShardingSpec {
	if spec, ok := dp.rowSpecs[r]; ok {
		return spec
	}
	axes := make([]distributed.AxisSpec, r)
	axes[0] = distributed.AxisSpec{dataAxis}
	spec, err := distributed.NewShardingSpec(dp.mesh, axes...)
	if err != nil {
		panic(fmt.Errorf("%w: %w", ErrGraph, err))
	}
	dp.rowSpecs[r] = spec
	return spec
}

// splitArgs lays out the arguments of one SPMD execution, device-major:
// each device gets its share of the rows of every input with a leading
// axis (which must divide by the number of devices), the scalars whole,
// then the extra arguments, then its own index (the rank input).
func (dp *dataParallel) splitArgs(in []*tensors.Tensor, extra ...*tensors.Tensor) ([]any, error) {
	shards := make([][]*tensors.Tensor, len(in))
	for i, t := range in {
		if t.Rank() == 0 {
			continue
		}
		var err error
		if shards[i], err = splitRows(t, dp.devices); err != nil {
			return nil, fmt.Errorf("%w: input %d: %w", ErrShape, i, err)
		}
	}
	args := make([]any, 0, dp.devices*(len(in)+len(extra)+1))
	for d := range dp.devices {
		// A tensor lives on one device: every device gets scalars of its own.
		for i, t := range in {
			if shards[i] == nil {
				args = append(args, t.Value())
			} else {
				args = append(args, shards[i][d])
			}
		}
		for _, t := range extra {
			args = append(args, t.Value())
		}
		args = append(args, tensors.FromScalar(int32(d)))
	}
	return args, nil
}

// splitRows splits t along its first axis into n equal parts.
func splitRows(t *tensors.Tensor, n int) ([]*tensors.Tensor, error) {
	dims := t.Shape().Dimensions
	if dims[0]%n != 0 {
		return nil, fmt.Errorf("%d rows do not split over %d devices", dims[0], n)
	}
	partDims := append([]int{dims[0] / n}, dims[1:]...)
	parts := make([]*tensors.Tensor, n)
	var err error
	accessErr := t.ConstBytes(func(data []byte) {
		size := len(data) / n
		for d := range parts {
			parts[d] = tensors.FromShape(shapes.Make(t.DType(), partDims...))
			if e := parts[d].MutableBytes(func(out []byte) { copy(out, data[d*size:(d+1)*size]) }); e != nil {
				err = e
			}
		}
	})
	if err == nil {
		err = accessErr
	}
	return parts, err
}

// allReduceSum sums each node over the devices.
func (dp *dataParallel) allReduceSum(nodes []*graph.Node) []*graph.Node {
	if len(nodes) == 0 {
		return nodes
	}
	return nodes[0].Graph().Distributed().AllReduce(nodes, backends.ReduceOpSum)
}

// shardable reports whether a trainable weight v and its optimiser state
// are split over the devices: its first axis divides by their number.
func (dp *dataParallel) shardable(v *mlctx.Variable) bool {
	dims := v.Shape().Dimensions
	return len(dims) > 0 && dims[0] >= dp.devices && dims[0]%dp.devices == 0
}

// shardRows gives s, a shardable weight or one of its optimiser state
// variables, the row sharding before a graph reads it.
//
// A state variable gets its zero value here, on the host, rather than
// from the context's initializer: in an SPMD program the initializer would
// make each device a whole zero weight, which would then be taken for
// that device's shard.
func (dp *dataParallel) shardRows(s *mlctx.Variable) {
	if !s.HasValue() {
		if err := s.SetValue(tensors.FromShape(s.Shape())); err != nil {
			panic(fmt.Errorf("%w: initialising %s: %w", ErrGraph, s.ScopeAndName(), err))
		}
	}
	spec := dp.rowSpec(s.Shape().Rank())
	if s.ShardingSpec() == spec {
		return
	}
	if err := s.SetShardingSpec(spec); err != nil {
		panic(fmt.Errorf("%w: sharding %s: %w", ErrGraph, s.ScopeAndName(), err))
	}
}

// gatherWeights gives each trainable weight dp.shardable accepts the
// row sharding, and sets its value in g to the weight reassembled from the
// devices' rows; it returns each such weight's own-rows node, the value a
// graph that does not update the weight must set back.
func (dp *dataParallel) gatherWeights(ctx *mlctx.Context, g *graph.Graph, rank *graph.Node) map[*mlctx.Variable]*graph.Node {
	shards := make(map[*mlctx.Variable]*graph.Node)
	for v := range ctx.IterVariables() {
		if !v.Trainable || !dp.shardable(v) {
			continue
		}
		dp.shardRows(v)
		shard := v.ValueGraph(g)
		shards[v] = shard
		v.SetValueGraph(dp.allRows(shard, rank))
	}
	return shards
}

// ownRows returns this device's rows of x (its first axis split over the
// devices), selected by the rank input.
func (dp *dataParallel) ownRows(x, rank *graph.Node) *graph.Node {
	dims := x.Shape().Dimensions
	grouped := graph.Reshape(x, append([]int{dp.devices, dims[0] / dp.devices}, dims[1:]...)...)
	return graph.Gather(grouped, graph.Reshape(rank, 1))
}

// allRows reassembles a weight from each device's rows of it.
func (dp *dataParallel) allRows(own, rank *graph.Node) *graph.Node {
	dims := own.Shape().Dimensions
	grouped := append([]int{dp.devices}, dims...)
	mine := graph.Equal(graph.Iota(own.Graph(), shapes.Make(dtypes.Int32, grouped...), 0), rank)
	// One weight's worth of values: this device's rows in place, zeros elsewhere.
	copies := graph.BroadcastToDims(graph.ExpandAxes(own, 0), grouped...)
	spread := graph.Where(mine, copies, graph.ZerosLike(copies))
	full := dp.allReduceSum([]*graph.Node{spread})[0]
	return graph.Reshape(full, append([]int{dims[0] * dp.devices}, dims[1:]...)...)
}

// padRows returns t with pad more rows: zeros when zero is set, else
// copies of its first row.
func padRows(t *tensors.Tensor, pad int, zero bool) (*tensors.Tensor, error) {
	dims := slices.Clone(t.Shape().Dimensions)
	rows := dims[0]
	dims[0] += pad
	out := tensors.FromShape(shapes.Make(t.DType(), dims...))
	var err error
	accessErr := t.ConstBytes(func(data []byte) {
		rowSize := len(data) / rows
		err = out.MutableBytes(func(o []byte) {
			copy(o, data)
			if zero {
				return // FromShape is zeroed
			}
			for r := range pad {
				copy(o[(rows+r)*rowSize:(rows+r+1)*rowSize], data[:rowSize])
			}
		})
	})
	if err == nil {
		err = accessErr
	}
	return out, err
}
