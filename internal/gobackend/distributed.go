package gobackend

import (
	"slices"

	"github.com/gomlx/gomlx/backends"
	"github.com/pkg/errors"
)

// DistributedSPMD makes the computation an SPMD program of numDevices
// replicas: Execute takes numDevices sets of inputs (device-major) and
// runs one replica per set concurrently; AllReduce ops exchange values
// between them.
func (b *Builder) DistributedSPMD(numDevices int) error {
	if b.compiled {
		return errors.Errorf("DistributedSPMD cannot be called after the computation has been compiled")
	}
	if numDevices < 1 || numDevices > b.backend.numDevices {
		return errors.Errorf("DistributedSPMD(%d): the %s backend has %d device(s) (set more with the devices=N option)",
			numDevices, BackendName, b.backend.numDevices)
	}
	b.numDevices = numDevices
	return nil
}

// DistributedAutoSharding is not supported: automatic partitioning needs
// XLA's Shardy. SPMD programs with explicit collectives run instead.
func (b *Builder) DistributedAutoSharding(...backends.Mesh) error {
	return errors.Errorf("the %s backend has no automatic sharding (it needs XLA Shardy, the xla backend): use distributed.SPMD with explicit collectives", BackendName)
}

// DeviceAssignment sets the device of each replica.
func (b *Builder) DeviceAssignment(devices ...backends.DeviceNum) error {
	if b.compiled {
		return errors.Errorf("DeviceAssignment cannot be called after the computation has been compiled")
	}
	seen := make(map[backends.DeviceNum]bool, len(devices))
	for _, d := range devices {
		if err := b.backend.checkDevice(d); err != nil {
			return err
		}
		if seen[d] {
			return errors.Errorf("DeviceAssignment: device %d assigned twice", d)
		}
		seen[d] = true
	}
	if n := max(b.numDevices, 1); len(devices) != n {
		return errors.Errorf("DeviceAssignment: %d devices given for a program of %d replica(s)", len(devices), n)
	}
	b.deviceAssignment = slices.Clone(devices)
	return nil
}

// allReduceData is the data of an AllReduce node.
type allReduceData struct {
	reduction backends.ReduceOpType
	// groupOf[replica] is the group of a replica and groups[g] its members
	// in the order their values are combined, so every member of a group
	// receives bit-identical results.
	groups  [][]int
	groupOf []int
}

// AllReduce reduces each operand over the replicas of each replica group
// (all replicas when replicaGroups is empty); every replica receives the
// reduction of its group. The replicas' values are combined in group
// order, so the results are the same on every replica.
func (b *Builder) AllReduce(operands []backends.Op, reductionType backends.ReduceOpType, replicaGroups [][]int) ([]backends.Op, error) {
	inputs, err := b.checkOps("AllReduce", operands...)
	if err != nil {
		return nil, err
	}
	switch reductionType {
	case backends.ReduceOpSum, backends.ReduceOpProduct, backends.ReduceOpMax, backends.ReduceOpMin:
	default:
		return nil, errors.Errorf("AllReduce: unsupported reduction %s", reductionType)
	}
	replicas := max(b.numDevices, 1)
	data := &allReduceData{reduction: reductionType, groupOf: make([]int, replicas)}
	if len(replicaGroups) == 0 {
		replicaGroups = [][]int{make([]int, replicas)}
		for i := range replicas {
			replicaGroups[0][i] = i
		}
	}
	for i := range data.groupOf {
		data.groupOf[i] = -1
	}
	for g, group := range replicaGroups {
		if len(group) == 0 {
			return nil, errors.Errorf("AllReduce: replica group %d is empty", g)
		}
		for _, r := range group {
			if r < 0 || r >= replicas {
				return nil, errors.Errorf("AllReduce: replica %d of group %d is not one of the program's %d replicas", r, g, replicas)
			}
			if data.groupOf[r] != -1 {
				return nil, errors.Errorf("AllReduce: replica %d is in two groups", r)
			}
			data.groupOf[r] = g
		}
		data.groups = append(data.groups, slices.Clone(group))
	}
	for r, g := range data.groupOf {
		if g == -1 {
			return nil, errors.Errorf("AllReduce: replica %d is in no replica group", r)
		}
	}
	outputs := make([]backends.Op, len(inputs))
	for i, in := range inputs {
		if !reduceDTypeSupported(in.shape.DType) {
			return nil, errors.Errorf("AllReduce: dtype %s is not supported", in.shape.DType)
		}
		node := b.newNode(backends.OpTypeAllReduce, in.shape, in)
		node.data = data
		outputs[i] = node
	}
	return outputs, nil
}
