package model

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// Options are the runtime settings of a Model. The zero value is useful:
// the backend chosen by NewBackend("") and no logging.
type Options struct {
	// Backend runs the graphs; nil means NewBackend("").
	Backend backends.Backend
	// Logger receives compile and load events; nil discards them.
	Logger *slog.Logger
	// ComputeDType is the dtype of the decoder blocks' computation:
	// dtypes.Float32 (the zero value means it) or dtypes.BFloat16 for mixed
	// precision. With bfloat16 the weights stay float32 variables (the
	// master weights an optimiser updates) and are converted to bfloat16
	// where a block uses them, so gradients flow back through the
	// conversions into float32; the projections, attention products, rotary
	// embedding and MLP run in bfloat16, while the residual stream, every
	// RMSNorm, the attention softmax, the output head and the log-softmax
	// stay float32, and so do the KV cache and every result (logits,
	// log-probs). New and Load check that the backend runs bfloat16 first
	// (CheckComputeDType) and fail with ErrUnsupportedDType otherwise. See
	// ParseComputeDType for the configuration spellings.
	ComputeDType dtypes.DType
	// SamplerWeights is the format of the matrix weights that sampling
	// (Generate, Policy) reads: float32 (the zero value) or a narrow copy,
	// bfloat16 or int8, made from the float32 weights and made again
	// after they change; see SamplerWeights. Narrow weights need the
	// float32 compute dtype (ErrBadConfig otherwise).
	SamplerWeights SamplerWeights
}

// Model is a Qwen2-family decoder: its configuration, its weights as
// variables of a GoMLX context, and compiled executables for log-probs and
// sampling. Its host-level methods are safe for concurrent use; they are
// serialised, as the pure-Go backend already uses every core for one call.
type Model struct {
	cfg     Config // defaults filled in
	backend backends.Backend
	logger  *slog.Logger
	vars    *mlctx.Context
	dtype   dtypes.DType // compute dtype: Float32 or BFloat16
	sampler *samplerVars // narrow weights for sampling; nil samples with vars

	mu   sync.Mutex // serialises executions and guards the lazily built executables below
	exec executables
}

// New returns a model with freshly initialised weights, as Hugging Face
// initialises Qwen2: linear and embedding weights from N(0,
// initializer_range), biases zero, RMSNorm scales one. The same seed gives
// the same weights on every backend (they are drawn on the host).
func New(cfg Config, seed int64, opts Options) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	full := cfg.withDefaults()
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed_a6e7))
	weights := make(map[string]*tensors.Tensor)
	for _, s := range full.tensorSpecs() {
		data := make([]float32, s.size())
		switch s.init {
		case initNormal:
			for i := range data {
				data[i] = float32(rng.NormFloat64() * full.InitializerRange)
			}
		case initOnes:
			for i := range data {
				data[i] = 1
			}
		case initZeros:
		}
		weights[s.name] = tensors.FromFlatDataAndDimensions(data, s.shape...)
	}
	return newModel(cfg, weights, opts)
}

// newModel builds a Model around weights that match cfg's tensorSpecs.
func newModel(cfg Config, weights map[string]*tensors.Tensor, opts Options) (m *Model, err error) {
	backend := opts.Backend
	if backend == nil {
		if backend, err = NewBackend(""); err != nil {
			return nil, err
		}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	dtype, err := computeDTypeOf(opts.ComputeDType)
	if err != nil {
		return nil, err
	}
	if err := CheckComputeDType(backend, dtype); err != nil {
		return nil, err
	}
	samplerFormat, err := ParseSamplerWeights(string(opts.SamplerWeights))
	if err != nil {
		return nil, err
	}
	if samplerFormat != SamplerFloat32 && dtype != dtypes.Float32 {
		return nil, fmt.Errorf("%w: sampler weights %s need the float32 compute dtype, not %s", ErrBadConfig, samplerFormat, dtype)
	}
	defer recoverGraphError(&err, "creating variables")
	vars := mlctx.New()
	full := cfg.withDefaults()
	for _, s := range full.tensorSpecs() {
		t, ok := weights[s.name]
		if !ok {
			return nil, fmt.Errorf("%w: %s", ErrMissingTensor, s.name)
		}
		scope, name := variableScope(s.name)
		vars.InAbsPath(scope).VariableWithValue(name, t)
	}
	m = &Model{cfg: full, backend: backend, logger: logger, vars: vars, dtype: dtype}
	if samplerFormat != SamplerFloat32 || (dtype == dtypes.Float32 && full.matrixBytes() <= transposedSamplerMaxBytes) {
		m.sampler = newSamplerVars(samplerFormat, full)
	}
	return m, nil
}

// Config returns the model's configuration with defaults filled in.
func (m *Model) Config() Config { return m.cfg }

// Backend returns the backend that runs the model's graphs.
func (m *Model) Backend() backends.Backend { return m.backend }

// Context returns the GoMLX context that holds the model's weights, one
// variable per Hugging Face tensor: "model.layers.0.mlp.up_proj.weight" is
// variable "weight" in scope "/model/layers/0/mlp/up_proj". The graph
// functions of Model read the weights from whatever context they are given
// under these names, so a clone (ctx.Clone()) serves as a frozen reference
// policy. Callers must not run graphs that change these variables
// concurrently with the Model's own host-level methods.
func (m *Model) Context() *mlctx.Context { return m.vars }

// TensorNames lists the Hugging Face names of the model's weights in a
// fixed order.
func (m *Model) TensorNames() []string {
	specs := m.cfg.tensorSpecs()
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.name
	}
	return names
}

// weight returns, inside a graph, the value of the weight with the given
// Hugging Face name from ctx. A missing or misshaped variable panics (graph
// building reports errors that way); host-level callers recover.
func (m *Model) weight(ctx *mlctx.Context, g *graph.Graph, name string) *graph.Node {
	scope, vname := variableScope(name)
	v := ctx.GetVariableByScopeAndName(scope, vname)
	if v == nil {
		panic(fmt.Errorf("%w: context has no variable %q in scope %q (tensor %s)", ErrMissingTensor, vname, scope, name))
	}
	return v.ValueGraph(g)
}

// recoverGraphError turns a panic raised while building or running a GoMLX
// graph into an error wrapping ErrGraph (or the panic's own error if it
// already wraps one of the package's sentinels). Use it deferred in every
// exported host-level function that touches GoMLX.
func recoverGraphError(err *error, what string) {
	r := recover()
	if r == nil {
		return
	}
	if e, ok := r.(error); ok {
		for _, sentinel := range []error{ErrMissingTensor, ErrTensorMismatch, ErrBadInput, ErrBadConfig, ErrUnsupportedDType} {
			if errors.Is(e, sentinel) {
				*err = e
				return
			}
		}
		*err = fmt.Errorf("%w: %s: %w", ErrGraph, what, e)
		return
	}
	*err = fmt.Errorf("%w: %s: %v", ErrGraph, what, r)
}

// executables are the compiled graphs of a Model, built on first use.
type executables struct {
	logProbs map[float64]*compiledGraph // by temperature
	prefill  *compiledGraph
	decode   *compiledGraph
}
