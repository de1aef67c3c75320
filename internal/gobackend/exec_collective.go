package gobackend

import (
	"sync"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	"github.com/pkg/errors"
)

// collectives is the meeting point of the replicas of one execution of an
// SPMD program: each AllReduce node of each replica group is one round.
type collectives struct {
	mu     sync.Mutex
	cond   sync.Cond
	err    error // set when a replica failed: the others stop waiting
	rounds map[collectiveKey]*reduceRound
}

type collectiveKey struct{ node, group int }

// reduceRound gathers the members' values of one AllReduce node in one group.
type reduceRound struct {
	values  []*Buffer // by position in the group
	arrived int
	result  *Buffer // set by the last member to arrive
	left    int     // members yet to copy the result
}

func newCollectives() *collectives {
	c := &collectives{rounds: make(map[collectiveKey]*reduceRound)}
	c.cond.L = &c.mu
	return c
}

// abort wakes every waiting replica with err.
func (c *collectives) abort(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.cond.Broadcast()
	c.mu.Unlock()
}

// errReplicaFailed is what replicas waiting in a collective get when another failed.
var errReplicaFailed = errors.New("another replica of the SPMD program failed")

// allReduce contributes input, replica's value of node, and returns the
// reduction over its group, a new buffer on device.
func (e *Executable) allReduce(node *Node, input *Buffer, replica int, device backends.DeviceNum, c *collectives) (*Buffer, error) {
	data := node.data.(*allReduceData)
	if c == nil { // a single-replica program: the reduction of one value
		out := e.backend.cloneBuffer(input)
		out.device = device
		return out, nil
	}
	group := data.groupOf[replica]
	members := data.groups[group]
	pos := -1
	for i, r := range members {
		if r == replica {
			pos = i
		}
	}
	key := collectiveKey{node: node.builderIdx, group: group}

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return nil, errors.Wrap(errReplicaFailed, c.err.Error())
	}
	round := c.rounds[key]
	if round == nil {
		round = &reduceRound{values: make([]*Buffer, len(members)), left: len(members)}
		c.rounds[key] = round
	}
	round.values[pos] = input
	round.arrived++
	if round.arrived == len(members) {
		round.result = e.backend.cloneBuffer(round.values[0])
		for _, v := range round.values[1:] {
			if err := combineInto(round.result, v, data.reduction); err != nil {
				c.err = err
				c.cond.Broadcast()
				return nil, err
			}
		}
		round.values = nil // the members may release their inputs once they return
		c.cond.Broadcast()
	} else {
		e.backend.workers.WorkerIsAsleep()
		for round.result == nil && c.err == nil {
			c.cond.Wait()
		}
		e.backend.workers.WorkerRestarted()
		if round.result == nil {
			return nil, errors.Wrap(errReplicaFailed, c.err.Error())
		}
	}
	out := e.backend.cloneBuffer(round.result)
	out.device = device
	round.left--
	if round.left == 0 {
		e.backend.putBuffer(round.result)
		delete(c.rounds, key)
	}
	return out, nil
}

// reduceDTypeSupported reports whether AllReduce handles dtype.
func reduceDTypeSupported(dtype dtypes.DType) bool {
	switch dtype {
	case dtypes.Int8, dtypes.Int16, dtypes.Int32, dtypes.Int64, dtypes.Uint8, dtypes.Uint16, dtypes.Uint32, dtypes.Uint64,
		dtypes.Float32, dtypes.Float64, dtypes.BFloat16:
		return true
	}
	return false
}

// combineInto sets dst to the reduction of dst and src, element by element.
func combineInto(dst, src *Buffer, op backends.ReduceOpType) error {
	switch d := dst.flat.(type) {
	case []float32:
		combine(d, src.flat.([]float32), op)
	case []float64:
		combine(d, src.flat.([]float64), op)
	case []int8:
		combine(d, src.flat.([]int8), op)
	case []int16:
		combine(d, src.flat.([]int16), op)
	case []int32:
		combine(d, src.flat.([]int32), op)
	case []int64:
		combine(d, src.flat.([]int64), op)
	case []uint8:
		combine(d, src.flat.([]uint8), op)
	case []uint16:
		combine(d, src.flat.([]uint16), op)
	case []uint32:
		combine(d, src.flat.([]uint32), op)
	case []uint64:
		combine(d, src.flat.([]uint64), op)
	case []bfloat16.BFloat16:
		s := src.flat.([]bfloat16.BFloat16)
		wide, wideSrc := make([]float32, len(d)), make([]float32, len(d))
		for i := range d {
			wide[i], wideSrc[i] = d[i].Float32(), s[i].Float32()
		}
		combine(wide, wideSrc, op)
		for i := range d {
			d[i] = bfloat16.FromFloat32(wide[i])
		}
	default:
		return errors.Errorf("AllReduce: dtype %s is not supported", dst.shape.DType)
	}
	return nil
}

type reducible interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

func combine[T reducible](dst, src []T, op backends.ReduceOpType) {
	switch op {
	case backends.ReduceOpSum:
		for i, v := range src {
			dst[i] += v
		}
	case backends.ReduceOpProduct:
		for i, v := range src {
			dst[i] *= v
		}
	case backends.ReduceOpMax:
		for i, v := range src {
			if v > dst[i] || v != v { // NaN wins, as in XLA
				dst[i] = v
			}
		}
	case backends.ReduceOpMin:
		for i, v := range src {
			if v < dst[i] || v != v {
				dst[i] = v
			}
		}
	}
}

// executeSPMD runs one replica per device-major set of inputs, concurrently,
// and returns their outputs device-major.
func (e *Executable) executeSPMD(inputs []backends.Buffer, donate []bool) ([]backends.Buffer, error) {
	n := e.builder.numDevices
	numInputs := len(e.builder.inputs)
	if len(inputs) != n*numInputs {
		return nil, errors.Errorf("Execute: SPMD program of %d replicas x %d inputs, got %d inputs", n, numInputs, len(inputs))
	}
	if len(donate) == 0 {
		donate = make([]bool, len(inputs))
	}
	c := newCollectives()
	outs := make([][]backends.Buffer, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			device := backends.DeviceNum(r)
			if len(e.builder.deviceAssignment) == n {
				device = e.builder.deviceAssignment[r]
			}
			outs[r], errs[r] = e.executeReplica(inputs[r*numInputs:(r+1)*numInputs], donate[r*numInputs:(r+1)*numInputs], r, device, c)
			if errs[r] != nil {
				c.abort(errs[r])
			}
		}()
	}
	wg.Wait()
	var firstErr error
	for r, err := range errs {
		if err != nil && (firstErr == nil || errors.Is(firstErr, errReplicaFailed)) {
			firstErr = errors.WithMessagef(err, "replica %d", r)
		}
	}
	if firstErr != nil {
		for _, o := range outs {
			for _, b := range o {
				if buf, ok := b.(*Buffer); ok {
					e.backend.putBuffer(buf)
				}
			}
		}
		return nil, firstErr
	}
	all := make([]backends.Buffer, 0, n*len(e.builder.outputs))
	for _, o := range outs {
		all = append(all, o...)
	}
	return all, nil
}
