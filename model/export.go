package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/org/agentevolver/internal/fsutil"
	"github.com/org/agentevolver/tokenizer"
)

// GenerationConfigFile is the Hugging Face file of default generation
// settings (token ids, sampling defaults) that Export writes.
const GenerationConfigFile = "generation_config.json"

// DefaultMaxShardBytes is the shard size Export uses when
// ExportOptions.MaxShardBytes is 0: Hugging Face's save_pretrained default
// ("5GB", 5·10⁹ bytes).
const DefaultMaxShardBytes int64 = 5_000_000_000

// ExportDType is the floating-point type of exported weights.
type ExportDType string

// Export dtypes. Float32 is exact (the model computes in float32);
// BFloat16 halves the files and is what serving runtimes load Qwen2 in.
const (
	ExportFloat32  ExportDType = "float32"
	ExportBFloat16 ExportDType = "bfloat16"
)

// ParseExportDType reads a dtype as a command line spells it: "f32",
// "fp32" or "float32"; "bf16" or "bfloat16". Anything else is ErrBadInput.
func ParseExportDType(s string) (ExportDType, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "f32", "fp32", "float32":
		return ExportFloat32, nil
	case "bf16", "bfloat16":
		return ExportBFloat16, nil
	}
	return "", fmt.Errorf("%w: dtype %q (want f32 or bf16)", ErrBadInput, s)
}

// info returns the writer's description of d; "" means ExportFloat32.
func (d ExportDType) info() (exportDTypeInfo, error) {
	switch d {
	case "", ExportFloat32:
		return exportDTypeInfo{name: "F32", torchName: "float32", size: 4}, nil
	case ExportBFloat16:
		return exportDTypeInfo{name: "BF16", torchName: "bfloat16", size: 2}, nil
	}
	return exportDTypeInfo{}, fmt.Errorf("%w: export dtype %q", ErrBadInput, string(d))
}

// HFSaver is implemented by tokenizers that can write themselves as
// Hugging Face files (tokenizer.json and tokenizer_config.json with the
// chat template) into a directory; *tokenizer.BPE does.
type HFSaver interface {
	// Save writes the tokenizer's files into dir, creating it if needed.
	Save(dir string) error
}

// ExportOptions configure Export. The zero value writes float32 weights
// in shards of DefaultMaxShardBytes with no tokenizer.
type ExportOptions struct {
	// DType is the type of the written weights; "" means ExportFloat32.
	DType ExportDType
	// MaxShardBytes bounds the tensor bytes of one safetensors file; 0
	// means DefaultMaxShardBytes. A tensor larger than the bound gets a
	// shard of its own, as in Hugging Face.
	MaxShardBytes int64
	// Tokenizer, when not nil, is written beside the weights and must
	// implement HFSaver; its special tokens give config.json's
	// bos_token_id and eos_token_id where the model's configuration has
	// none. Without it the directory is not servable on its own.
	Tokenizer tokenizer.Tokenizer
	// GenerationConfig is the content of generation_config.json (a JSON
	// object, as read from the source checkpoint); nil writes one with
	// the bos, eos and pad token ids only.
	GenerationConfig json.RawMessage
}

// ExportResult describes what Export wrote.
type ExportResult struct {
	// Files are the written files' names, relative to the directory.
	Files []string
	// Shards is the number of safetensors files.
	Shards int
	// WeightBytes is the size of all tensor data (the index's total_size).
	WeightBytes int64
}

// maxGenerationConfigBytes bounds a generation_config.json.
const maxGenerationConfigBytes = 1 << 20

// Export writes the model as a Hugging Face Qwen2ForCausalLM directory
// that serving runtimes (vLLM, transformers) load as is: config.json with
// architectures, torch_dtype and token ids; generation_config.json; the
// tokenizer's files; and the weights as safetensors under the Hugging Face
// names in their [out, in] layout, split into shards named
// model-00001-of-0000N.safetensors with model.safetensors.index.json when
// they exceed opts.MaxShardBytes (one model.safetensors otherwise).
//
// Load reads the result back; with ExportFloat32 the loaded model is
// bit-identical to m, with ExportBFloat16 its weights are m's rounded to
// nearest even. dir is created if needed; each file is written to a
// temporary name and renamed, config.json last, and safetensors files or
// an index left in dir by an earlier, differently sharded export are
// removed so that Load cannot mix them in. Tensors are streamed one at a
// time, so the export needs little memory beyond the model's. A model with
// LoRA adapters is written merged (see MergeLoRA); ExportAdapter writes
// the adapters alone.
func (m *Model) Export(ctx context.Context, dir string, opts ExportOptions) (res ExportResult, err error) {
	if err := ctx.Err(); err != nil {
		return ExportResult{}, err
	}
	dt, err := opts.DType.info()
	if err != nil {
		return ExportResult{}, err
	}
	maxShard := opts.MaxShardBytes
	if maxShard == 0 {
		maxShard = DefaultMaxShardBytes
	}
	if maxShard < 0 {
		return ExportResult{}, fmt.Errorf("%w: MaxShardBytes %d", ErrBadInput, maxShard)
	}
	var saver HFSaver
	if opts.Tokenizer != nil {
		s, ok := opts.Tokenizer.(HFSaver)
		if !ok {
			return ExportResult{}, fmt.Errorf("%w: tokenizer %T cannot write Hugging Face files", ErrBadInput, opts.Tokenizer)
		}
		if opts.Tokenizer.VocabSize() > m.cfg.VocabSize {
			return ExportResult{}, fmt.Errorf("%w: tokenizer has %d ids, the model's vocabulary %d", ErrBadInput, opts.Tokenizer.VocabSize(), m.cfg.VocabSize)
		}
		saver = s
	}
	configJSON, genJSON, err := m.exportConfigs(dt, opts)
	if err != nil {
		return ExportResult{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ExportResult{}, fmt.Errorf("model: export: %w", err)
	}

	shards := planShards(m.cfg.tensorSpecs(), int64(dt.size), maxShard)
	res.Shards = len(shards)
	weightMap := make(map[string]string)
	for i, shard := range shards {
		name := WeightsFile
		if len(shards) > 1 {
			name = fmt.Sprintf("model-%05d-of-%05d.safetensors", i+1, len(shards))
		}
		for _, e := range shard {
			weightMap[e.name] = name
			res.WeightBytes += int64(e.size) * int64(dt.size)
		}
		if err := m.exportShard(ctx, filepath.Join(dir, name), shard, dt); err != nil {
			return ExportResult{}, fmt.Errorf("model: export %s: %w", name, err)
		}
		res.Files = append(res.Files, name)
	}
	if len(shards) > 1 {
		index, err := marshalHFJSON(map[string]any{
			"metadata":   map[string]int64{"total_size": res.WeightBytes},
			"weight_map": weightMap,
		})
		if err != nil {
			return ExportResult{}, fmt.Errorf("model: export index: %w", err)
		}
		if err := fsutil.WriteFile(filepath.Join(dir, WeightIndexFile), index); err != nil {
			return ExportResult{}, fmt.Errorf("model: export: %w", err)
		}
		res.Files = append(res.Files, WeightIndexFile)
	}
	if err := removeStaleWeights(dir, res.Files); err != nil {
		return ExportResult{}, err
	}
	if saver != nil {
		if err := saver.Save(dir); err != nil {
			return ExportResult{}, fmt.Errorf("model: export tokenizer: %w", err)
		}
		res.Files = append(res.Files, "tokenizer.json", "tokenizer_config.json")
	}
	if err := fsutil.WriteFile(filepath.Join(dir, GenerationConfigFile), genJSON); err != nil {
		return ExportResult{}, fmt.Errorf("model: export: %w", err)
	}
	if err := fsutil.WriteFile(filepath.Join(dir, ConfigFile), configJSON); err != nil {
		return ExportResult{}, fmt.Errorf("model: export: %w", err)
	}
	res.Files = append(res.Files, GenerationConfigFile, ConfigFile)
	return res, nil
}

// planShards splits specs, in order, into groups of at most maxBytes
// tensor bytes (elemBytes per value); a tensor larger than maxBytes gets
// a group of its own.
func planShards(specs []tensorSpec, elemBytes, maxBytes int64) [][]stEntry {
	var shards [][]stEntry
	var cur []stEntry
	var curBytes int64
	for _, s := range specs {
		n := int64(s.size()) * elemBytes
		if len(cur) > 0 && curBytes+n > maxBytes {
			shards = append(shards, cur)
			cur, curBytes = nil, 0
		}
		cur = append(cur, stEntry{name: s.name, shape: slices.Clone(s.shape), size: s.size()})
		curBytes += n
	}
	if len(cur) > 0 {
		shards = append(shards, cur)
	}
	return shards
}

// exportShard writes one safetensors file of the model's weights.
func (m *Model) exportShard(ctx context.Context, path string, entries []stEntry, dt exportDTypeInfo) (err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	defer recoverGraphError(&err, "exporting weights")
	return fsutil.WriteFileAtomic(path, func(w io.Writer) error {
		return writeSafetensors(ctx, w, entries, dt, func(name string) (*tensors.Tensor, error) {
			return m.mergedWeight(name) // with its LoRA adapter folded in, if any
		})
	})
}

// removeStaleWeights removes the *.safetensors files and the weight index
// in dir that keep are not: weights of an earlier export that Load would
// otherwise read with (or instead of) the new ones.
func removeStaleWeights(dir string, keep []string) error {
	stale, err := filepath.Glob(filepath.Join(dir, "*.safetensors"))
	if err != nil {
		return fmt.Errorf("model: export: %w", err)
	}
	stale = append(stale, filepath.Join(dir, WeightIndexFile))
	for _, path := range stale {
		if slices.Contains(keep, filepath.Base(path)) {
			continue
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("model: export: removing a stale weight file: %w", err)
		}
	}
	return nil
}

// exportConfigs returns config.json and generation_config.json for an
// export in dt.
func (m *Model) exportConfigs(dt exportDTypeInfo, opts ExportOptions) (configJSON, genJSON []byte, err error) {
	cfg := m.cfg
	cfg.Extra = maps.Clone(m.cfg.Extra)
	if cfg.Extra == nil {
		cfg.Extra = make(map[string]json.RawMessage)
	}
	cfg.Extra["torch_dtype"] = json.RawMessage(`"` + dt.torchName + `"`)
	setDefault := func(key string, value any) {
		if _, ok := cfg.Extra[key]; ok {
			return
		}
		if raw, err := json.Marshal(value); err == nil {
			cfg.Extra[key] = raw
		}
	}
	setDefault("architectures", []string{"Qwen2ForCausalLM"})
	setDefault("use_sliding_window", false)
	ids := exportTokenIDs(opts.Tokenizer)
	if id, ok := ids["bos_token_id"]; ok {
		setDefault("bos_token_id", id)
	}
	if id, ok := ids["eos_token_id"]; ok {
		setDefault("eos_token_id", id)
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("model: export config: %w", err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, nil, fmt.Errorf("model: export config: %w", err)
	}
	// Qwen2 checkpoints do not write head_dim; keep it only where it is not
	// the default, so that runtimes that ignore it compute the same width.
	if cfg.HeadDim == cfg.HiddenSize/cfg.NumAttentionHeads {
		delete(all, "head_dim")
	}
	if configJSON, err = marshalHFJSON(all); err != nil {
		return nil, nil, fmt.Errorf("model: export config: %w", err)
	}

	if opts.GenerationConfig != nil {
		if len(opts.GenerationConfig) > maxGenerationConfigBytes {
			return nil, nil, fmt.Errorf("%w: generation config of %d bytes", ErrBadInput, len(opts.GenerationConfig))
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(opts.GenerationConfig, &obj); err != nil || obj == nil {
			return nil, nil, fmt.Errorf("%w: generation config is not a JSON object: %v", ErrBadInput, err)
		}
		genJSON, err = marshalHFJSON(obj)
	} else {
		gen := make(map[string]json.RawMessage)
		for _, key := range []string{"bos_token_id", "eos_token_id"} {
			if v, ok := all[key]; ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
				gen[key] = v
			}
		}
		if id, ok := ids["pad_token_id"]; ok {
			gen["pad_token_id"] = json.RawMessage(fmt.Sprint(id))
		}
		genJSON, err = marshalHFJSON(gen)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("model: export generation config: %w", err)
	}
	return configJSON, genJSON, nil
}

// exportTokenIDs returns the special token ids tok knows, under their
// config.json names: bos_token_id is Qwen's "<|endoftext|>" (Qwen2 has no
// separate begin-of-sequence token), eos_token_id the end of a turn
// (tokenizer.EOSID), pad_token_id the padding id (tokenizer.PadID).
func exportTokenIDs(tok tokenizer.Tokenizer) map[string]int {
	ids := make(map[string]int)
	if tok == nil {
		return ids
	}
	if id, ok := tok.TokenID(tokenizer.EndOfText); ok {
		ids["bos_token_id"] = id
	}
	if id, ok := tokenizer.EOSID(tok); ok {
		ids["eos_token_id"] = id
	}
	if id, ok := tokenizer.PadID(tok); ok {
		ids["pad_token_id"] = id
	}
	return ids
}

// marshalHFJSON writes v indented, without escaping "<" and ">", with a
// final newline, as Hugging Face writes its JSON files.
func marshalHFJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
