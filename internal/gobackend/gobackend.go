package gobackend

import (
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/notimplemented"
	"github.com/pkg/errors"

	"sync"

	"github.com/org/agentevolver/internal/parallel"
)

// BackendName to be used in GOMLX_BACKEND to specify this backend, e.g.
// "gofast:ops_sequential". It differs from upstream's "go" so both can be
// linked into one binary.
const BackendName = "gofast"

// Registers New() under BackendName.
func init() {
	backends.Register(BackendName, New)
}

// GetBackend returns a singleton backend for gofast, created with the default configuration.
// The backend is only created at the first call of the function.
//
// The singleton is never destroyed.
var GetBackend = sync.OnceValue(func() backends.Backend {
	backend, err := New("")
	if err != nil {
		panic(err)
	}
	return backend
})

// New constructs a new gofast Backend. config is a comma-separated list of
// the options upstream simplego accepts: parallelism=N, dotgeneral_small,
// dotgeneral_large, dotgeneral_check, ops_sequential and ops_parallel; and
// devices=N, the number of virtual devices (default 1) that SPMD programs
// (distributed.SPMD, with AllReduce) run on: N replicas of the program run
// concurrently in this process's memory, so the multi-device code of a
// model can be run and tested on one CPU. spin=D (a Go duration, default
// 500us) is how long the goroutines that split ops and matrix products stay
// awake after each one, waiting for the next; spin=0 lets them exit at
// once, so each split op pays a core's wake-up (in bench rollout that was
// slower and used no less CPU: waking cores costs CPU too). nofusion
// executes every op as built (fuse.go); opprofile times every executed op,
// for Backend.OpProfile.
func New(config string) (backends.Backend, error) {
	b := newDefaultBackend()
	parts := strings.Split(config, ",")
	for _, part := range parts {
		key := part
		var value string
		if eqPos := strings.Index(part, "="); eqPos != -1 {
			key, value = part[0:eqPos], part[eqPos+1:]
		}
		switch key {
		case "parallelism":
			vInt, err := strconv.Atoi(value)
			if err != nil {
				return nil, errors.Wrapf(err, "invalid value for %q in gofast backend config: needs an int, got %q", key, value)
			}
			b.workers.SetMaxParallelism(vInt)
		case "dotgeneral_small":
			// This will force DotGeneral operation to use the version designed for smaller matrices.
			b.dotGeneralForceProblemSize = smallProblemSize
		case "dotgeneral_large":
			// This will force DotGeneral operation to use the version designed for large matrices.
			b.dotGeneralForceProblemSize = largeProblemSize
		case "dotgeneral_check":
			// This will force every DotGeneral operation to be executed with both versions and the outputs compared.
			// This is used exclusively for debugging purposes.
			b.dotGeneralForceProblemSize = checkProblemSize
		case "devices":
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 || n > maxVirtualDevices {
				return nil, errors.Errorf("invalid value for %q in gofast backend config: needs an int in [1, %d], got %q", key, maxVirtualDevices, value)
			}
			b.numDevices = n
		case "ops_sequential":
			// This will force the ops to be executed sequentially.
			// The default is running parallel if it's the only thing executing, otherwise sequentially.
			b.opsExecutionType = opsExecutionSequential
		case "ops_parallel":
			// This will force the ops to be executed in parallel where possible.
			// The default is running parallel if it's the only thing executing, otherwise sequentially.
			b.opsExecutionType = opsExecutionParallel
		case "spin":
			// How long the helpers of split ops stay awake after an op
			// (parallel.Team.Spin); 0 makes them exit at once.
			d, err := time.ParseDuration(value)
			if err != nil || d < 0 {
				return nil, errors.Errorf("invalid value for %q in gofast backend config: needs a duration such as 500us or 0, got %q", key, value)
			}
			b.team.Spin = d
			if d == 0 {
				b.team.Spin = parallel.NoSpin
			}
		case "nofusion":
			// Executes every op as built: no fusion (see fuse.go).
			b.noFusion = true
		case "opprofile":
			// Times every executed op (see opprofile.go and Backend.OpProfile).
			b.opProfile = &opProfile{}
		case "":
			// No-op, just skip.
		default:
			return nil, errors.Errorf("unknown configuration option %q for gofast backend -- valid configuration options are: "+
				"parallelism=#workers, devices=#virtual_devices, spin=duration, dotgeneral_small, dotgeneral_large, dotgeneral_check, ops_sequential, ops_parallel, nofusion, opprofile; see code for documentation", key)
		}
	}
	b.team.Size = gemmWorkers(b)
	return b, nil
}

func newDefaultBackend() *Backend {
	b := &Backend{numDevices: 1}
	b.workers.Initialize()
	return b
}

// Backend implements the backends.Backend interface.
type Backend struct {
	// bufferPools are a map to pools of buffers that can be reused.
	// The underlying type is map[bufferPoolKey]*bufferPool.
	bufferPools sync.Map
	workers     workersPool

	numLiveExecutions atomic.Int32

	// dotGeneralForceProblemSize allows a DotGeneral algorithm to always be used.
	dotGeneralForceProblemSize dotGeneralProblemSizeType

	// opsExecutionType defines how to execute the ops of a computation.
	opsExecutionType opsExecutionType

	// isFinalized is true if the backend has been isFinalized.
	isFinalized bool

	// numDevices is the number of virtual devices (the devices=N option).
	numDevices int

	// team runs the split ops (matrix products, elementwise ops, softmax
	// rows) on helpers that stay awake between ops; New sizes it.
	team parallel.Team

	// noFusion turns off Compile's fusions (the nofusion option).
	noFusion bool
	// fused counts what Compile has fused (fuse.go), for tests.
	fused fusionCounts
	// opProfile times the executed ops (the opprofile option); nil without it.
	opProfile *opProfile
}

// maxVirtualDevices bounds the devices=N option.
const maxVirtualDevices = 1024

// Compile-time check that Backend implements backends.Backend.
var _ backends.Backend = &Backend{}

// Team returns the team that runs the backend's split ops. Code that works
// beside the backend between its ops (the model's KV-cache layout) can
// split its own copies on it instead of on further goroutines that would
// compete with the team's spinning helpers for the same cores.
func (b *Backend) Team() *parallel.Team { return &b.team }

// Name returns the short name of the backend. E.g.: "xla" for the Xla/PJRT plugin.
func (b *Backend) Name() string {
	return "gofast (SimpleGo fork)"
}

// String implement backends.Backend.
func (b *Backend) String() string { return BackendName }

// Description is a longer description of the Backend that can be used to pretty-print.
func (b *Backend) Description() string {
	return "Pure-Go backend forked from GoMLX simplego v0.26.0, with SIMD float32 matmul"
}

// NumDevices return the number of devices available for this Backend.
func (b *Backend) NumDevices() int {
	return b.numDevices
}

// DeviceDescription returns a description of the device with the given deviceNum.
func (b *Backend) DeviceDescription(deviceNum backends.DeviceNum) string {
	return "device#" + strconv.Itoa(int(deviceNum))
}

// checkDevice returns an error unless deviceNum is one of the backend's devices.
func (b *Backend) checkDevice(deviceNum backends.DeviceNum) error {
	if deviceNum < 0 || int(deviceNum) >= b.numDevices {
		return errors.Errorf("backend (%s) has %d device(s), there is no deviceNum %d", BackendName, b.numDevices, deviceNum)
	}
	return nil
}

// Capabilities returns information about what is supported by this backend.
func (b *Backend) Capabilities() backends.Capabilities {
	return Capabilities
}

// Builder creates a new builder used to construct a named computation.
func (b *Backend) Builder(name string) backends.Builder {
	builder := &Builder{
		backend: b,
		name:    name,
	}
	// Set the "not implemented" custom message:
	builder.Builder.ErrFn = notImplementedError
	return builder
}

func notImplementedError(opType backends.OpType) error {
	return errors.Wrapf(notimplemented.NotImplementedError, "sorry, op %q not implemented in gofast (SimpleGo fork)",
		opType)
}

// Finalize releases all the associated resources immediately, and makes the backend invalid.
func (b *Backend) Finalize() {
	b.isFinalized = true
	b.bufferPools.Clear()
}

// IsFinalized returns true if the backend has been isFinalized.
func (b *Backend) IsFinalized() bool {
	return b.isFinalized
}
