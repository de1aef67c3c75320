package model

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/nlpodyssey/safetensors"
	"github.com/x448/float16"

	"github.com/org/agentevolver/internal/fsutil"
)

// File names of a Hugging Face checkpoint directory.
const (
	ConfigFile      = "config.json"
	WeightsFile     = "model.safetensors"
	WeightIndexFile = "model.safetensors.index.json"
)

// maxHeaderBytes bounds the JSON header of a safetensors file (the format's
// reference implementation uses the same limit).
const maxHeaderBytes = 100_000_000

// hostTensor is a float32 tensor in host memory.
type hostTensor struct {
	shape []int
	data  []float32
}

// Load reads a Hugging Face checkpoint directory: config.json plus the
// weights, either sharded (model.safetensors.index.json names the file of
// every tensor) or in one or more *.safetensors files. F32, F16, BF16 and
// F64 tensors are converted to float32. A tensor the configuration needs
// but the checkpoint lacks fails with ErrMissingTensor, a wrong shape with
// ErrTensorMismatch; tensors the model does not use are logged and skipped.
func Load(ctx context.Context, dir string, opts Options) (*Model, error) {
	raw, err := readBounded(filepath.Join(dir, ConfigFile), maxConfigFileBytes)
	if err != nil {
		return nil, err
	}
	cfg, err := ParseConfig(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ConfigFile), err)
	}
	full := cfg.withDefaults()
	specs := full.tensorSpecs()
	files, err := weightFiles(dir, specs)
	if err != nil {
		return nil, err
	}
	// A shard can hold at most every weight in float64, plus its header.
	maxFileBytes := int64(8+maxHeaderBytes) + 8*int64(full.NumParameters())
	want := make(map[string]tensorSpec, len(specs))
	for _, s := range specs {
		want[s.name] = s
	}
	weights := make(map[string]*tensors.Tensor, len(specs))
	for _, file := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, err := readBounded(file, maxFileBytes)
		if err != nil {
			return nil, err
		}
		loaded, err := decodeSafetensors(data, func(name string) ([]int, bool) { s, ok := want[name]; return s.shape, ok })
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		for name, t := range loaded.tensors {
			s := want[name]
			if !slices.Equal(t.shape, s.shape) {
				return nil, fmt.Errorf("%w: %s in %s has shape %v, config needs %v", ErrTensorMismatch, name, file, t.shape, s.shape)
			}
			if _, dup := weights[name]; dup {
				return nil, fmt.Errorf("%w: %s appears in more than one file (again in %s)", ErrBadCheckpoint, name, file)
			}
			weights[name] = tensors.FromFlatDataAndDimensions(t.data, t.shape...)
		}
		if opts.Logger != nil && len(loaded.skipped) > 0 {
			opts.Logger.Info("model: ignoring checkpoint tensors the model does not use", "file", file, "tensors", loaded.skipped)
		}
	}
	for _, s := range specs {
		if _, ok := weights[s.name]; !ok {
			return nil, fmt.Errorf("%w: %s (shape %v) is in no file of %s", ErrMissingTensor, s.name, s.shape, dir)
		}
	}
	return newModel(cfg, weights, opts)
}

// weightFiles returns the safetensors files of dir to read: the shards the
// index names for the needed tensors, else every *.safetensors file.
func weightFiles(dir string, specs []tensorSpec) ([]string, error) {
	raw, err := readBounded(filepath.Join(dir, WeightIndexFile), maxHeaderBytes)
	if errors.Is(err, fs.ErrNotExist) {
		files, err := filepath.Glob(filepath.Join(dir, "*.safetensors"))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadCheckpoint, err)
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%w: no *.safetensors file in %s", ErrBadCheckpoint, dir)
		}
		slices.Sort(files)
		return files, nil
	}
	if err != nil {
		return nil, err
	}
	weightMap, err := parseWeightIndex(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, WeightIndexFile), err)
	}
	var files []string
	for _, s := range specs {
		file, ok := weightMap[s.name]
		if !ok {
			return nil, fmt.Errorf("%w: %s is not in %s", ErrMissingTensor, s.name, WeightIndexFile)
		}
		if path := filepath.Join(dir, file); !slices.Contains(files, path) {
			files = append(files, path)
		}
	}
	return files, nil
}

// parseWeightIndex decodes model.safetensors.index.json and returns its
// weight_map (tensor name -> shard file name). Shard names must be plain
// file names in the checkpoint directory.
func parseWeightIndex(raw []byte) (map[string]string, error) {
	var index struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.Unmarshal(raw, &index); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadCheckpoint, err)
	}
	if len(index.WeightMap) == 0 {
		return nil, fmt.Errorf("%w: empty weight_map", ErrBadCheckpoint)
	}
	for name, file := range index.WeightMap {
		if file == "" || file != filepath.Base(file) || file == "." || file == ".." || strings.ContainsAny(file, `/\`) {
			return nil, fmt.Errorf("%w: tensor %s maps to %q, not a file name in the checkpoint directory", ErrBadCheckpoint, name, file)
		}
	}
	return index.WeightMap, nil
}

// decodedFile is what decodeSafetensors kept from one file.
type decodedFile struct {
	tensors map[string]hostTensor
	skipped []string // names not wanted
}

// decodeSafetensors parses a safetensors file and converts the wanted
// tensors to float32. wanted returns the shape a tensor must have (nil:
// any) and whether it is wanted at all; a shape is checked before any
// conversion allocates memory for it.
func decodeSafetensors(data []byte, wanted func(name string) ([]int, bool)) (decodedFile, error) {
	if len(data) >= 8 && binary.LittleEndian.Uint64(data) > maxHeaderBytes {
		return decodedFile{}, fmt.Errorf("%w: safetensors header larger than %d bytes", ErrBadCheckpoint, maxHeaderBytes)
	}
	st, err := safetensors.Deserialize(data)
	if err != nil {
		return decodedFile{}, fmt.Errorf("%w: %w", ErrBadCheckpoint, err)
	}
	out := decodedFile{tensors: make(map[string]hostTensor)}
	for _, name := range st.Names() {
		shape, ok := wanted(name)
		if !ok {
			out.skipped = append(out.skipped, name)
			continue
		}
		view, _ := st.Tensor(name)
		if shape != nil && !slices.EqualFunc(view.Shape(), shape, func(a uint64, b int) bool { return a == uint64(b) }) {
			return decodedFile{}, fmt.Errorf("%w: %s has shape %v, config needs %v", ErrTensorMismatch, name, view.Shape(), shape)
		}
		t, err := toFloat32(view)
		if err != nil {
			return decodedFile{}, fmt.Errorf("%s: %w", name, err)
		}
		out.tensors[name] = t
	}
	slices.Sort(out.skipped)
	return out, nil
}

// toFloat32 converts a tensor view of a floating dtype to float32.
func toFloat32(view safetensors.TensorView) (hostTensor, error) {
	shape := make([]int, len(view.Shape()))
	n := 1
	for i, d := range view.Shape() {
		if d > math.MaxInt32 || (d > 0 && n > math.MaxInt32/int(d)) {
			return hostTensor{}, fmt.Errorf("%w: shape %v too large", ErrTensorMismatch, view.Shape())
		}
		shape[i] = int(d)
		n *= int(d)
	}
	raw := view.Data()
	size := int(view.DType().Size())
	if size == 0 || len(raw) != n*size {
		return hostTensor{}, fmt.Errorf("%w: %d data bytes for %v elements of %s", ErrBadCheckpoint, len(raw), shape, view.DType())
	}
	data := make([]float32, n)
	switch view.DType() {
	case safetensors.F32:
		for i := range data {
			data[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	case safetensors.F64:
		for i := range data {
			data[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:])))
		}
	case safetensors.F16:
		for i := range data {
			data[i] = float16.Frombits(binary.LittleEndian.Uint16(raw[2*i:])).Float32()
		}
	case safetensors.BF16:
		for i := range data {
			data[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(raw[2*i:])) << 16)
		}
	default:
		return hostTensor{}, fmt.Errorf("%w: dtype %s is not a float type", ErrTensorMismatch, view.DType())
	}
	return hostTensor{shape: shape, data: data}, nil
}

// Save writes the model as a Hugging Face checkpoint directory (created if
// needed): config.json and model.safetensors with float32 weights under
// their Hugging Face names. Files are written to temporary names and
// renamed, so a crash never leaves a half-written checkpoint behind.
func (m *Model) Save(ctx context.Context, dir string) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	weights, err := m.hostWeights()
	if err != nil {
		return err
	}
	views := make(map[string]safetensors.TensorView, len(weights))
	for name, t := range weights {
		raw := make([]byte, 4*len(t.data))
		for i, v := range t.data {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
		}
		shape := make([]uint64, len(t.shape))
		for i, d := range t.shape {
			shape[i] = uint64(d)
		}
		if views[name], err = safetensors.NewTensorView(safetensors.F32, shape, raw); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrBadCheckpoint, name, err)
		}
	}
	cfg := m.cfg
	cfg.Extra = make(map[string]json.RawMessage, len(m.cfg.Extra)+2)
	for k, v := range m.cfg.Extra {
		cfg.Extra[k] = v
	}
	cfg.Extra["torch_dtype"] = json.RawMessage(`"float32"`)
	if _, ok := cfg.Extra["architectures"]; !ok {
		cfg.Extra["architectures"] = json.RawMessage(`["Qwen2ForCausalLM"]`)
	}
	configJSON, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return fmt.Errorf("model: encoding config: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(dir, WeightsFile), func(w io.Writer) error {
		return safetensors.SerializeToWriter(views, map[string]string{"format": "pt"}, w)
	}); err != nil {
		return fmt.Errorf("model: writing %s: %w", WeightsFile, err)
	}
	if err := fsutil.WriteFile(filepath.Join(dir, ConfigFile), append(configJSON, '\n')); err != nil {
		return fmt.Errorf("model: writing %s: %w", ConfigFile, err)
	}
	return nil
}

// hostWeights copies every weight of the model to host memory.
func (m *Model) hostWeights() (out map[string]hostTensor, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	defer recoverGraphError(&err, "reading weights")
	out = make(map[string]hostTensor)
	for _, s := range m.cfg.tensorSpecs() {
		scope, name := variableScope(s.name)
		v := m.vars.GetVariableByScopeAndName(scope, name)
		if v == nil {
			return nil, fmt.Errorf("%w: %s", ErrMissingTensor, s.name)
		}
		value, err := v.Value()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrGraph, s.name, err)
		}
		data, err := tensors.CopyFlatData[float32](value)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrGraph, s.name, err)
		}
		out[s.name] = hostTensor{shape: slices.Clone(s.shape), data: data}
	}
	return out, nil
}

// readBounded reads a file, failing with ErrBadCheckpoint when it is larger
// than limit bytes (never reading more than limit+1 of them).
func readBounded(path string, limit int64) ([]byte, error) {
	data, err := fsutil.ReadFile(path, limit)
	if errors.Is(err, fsutil.ErrTooLarge) {
		return nil, fmt.Errorf("%w: %s is more than the %d bytes this model can need", ErrBadCheckpoint, path, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadCheckpoint, err)
	}
	return data, nil
}
