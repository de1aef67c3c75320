package model

import (
	"fmt"
	"math"
	"runtime"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/org/agentevolver/internal/gemm"
	"github.com/org/agentevolver/internal/parallel"
)

// SamplerWeights is the format of the matrix weights that sampling reads
// (Options.SamplerWeights): the embedding, every projection and the
// output head. Decoding a token reads every weight once, so on a CPU its
// speed is bounded by the bytes of the weights; narrower weights move
// fewer. Training, log-probs and checkpoints always use the float32
// weights; the sampler's copies follow them, made again after every
// update. Norms, biases and LoRA adapters stay float32.
type SamplerWeights string

const (
	// SamplerFloat32 samples with the float32 weights (the zero value).
	// A small model's (transposedSamplerMaxBytes) sampler reads a
	// transposed float32 copy, [in, out]: the few rows of a decode step
	// then read it in place, where the model's [out, in] layout is
	// transposed into L1 at every product, which for cache-resident
	// weights cost 3-4 times the product (gemm: 1x384x128 2.3 µs against
	// 7.1). The sums are the same, in the same order, so the samples are
	// the same bits.
	SamplerFloat32 SamplerWeights = ""
	// SamplerBFloat16 samples with each weight rounded to bfloat16
	// (nearest even): half the bytes, about 3 significant digits.
	SamplerBFloat16 SamplerWeights = "bfloat16"
	// SamplerInt8 samples with each weight quantised to int8 per output
	// channel (symmetric: a row's largest magnitude maps to 127, its scale
	// multiplies the product's output), a quarter of the bytes: the
	// weight-only quantisation of llama.cpp's q8_0, with one scale per row
	// instead of one per 32 values.
	SamplerInt8 SamplerWeights = "int8"
)

// ParseSamplerWeights maps a configuration value to a SamplerWeights:
// "float32" (or ""), "bfloat16" (or "bf16") and "int8", case-insensitive.
// Anything else is an error wrapping ErrBadConfig.
func ParseSamplerWeights(s string) (SamplerWeights, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "float32", "f32":
		return SamplerFloat32, nil
	case "bfloat16", "bf16":
		return SamplerBFloat16, nil
	case "int8":
		return SamplerInt8, nil
	}
	return "", fmt.Errorf("%w: sampler weights %q: want float32, bfloat16 (bf16) or int8", ErrBadConfig, s)
}

// SamplerWeights returns the format of the weights sampling reads.
func (m *Model) SamplerWeights() SamplerWeights {
	if m.sampler == nil {
		return SamplerFloat32
	}
	return m.sampler.format
}

// transposedSamplerMaxBytes bounds the float32 matrix weights of a model
// whose float32 sampler reads a transposed copy: a second copy of a model
// this small costs little memory, and its products are bound by per-call
// work rather than by memory. A larger model's rows of [in, out] would put
// every step of a decode product in another page, as a vocabulary-wide
// narrow head's did before narrow copies went into panels.
const transposedSamplerMaxBytes = 16 << 20

// SamplerCopyBytes returns the memory that the sampler's copies of the
// weights of a model with configuration c take beside the float32 weights,
// with sampler weights w (Options.SamplerWeights): the narrow copies (and
// int8's scales), a small model's transposed float32 copies, or 0.
func (c Config) SamplerCopyBytes(w SamplerWeights) int {
	full := c.withDefaults()
	if w == SamplerFloat32 && full.matrixBytes() > transposedSamplerMaxBytes {
		return 0
	}
	copied := newSamplerVars(w, full).narrow
	n := 0
	for _, spec := range full.tensorSpecs() {
		scope, name := variableScope(spec.name)
		if !copied[scopeAndName(scope, name)] {
			continue
		}
		switch w {
		case SamplerInt8:
			n += spec.size() + 4*spec.shape[0]
		case SamplerBFloat16:
			n += 2 * spec.size()
		default:
			n += 4 * spec.size()
		}
	}
	return n
}

// matrixBytes is the size of c's matrix weights in float32.
func (c Config) matrixBytes() int {
	n := 0
	for _, spec := range c.tensorSpecs() {
		if len(spec.shape) == 2 {
			n += 4 * spec.size()
		}
	}
	return n
}

// narrowSuffix and scaleSuffix name the variables beside a matrix weight
// in the sampler's context: its narrow copy ("weight" → "weight_narrow",
// laid out by narrowLayout), and for int8 its per-output scales
// ("weight_scale").
const (
	narrowSuffix = "_narrow"
	scaleSuffix  = "_scale"
)

// samplerVars is the context the sampling graphs read with narrow weights
// (or a small model's transposed float32 copies, see SamplerFloat32):
// every variable of the model's context under its own scope and name,
// holding the very tensors of the model's variables (no copy), and beside
// each matrix weight its copy. A narrow copy is stored in panels of 32
// outputs, [out/32, in, 32] (transposed, [in, out], when out is not a
// multiple of 32; narrowLayout), so that a product reads its rows left to
// right and only widens them (package gemm's taskNarrowPanels), which ran
// faster than widening the [out, in] layout while transposing it, and in
// panels a decode step streams each one instead of a cache line from every
// row of a vocabulary-wide head; lookups in the embedding read the
// float32 rows.
type samplerVars struct {
	format SamplerWeights
	narrow map[string]bool // scope-and-name of the matrix weights made narrow
	ctx    *mlctx.Context
	// mirrored is the model variable value each sampler variable was made
	// from, by scope and name: a training step or a checkpoint load
	// replaces the model's values, and only the replaced ones are made
	// again.
	mirrored map[string]*tensors.Tensor
	// generation counts the contexts made: the set of the model's
	// variables changed (LoRA adapters added or merged) and the graphs
	// built on the previous context must be built again.
	generation int
}

// newSamplerVars prepares the narrow context of a model with
// configuration cfg; it is filled on first use (context).
func newSamplerVars(format SamplerWeights, cfg Config) *samplerVars {
	s := &samplerVars{format: format, narrow: map[string]bool{}}
	for _, spec := range cfg.tensorSpecs() {
		// The embedding is a product's weight only as a tied head; its
		// lookups read the float32 rows.
		isEmbedding := spec.name == "model.embed_tokens.weight"
		if len(spec.shape) == 2 && (!isEmbedding || cfg.TieWordEmbeddings) {
			scope, name := variableScope(spec.name)
			s.narrow[scopeAndName(scope, name)] = true
		}
	}
	return s
}

func scopeAndName(scope, name string) string { return scope + "/" + name }

// context returns the sampler's context with every variable up to date
// with the model's, and its generation. Callers hold m.mu.
func (s *samplerVars) context(m *Model) (*mlctx.Context, int, error) {
	names := 0
	same := s.ctx != nil
	for v := range m.vars.IterVariables() {
		names++
		if same {
			_, ok := s.mirrored[v.ScopeAndName()]
			same = ok
		}
	}
	if !same || names != len(s.mirrored) {
		s.ctx, s.mirrored = mlctx.New(), map[string]*tensors.Tensor{}
		s.generation++
	}
	for v := range m.vars.IterVariables() {
		key := v.ScopeAndName()
		value, err := v.Value()
		if err != nil {
			return nil, 0, fmt.Errorf("%w: sampler weights: %s: %w", ErrGraph, key, err)
		}
		if s.mirrored[key] == value {
			continue
		}
		if err := s.set(m, v.Scope(), v.Name(), value); err != nil {
			return nil, 0, err
		}
		s.mirrored[key] = value
	}
	return s.ctx, s.generation, nil
}

// set makes the sampler's variable scope/name from the model's value:
// narrow for a matrix weight, else the same tensor.
func (s *samplerVars) set(m *Model, scope, name string, value *tensors.Tensor) error {
	in := s.ctx.InAbsPath(scope).Checked(false)
	in.VariableWithValue(name, value).SetTrainable(false)
	if err := in.GetVariableByScopeAndName(scope, name).SetValuePreservingOld(value); err != nil {
		return fmt.Errorf("%w: sampler weights: %s/%s: %w", ErrGraph, scope, name, err)
	}
	if !s.narrow[scopeAndName(scope, name)] || value.DType() != dtypes.Float32 {
		return nil
	}
	dims := value.Shape().Dimensions
	rows, cols := dims[0], dims[1]
	layout := newNarrowLayout(rows, cols)
	var narrow, scales *tensors.Tensor
	err := tensors.ConstFlatData(value, func(w []float32) {
		switch s.format {
		case SamplerInt8:
			narrow = tensors.FromShape(shapes.Make(dtypes.Int8, layout.dims...))
			scales = tensors.FromShape(shapes.Make(dtypes.Float32, rows))
			tensors.MutableFlatData(narrow, func(q []int8) {
				tensors.MutableFlatData(scales, func(sc []float32) {
					m.parallelRows(rows, func(r0, r1 int) { quantizeRows(q, sc, w, layout, r0, r1) })
				})
			})
		case SamplerFloat32:
			// A small model's transposed copy (no panels: gemm reads
			// float32 rows in place).
			layout = narrowLayout{rows, cols, []int{cols, rows}}
			narrow = tensors.FromShape(shapes.Make(dtypes.Float32, layout.dims...))
			tensors.MutableFlatData(narrow, func(wT []float32) {
				m.parallelRows(rows, func(r0, r1 int) {
					for r := r0; r < r1; r++ {
						for c, v := range w[r*cols : (r+1)*cols] {
							wT[layout.at(r, c)] = v
						}
					}
				})
			})
		case SamplerBFloat16:
			narrow = tensors.FromShape(shapes.Make(dtypes.BFloat16, layout.dims...))
			tensors.MutableFlatData(narrow, func(h []bfloat16.BFloat16) {
				m.parallelRows(rows, func(r0, r1 int) {
					for r := r0; r < r1; r++ {
						for c, v := range w[r*cols : (r+1)*cols] {
							h[layout.at(r, c)] = bfloat16.BFloat16(bfloat16Bits(v))
						}
					}
				})
			})
		}
	})
	if err != nil {
		return fmt.Errorf("%w: sampler weights: %s/%s: %w", ErrGraph, scope, name, err)
	}
	s.replace(in, scope, name+narrowSuffix, narrow)
	if scales != nil {
		s.replace(in, scope, name+scaleSuffix, scales)
	}
	return nil
}

// replace sets the sampler-owned variable scope/name to value, freeing
// the value it had.
func (s *samplerVars) replace(in *mlctx.Context, scope, name string, value *tensors.Tensor) {
	if v := in.GetVariableByScopeAndName(scope, name); v != nil {
		_ = v.SetValue(value)
		return
	}
	in.VariableWithValue(name, value).SetTrainable(false)
}

// narrowPanel is the width of the column panels a narrow copy is stored
// in (gemm.PanelWidth).
const narrowPanel = gemm.PanelWidth

// narrowLayout places the narrow copy of a weight w [out, in]: in panels
// of narrowPanel outputs, [out/narrowPanel, in, narrowPanel], when out is
// a multiple of it, so that a decode step reads each panel's rows as one
// sequential run; else transposed, [in, out].
type narrowLayout struct {
	out, in int
	dims    []int
}

func newNarrowLayout(out, in int) narrowLayout {
	if out%narrowPanel == 0 {
		return narrowLayout{out, in, []int{out / narrowPanel, in, narrowPanel}}
	}
	return narrowLayout{out, in, []int{in, out}}
}

// at is the index of w[r, c] in the narrow copy.
func (l narrowLayout) at(r, c int) int {
	if len(l.dims) == 3 {
		return (r/narrowPanel)*l.in*narrowPanel + c*narrowPanel + r%narrowPanel
	}
	return c*l.out + r
}

// quantizeRows quantises rows [r0, r1) of w [out, in] to int8 with one
// symmetric scale per row, q = round(w / s) with s = max|w| / 127, into
// the narrow copy q laid out by layout (an all-zero or non-finite row gets
// zeros; its scale is then 0 or not finite).
func quantizeRows(q []int8, scales, w []float32, layout narrowLayout, r0, r1 int) {
	cols := layout.in
	for r := r0; r < r1; r++ {
		row := w[r*cols : (r+1)*cols]
		var amax float32
		for _, v := range row {
			amax = max(amax, float32(math.Abs(float64(v))))
		}
		scales[r] = amax / 127
		if amax == 0 || math.IsInf(float64(amax), 0) || math.IsNaN(float64(amax)) {
			for c := range cols {
				q[layout.at(r, c)] = 0
			}
			continue
		}
		inv := 127 / amax
		for c, v := range row {
			q[layout.at(r, c)] = int8(max(-127, min(127, math.Round(float64(v*inv)))))
		}
	}
}

// parallelRows runs fn over [0, rows) split between the backend's team
// (or the caller alone): making the narrow copies of a large model's
// weights after each update is a pass over all of them.
func (m *Model) parallelRows(rows int, fn func(r0, r1 int)) {
	team := &parallel.Team{}
	if b, ok := m.backend.(interface{ Team() *parallel.Team }); ok {
		team = b.Team()
	}
	team.Split(rows, 64, runtime.GOMAXPROCS(0), fn)
}
