package model

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/org/agentevolver/internal/fsutil"
)

// File names of a PEFT LoRA adapter directory.
const (
	AdapterConfigFile  = "adapter_config.json"
	AdapterWeightsFile = "adapter_model.safetensors"
)

// LoRAModules are the projections of a Qwen2 block that LoRA can adapt,
// by the names PEFT's target_modules uses.
var LoRAModules = []string{"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}

// loraModulePath maps a target module to its place in a block.
var loraModulePath = map[string]string{
	"q_proj": "self_attn.q_proj", "k_proj": "self_attn.k_proj", "v_proj": "self_attn.v_proj",
	"o_proj": "self_attn.o_proj", "gate_proj": "mlp.gate_proj", "up_proj": "mlp.up_proj", "down_proj": "mlp.down_proj",
}

// LoRAConfig are low-rank adapter settings, with the names and meaning of
// PEFT's LoraConfig: each adapted projection W [out, in] computes
// W·x + (Alpha/R)·B·A·x with A [R, in] and B [out, R].
type LoRAConfig struct {
	// R is the rank of the adapters; it must be positive.
	R int `json:"r"`
	// Alpha scales the adapters' output by Alpha/R; 0 means R (scale 1).
	Alpha float64 `json:"lora_alpha"`
	// Dropout is PEFT's lora_dropout, in [0, 1). It is recorded in the
	// adapter configuration for PEFT; this model's graphs have no dropout
	// and do not apply it.
	Dropout float64 `json:"lora_dropout"`
	// TargetModules are the adapted projections, from LoRAModules; nil
	// means all of them.
	TargetModules []string `json:"target_modules"`
}

// withDefaults fills Alpha and TargetModules and checks the rest.
func (c LoRAConfig) withDefaults() (LoRAConfig, error) {
	if c.R <= 0 || c.R > maxHiddenSize {
		return c, fmt.Errorf("%w: LoRA rank %d must be in [1, %d]", ErrBadConfig, c.R, maxHiddenSize)
	}
	if c.Alpha == 0 {
		c.Alpha = float64(c.R)
	}
	if !(c.Alpha > 0) || math.IsInf(c.Alpha, 0) {
		return c, fmt.Errorf("%w: lora_alpha %g must be positive", ErrBadConfig, c.Alpha)
	}
	if !(c.Dropout >= 0 && c.Dropout < 1) {
		return c, fmt.Errorf("%w: lora_dropout %g outside [0, 1)", ErrBadConfig, c.Dropout)
	}
	if c.TargetModules == nil {
		c.TargetModules = slices.Clone(LoRAModules)
	}
	if len(c.TargetModules) == 0 {
		return c, fmt.Errorf("%w: no LoRA target modules", ErrBadConfig)
	}
	var targets []string
	for _, t := range c.TargetModules {
		if _, ok := loraModulePath[t]; !ok {
			return c, fmt.Errorf("%w: LoRA target %q is not one of %v", ErrBadConfig, t, LoRAModules)
		}
		if !slices.Contains(targets, t) {
			targets = append(targets, t)
		}
	}
	// In LoRAModules' order, so that variables and files are deterministic.
	slices.SortFunc(targets, func(a, b string) int { return slices.Index(LoRAModules, a) - slices.Index(LoRAModules, b) })
	c.TargetModules = targets
	return c, nil
}

// Where the adapters live in a model's context: next to the weight they
// adapt, under PEFT's names without PEFT's "base_model.model." prefix
// (model.layers.0.self_attn.q_proj.lora_A.weight), plus two scalars.
const (
	loraScope        = "/lora"
	loraScalingVar   = "scaling" // Alpha/R
	loraDropoutVar   = "dropout" // recorded only
	loraOffParam     = "agentevolver_lora_off"
	adaptersOffScope = "/adapters_off"
	peftPrefix       = "base_model.model."
)

// loraTensorNames returns the Hugging Face names of the A and B matrices
// of the adapter of module in layer i.
func loraTensorNames(i int, module string) (a, b string) {
	p := layerPrefix(i) + loraModulePath[module]
	return p + ".lora_A.weight", p + ".lora_B.weight"
}

// moduleDims returns a module's [out, in].
func (c Config) moduleDims(module string) (out, in int) {
	q, kv := c.NumAttentionHeads*c.HeadDim, c.NumKeyValueHeads*c.HeadDim
	switch module {
	case "q_proj":
		return q, c.HiddenSize
	case "k_proj", "v_proj":
		return kv, c.HiddenSize
	case "o_proj":
		return c.HiddenSize, q
	case "gate_proj", "up_proj":
		return c.IntermediateSize, c.HiddenSize
	default: // down_proj
		return c.HiddenSize, c.IntermediateSize
	}
}

// AddLoRA adds low-rank adapters to the model and freezes its base
// weights: afterwards the only trainable variables of Context are the
// adapters' A and B matrices, so a trainer that updates trainable
// variables (as trainer's optimiser does) keeps gradients and AdamW
// moments for them alone. A is drawn as PEFT does (Kaiming-uniform,
// U(-1/√in, 1/√in)) from seed and B is zero, so the adapted model
// computes exactly what the base does until B is trained. Every graph
// function of the model (log-probs, sampling) then includes the adapters;
// AdaptersOff gives a view of the context without them (the reference
// policy), MergeLoRA folds them into the weights, Export writes the
// merged weights and ExportAdapter a PEFT adapter directory. A model has
// at most one set of adapters.
//
// Call AddLoRA, LoadAdapter and MergeLoRA before making a Policy over the
// model: they recompile the model's own graphs, but a Policy compiles its
// own and would go on sampling without (or with deleted) adapters.
func (m *Model) AddLoRA(cfg LoRAConfig, seed int64) (err error) {
	cfg, err = cfg.withDefaults()
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	defer recoverGraphError(&err, "adding LoRA adapters")
	if m.vars.GetVariableByScopeAndName(loraScope, loraScalingVar) != nil {
		return fmt.Errorf("%w: the model already has LoRA adapters", ErrBadConfig)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x10_4a))
	for i := range m.cfg.NumHiddenLayers {
		for _, module := range cfg.TargetModules {
			out, in := m.cfg.moduleDims(module)
			aName, bName := loraTensorNames(i, module)
			a := make([]float32, cfg.R*in)
			bound := 1 / math.Sqrt(float64(in))
			for j := range a {
				a[j] = float32((2*rng.Float64() - 1) * bound)
			}
			scope, name := variableScope(aName)
			m.vars.InAbsPath(scope).VariableWithValue(name, tensors.FromFlatDataAndDimensions(a, cfg.R, in))
			scope, name = variableScope(bName)
			m.vars.InAbsPath(scope).VariableWithValue(name, tensors.FromFlatDataAndDimensions(make([]float32, out*cfg.R), out, cfg.R))
		}
	}
	m.vars.InAbsPath(loraScope).VariableWithValue(loraScalingVar, float32(cfg.Alpha/float64(cfg.R))).SetTrainable(false)
	m.vars.InAbsPath(loraScope).VariableWithValue(loraDropoutVar, float32(cfg.Dropout)).SetTrainable(false)
	for _, s := range m.cfg.tensorSpecs() {
		scope, name := variableScope(s.name)
		m.vars.GetVariableByScopeAndName(scope, name).SetTrainable(false)
	}
	m.resetExecutables()
	return nil
}

// resetExecutables drops the compiled graphs, which were built for other
// variables.
func (m *Model) resetExecutables() {
	for _, c := range m.exec.logProbs {
		c.close()
	}
	if m.exec.prefill != nil {
		m.exec.prefill.close()
	}
	if m.exec.decode != nil {
		m.exec.decode.close()
	}
	m.exec = executables{}
}

// LoRA returns the model's adapter settings and whether it has adapters.
func (m *Model) LoRA() (LoRAConfig, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.loraConfig()
}

// loraConfig reads the adapter settings back from the context.
func (m *Model) loraConfig() (LoRAConfig, bool) {
	scaling := m.vars.GetVariableByScopeAndName(loraScope, loraScalingVar)
	if scaling == nil {
		return LoRAConfig{}, false
	}
	var cfg LoRAConfig
	for _, module := range LoRAModules {
		aName, _ := loraTensorNames(0, module)
		scope, name := variableScope(aName)
		if v := m.vars.GetVariableByScopeAndName(scope, name); v != nil {
			cfg.TargetModules = append(cfg.TargetModules, module)
			cfg.R = v.Shape().Dimensions[0]
		}
	}
	// The scalars are float32: read them back as the shortest decimals
	// that round to them (0.05, not 0.05000000074505806).
	cfg.Alpha = shortest(float32(float64(scalarValue(scaling)) * float64(cfg.R)))
	if d := m.vars.GetVariableByScopeAndName(loraScope, loraDropoutVar); d != nil {
		cfg.Dropout = shortest(scalarValue(d))
	}
	return cfg, true
}

// shortest returns the float64 of f's shortest decimal form.
func shortest(f float32) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	return v
}

// scalarValue reads a float32 scalar variable; 0 when it cannot.
func scalarValue(v *mlctx.Variable) float32 {
	t, err := v.Value()
	if err != nil {
		return 0
	}
	data, err := tensors.CopyFlatData[float32](t)
	if err != nil || len(data) != 1 {
		return 0
	}
	return data[0]
}

// AdaptersOff returns a view of the model context ctx (Model.Context, or
// a copy with the same variable names) in which the model's graph
// functions ignore the LoRA adapters: the base model, which is the
// reference policy of LoRA training, with no copy of the weights. The view
// shares ctx's variables; only graphs built with it see the adapters off.
func AdaptersOff(ctx *mlctx.Context) *mlctx.Context {
	off := ctx.InAbsPath(adaptersOffScope)
	off.SetParam(loraOffParam, true)
	return off
}

// loraGraph is what a forward pass needs of the adapters: nil when the
// context has none or has them off.
type loraGraph struct {
	scaling *graph.Node
}

// loraFor returns the adapters' graph state for ctx.
func (m *Model) loraFor(ctx *mlctx.Context, g *graph.Graph) *loraGraph {
	if mlctx.GetParamOr(ctx, loraOffParam, false) {
		return nil
	}
	v := ctx.GetVariableByScopeAndName(loraScope, loraScalingVar)
	if v == nil {
		return nil
	}
	return &loraGraph{scaling: v.ValueGraph(g)}
}

// project applies the projection module (a Hugging Face name prefix such
// as "model.layers.0.self_attn.q_proj") to x: its weight, its bias when
// withBias, and its LoRA adapter when lora is not nil and ctx has one for
// it.
func (m *Model) project(ctx *mlctx.Context, lora *loraGraph, x *graph.Node, module string, withBias bool) *graph.Node {
	g := x.Graph()
	dt := x.DType() // the compute dtype: float32 weights are converted at use (none in float32)
	var bias *graph.Node
	if withBias {
		bias = convertTo(m.weight(ctx, g, module+".bias"), dt)
	}
	var y *graph.Node
	if wT, scale := m.narrowWeight(ctx, g, module+".weight"); wT != nil && dt == dtypes.Float32 {
		y = narrowLinear(x, wT, scale, bias)
	} else {
		y = linear(x, convertTo(m.weight(ctx, g, module+".weight"), dt), bias)
	}
	if lora == nil {
		return y
	}
	aScope, aName := variableScope(module + ".lora_A.weight")
	a := ctx.GetVariableByScopeAndName(aScope, aName)
	if a == nil {
		return y
	}
	b := convertTo(m.weight(ctx, g, module+".lora_B.weight"), dt)
	delta := linear(linear(x, convertTo(a.ValueGraph(g), dt), nil), b, nil)
	return graph.Add(y, graph.Mul(delta, graph.ConvertDType(lora.scaling, dt)))
}

// MergeLoRA folds the adapters into the weights they adapt (W += Alpha/R ·
// B·A, in float64 on the host and rounded once), removes them and makes
// every weight trainable again, as PEFT's merge_and_unload. The merged
// model computes what the adapted one did, up to float32 rounding. A model
// without adapters is left as it is.
func (m *Model) MergeLoRA() (err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	defer recoverGraphError(&err, "merging LoRA adapters")
	cfg, ok := m.loraConfig()
	if !ok {
		return nil
	}
	for i := range m.cfg.NumHiddenLayers {
		for _, module := range cfg.TargetModules {
			name := layerPrefix(i) + loraModulePath[module] + ".weight"
			merged, err := m.mergedWeight(name)
			if err != nil {
				return err
			}
			scope, vname := variableScope(name)
			if err := m.vars.GetVariableByScopeAndName(scope, vname).SetValue(merged); err != nil {
				return fmt.Errorf("%w: %s: %w", ErrGraph, name, err)
			}
			aName, bName := loraTensorNames(i, module)
			for _, n := range []string{aName, bName} {
				scope, vname := variableScope(n)
				if err := m.vars.DeleteVariable(scope, vname); err != nil {
					return fmt.Errorf("%w: removing %s: %w", ErrGraph, n, err)
				}
			}
		}
	}
	for _, n := range []string{loraScalingVar, loraDropoutVar} {
		if err := m.vars.DeleteVariable(loraScope, n); err != nil {
			return fmt.Errorf("%w: removing %s: %w", ErrGraph, n, err)
		}
	}
	for _, s := range m.cfg.tensorSpecs() {
		scope, name := variableScope(s.name)
		m.vars.GetVariableByScopeAndName(scope, name).SetTrainable(true)
	}
	m.resetExecutables()
	return nil
}

// mergedWeight returns the weight named name (a Hugging Face tensor name)
// with its adapter folded in, or its plain value when it has none. The
// caller holds m.mu.
func (m *Model) mergedWeight(name string) (*tensors.Tensor, error) {
	value, err := m.variableValue(name)
	if err != nil {
		return nil, err
	}
	module := strings.TrimSuffix(name, ".weight")
	aScope, aName := variableScope(module + ".lora_A.weight")
	bScope, bName := variableScope(module + ".lora_B.weight")
	av, bv := m.vars.GetVariableByScopeAndName(aScope, aName), m.vars.GetVariableByScopeAndName(bScope, bName)
	scaling := m.vars.GetVariableByScopeAndName(loraScope, loraScalingVar)
	if av == nil || bv == nil || scaling == nil {
		return value, nil
	}
	w, err := tensors.CopyFlatData[float32](value)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrGraph, name, err)
	}
	at, err := av.Value()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrGraph, aName, err)
	}
	bt, err := bv.Value()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrGraph, bName, err)
	}
	a, err := tensors.CopyFlatData[float32](at)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrGraph, err)
	}
	b, err := tensors.CopyFlatData[float32](bt)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrGraph, err)
	}
	out, in := value.Shape().Dimensions[0], value.Shape().Dimensions[1]
	r := at.Shape().Dimensions[0]
	if len(a) != r*in || len(b) != out*r {
		return nil, fmt.Errorf("%w: adapter of %s has A %v and B %v", ErrTensorMismatch, name, at.Shape(), bt.Shape())
	}
	s := float64(scalarValue(scaling))
	row := make([]float64, in)
	for o := range out {
		clear(row)
		for k := range r {
			bok := float64(b[o*r+k])
			if bok == 0 {
				continue
			}
			for j, ak := range a[k*in : (k+1)*in] {
				row[j] += bok * float64(ak)
			}
		}
		for j := range in {
			w[o*in+j] = float32(float64(w[o*in+j]) + s*row[j])
		}
	}
	return tensors.FromFlatDataAndDimensions(w, out, in), nil
}

// peftAdapterConfig is adapter_config.json as PEFT writes it for LoRA.
type peftAdapterConfig struct {
	PeftType            string   `json:"peft_type"`
	TaskType            string   `json:"task_type"`
	R                   int      `json:"r"`
	LoraAlpha           float64  `json:"lora_alpha"`
	LoraDropout         float64  `json:"lora_dropout"`
	TargetModules       []string `json:"target_modules"`
	Bias                string   `json:"bias"`
	FanInFanOut         bool     `json:"fan_in_fan_out"`
	InferenceMode       bool     `json:"inference_mode"`
	InitLoraWeights     bool     `json:"init_lora_weights"`
	UseRSLoRA           bool     `json:"use_rslora"`
	ModulesToSave       []string `json:"modules_to_save"`
	BaseModelNameOrPath string   `json:"base_model_name_or_path"`
	Revision            *string  `json:"revision"`
}

// ExportAdapter writes the model's adapters as a PEFT LoRA directory:
// adapter_config.json and adapter_model.safetensors (float32) with PEFT's
// tensor names (base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight),
// which PEFT's PeftModel.from_pretrained and vLLM's --lora-modules load
// over the base model. baseModel is recorded as base_model_name_or_path
// ("" for none). A model without adapters is ErrBadInput.
func (m *Model) ExportAdapter(ctx context.Context, dir, baseModel string) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	cfg, ok := m.LoRA()
	if !ok {
		return fmt.Errorf("%w: the model has no LoRA adapters", ErrBadInput)
	}
	conf, err := marshalHFJSON(peftAdapterConfig{
		PeftType: "LORA", TaskType: "CAUSAL_LM", R: cfg.R, LoraAlpha: cfg.Alpha, LoraDropout: cfg.Dropout,
		TargetModules: cfg.TargetModules, Bias: "none", InferenceMode: true, InitLoraWeights: true,
		BaseModelNameOrPath: baseModel,
	})
	if err != nil {
		return fmt.Errorf("model: adapter config: %w", err)
	}
	var entries []stEntry
	for i := range m.cfg.NumHiddenLayers {
		for _, module := range cfg.TargetModules {
			out, in := m.cfg.moduleDims(module)
			aName, bName := loraTensorNames(i, module)
			entries = append(entries,
				stEntry{name: peftPrefix + aName, shape: []int{cfg.R, in}, size: cfg.R * in},
				stEntry{name: peftPrefix + bName, shape: []int{out, cfg.R}, size: out * cfg.R})
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("model: export adapter: %w", err)
	}
	dt, _ := ExportFloat32.info()
	if err := m.withVariables(func() error {
		return fsutil.WriteFileAtomic(filepath.Join(dir, AdapterWeightsFile), func(w io.Writer) error {
			return writeSafetensors(ctx, w, entries, dt, func(name string) (*tensors.Tensor, error) {
				return m.variableValue(strings.TrimPrefix(name, peftPrefix))
			})
		})
	}); err != nil {
		return fmt.Errorf("model: export adapter: %w", err)
	}
	if err := fsutil.WriteFile(filepath.Join(dir, AdapterConfigFile), conf); err != nil {
		return fmt.Errorf("model: export adapter: %w", err)
	}
	return nil
}

// withVariables runs f holding the model's lock, turning GoMLX panics into
// errors.
func (m *Model) withVariables(f func() error) (err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	defer recoverGraphError(&err, "reading weights")
	return f()
}

// variableValue returns the value of the variable with the Hugging Face
// name name. The caller holds m.mu.
func (m *Model) variableValue(name string) (*tensors.Tensor, error) {
	scope, vname := variableScope(name)
	v := m.vars.GetVariableByScopeAndName(scope, vname)
	if v == nil {
		return nil, fmt.Errorf("%w: %s", ErrMissingTensor, name)
	}
	value, err := v.Value()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrGraph, name, err)
	}
	return value, nil
}

// decodeAdapterConfig reads adapter_config.json's LoRA settings.
func decodeAdapterConfig(raw []byte) (LoRAConfig, error) {
	var c peftAdapterConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		return LoRAConfig{}, fmt.Errorf("%w: %s: %w", ErrBadCheckpoint, AdapterConfigFile, err)
	}
	if c.PeftType != "LORA" {
		return LoRAConfig{}, fmt.Errorf("%w: %s: peft_type %q, want LORA", ErrBadCheckpoint, AdapterConfigFile, c.PeftType)
	}
	return LoRAConfig{R: c.R, Alpha: c.LoraAlpha, Dropout: c.LoraDropout, TargetModules: c.TargetModules}.withDefaults()
}

// LoadAdapter adds the PEFT LoRA adapter in dir to the model, as AddLoRA
// does (the base frozen): adapter_config.json gives the settings and
// adapter_model.safetensors the A and B matrices under PEFT's names, in
// any float dtype. ExportAdapter writes such a directory, and so does
// PEFT's save_pretrained for a Qwen2 model. Everything is read and
// checked (names, shapes, sizes) before the model changes.
func (m *Model) LoadAdapter(ctx context.Context, dir string) error {
	raw, err := readBounded(filepath.Join(dir, AdapterConfigFile), maxConfigFileBytes)
	if err != nil {
		return err
	}
	cfg, err := decodeAdapterConfig(raw)
	if err != nil {
		return err
	}
	want := make(map[string][]int)
	total := 0
	for i := range m.cfg.NumHiddenLayers {
		for _, module := range cfg.TargetModules {
			out, in := m.cfg.moduleDims(module)
			aName, bName := loraTensorNames(i, module)
			want[peftPrefix+aName], want[peftPrefix+bName] = []int{cfg.R, in}, []int{out, cfg.R}
			total += cfg.R * (in + out)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := readBounded(filepath.Join(dir, AdapterWeightsFile), int64(8+maxHeaderBytes)+8*int64(total))
	if err != nil {
		return err
	}
	loaded, err := decodeSafetensors(data, func(name string) ([]int, bool) { s, ok := want[name]; return s, ok })
	if err != nil {
		return fmt.Errorf("%s: %w", AdapterWeightsFile, err)
	}
	for name := range want {
		if _, ok := loaded.tensors[name]; !ok {
			return fmt.Errorf("%w: %s is not in %s", ErrMissingTensor, name, filepath.Join(dir, AdapterWeightsFile))
		}
	}
	if err := m.AddLoRA(cfg, 0); err != nil {
		return err
	}
	return m.withVariables(func() error {
		for name, t := range loaded.tensors {
			scope, vname := variableScope(strings.TrimPrefix(name, peftPrefix))
			if err := m.vars.GetVariableByScopeAndName(scope, vname).SetValue(tensors.FromFlatDataAndDimensions(t.data, t.shape...)); err != nil {
				return fmt.Errorf("%w: %s: %w", ErrGraph, name, err)
			}
		}
		return nil
	})
}
