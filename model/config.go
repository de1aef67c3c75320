package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Config describes a Qwen2-family decoder. Field names follow the Hugging
// Face config.json of Qwen2ForCausalLM, so a checkpoint's config.json
// decodes into it directly. Zero values of the optional fields mean the
// Hugging Face defaults (see each field).
type Config struct {
	// VocabSize is the number of token ids (embedding rows).
	VocabSize int `json:"vocab_size"`
	// HiddenSize is the width of the residual stream.
	HiddenSize int `json:"hidden_size"`
	// NumHiddenLayers is the number of decoder blocks.
	NumHiddenLayers int `json:"num_hidden_layers"`
	// NumAttentionHeads is the number of query heads.
	NumAttentionHeads int `json:"num_attention_heads"`
	// NumKeyValueHeads is the number of key/value heads (grouped-query
	// attention); 0 means NumAttentionHeads.
	NumKeyValueHeads int `json:"num_key_value_heads,omitempty"`
	// IntermediateSize is the width of the SwiGLU MLP.
	IntermediateSize int `json:"intermediate_size"`
	// HeadDim is the width of one attention head; 0 means
	// HiddenSize/NumAttentionHeads (Qwen2 does not write it).
	HeadDim int `json:"head_dim,omitempty"`
	// RMSNormEps is the epsilon of every RMSNorm; 0 means 1e-6.
	RMSNormEps float64 `json:"rms_norm_eps,omitempty"`
	// RopeTheta is the rotary base; 0 means 10000.
	RopeTheta float64 `json:"rope_theta,omitempty"`
	// TieWordEmbeddings makes the output head reuse the input embedding
	// matrix (no lm_head.weight tensor).
	TieWordEmbeddings bool `json:"tie_word_embeddings"`
	// MaxPositionEmbeddings bounds sequence lengths; 0 means 32768.
	MaxPositionEmbeddings int `json:"max_position_embeddings,omitempty"`
	// InitializerRange is the standard deviation of the random
	// initialisation of New; 0 means 0.02.
	InitializerRange float64 `json:"initializer_range,omitempty"`
	// HiddenAct is the MLP activation; only "silu" (the default) exists in
	// this family.
	HiddenAct string `json:"hidden_act,omitempty"`
	// ModelType is "qwen2" or empty.
	ModelType string `json:"model_type,omitempty"`

	// Extra keeps the config.json fields this package does not interpret
	// (token ids, architectures, torch_dtype, ...) so that Save writes them
	// back unchanged.
	Extra map[string]json.RawMessage `json:"-"`
}

// Limits that keep a hostile config.json from asking for absurd
// allocations; real Qwen2 checkpoints are far below them.
const (
	maxVocabSize        = 1 << 22
	maxHiddenSize       = 1 << 16
	maxLayers           = 1 << 10
	maxHeads            = 1 << 10
	maxConfigFileBytes  = 1 << 20
	defaultMaxPositions = 32768
)

// ParseConfig decodes a Hugging Face config.json and validates it.
// Unsupported variants (sliding-window attention, rope scaling, other
// activations or model types) are rejected with ErrBadConfig rather than
// silently computed wrong.
func ParseConfig(data []byte) (Config, error) {
	if len(data) > maxConfigFileBytes {
		return Config{}, fmt.Errorf("%w: config.json is %d bytes, more than %d", ErrBadConfig, len(data), maxConfigFileBytes)
	}
	var cfg Config
	if err := json.Unmarshal(data, &cfg); err != nil {
		return Config{}, fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return Config{}, fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	for _, known := range configKeys() {
		delete(all, known)
	}
	if len(all) > 0 {
		cfg.Extra = all
	}
	if err := cfg.checkUnsupported(); err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// configKeys lists the JSON names of Config's interpreted fields.
func configKeys() []string {
	return []string{"vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
		"num_key_value_heads", "intermediate_size", "head_dim", "rms_norm_eps", "rope_theta",
		"tie_word_embeddings", "max_position_embeddings", "initializer_range", "hidden_act", "model_type"}
}

// checkUnsupported rejects Extra fields that would change the computation.
func (c Config) checkUnsupported() error {
	isSet := func(key string) bool {
		raw, ok := c.Extra[key]
		if !ok {
			return false
		}
		raw = bytes.TrimSpace(raw)
		return !bytes.Equal(raw, []byte("null")) && !bytes.Equal(raw, []byte("false"))
	}
	for _, key := range []string{"rope_scaling", "use_sliding_window"} {
		if isSet(key) {
			return fmt.Errorf("%w: %s is not supported", ErrBadConfig, key)
		}
	}
	return nil
}

// MarshalJSON writes the config as a Hugging Face config.json: the
// interpreted fields with defaults filled in, plus Extra.
func (c Config) MarshalJSON() ([]byte, error) {
	type plain Config // drops the methods, so no recursion
	known, err := json.Marshal(plain(c.withDefaults()))
	if err != nil {
		return nil, err
	}
	if len(c.Extra) == 0 {
		return known, nil
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(known, &all); err != nil {
		return nil, err
	}
	for _, k := range slices.Sorted(maps.Keys(c.Extra)) {
		if _, clash := all[k]; !clash {
			all[k] = c.Extra[k]
		}
	}
	return json.Marshal(all)
}

// withDefaults returns c with its zero optional fields set to their
// defaults.
func (c Config) withDefaults() Config {
	if c.NumKeyValueHeads == 0 {
		c.NumKeyValueHeads = c.NumAttentionHeads
	}
	if c.HeadDim == 0 && c.NumAttentionHeads > 0 {
		c.HeadDim = c.HiddenSize / c.NumAttentionHeads
	}
	if c.RMSNormEps == 0 {
		c.RMSNormEps = 1e-6
	}
	if c.RopeTheta == 0 {
		c.RopeTheta = 10000
	}
	if c.MaxPositionEmbeddings == 0 {
		c.MaxPositionEmbeddings = defaultMaxPositions
	}
	if c.InitializerRange == 0 {
		c.InitializerRange = 0.02
	}
	if c.HiddenAct == "" {
		c.HiddenAct = "silu"
	}
	if c.ModelType == "" {
		c.ModelType = "qwen2"
	}
	return c
}

// Validate reports, wrapped in ErrBadConfig, the first inconsistency of c
// (after defaults): non-positive or absurd sizes, heads that do not divide
// evenly, an odd head width, an unknown activation or model type.
func (c Config) Validate() error {
	d := c.withDefaults()
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadConfig}, args...)...)
	}
	switch {
	case d.VocabSize <= 0 || d.VocabSize > maxVocabSize:
		return bad("vocab_size %d outside [1, %d]", d.VocabSize, maxVocabSize)
	case d.HiddenSize <= 0 || d.HiddenSize > maxHiddenSize:
		return bad("hidden_size %d outside [1, %d]", d.HiddenSize, maxHiddenSize)
	case d.NumHiddenLayers <= 0 || d.NumHiddenLayers > maxLayers:
		return bad("num_hidden_layers %d outside [1, %d]", d.NumHiddenLayers, maxLayers)
	case d.NumAttentionHeads <= 0 || d.NumAttentionHeads > maxHeads:
		return bad("num_attention_heads %d outside [1, %d]", d.NumAttentionHeads, maxHeads)
	case d.NumKeyValueHeads <= 0 || d.NumKeyValueHeads > d.NumAttentionHeads:
		return bad("num_key_value_heads %d outside [1, num_attention_heads=%d]", d.NumKeyValueHeads, d.NumAttentionHeads)
	case d.NumAttentionHeads%d.NumKeyValueHeads != 0:
		return bad("num_attention_heads %d is not a multiple of num_key_value_heads %d", d.NumAttentionHeads, d.NumKeyValueHeads)
	case d.HeadDim <= 0 || d.HeadDim%2 != 0 || d.HeadDim > maxHiddenSize:
		return bad("head dimension %d must be even and positive (hidden_size %d / num_attention_heads %d)", d.HeadDim, d.HiddenSize, d.NumAttentionHeads)
	case d.IntermediateSize <= 0 || d.IntermediateSize > 16*maxHiddenSize:
		return bad("intermediate_size %d outside [1, %d]", d.IntermediateSize, 16*maxHiddenSize)
	case !(d.RMSNormEps > 0 && d.RMSNormEps < 1):
		return bad("rms_norm_eps %g outside (0, 1)", d.RMSNormEps)
	case !(d.RopeTheta > 1):
		return bad("rope_theta %g must be > 1", d.RopeTheta)
	case d.MaxPositionEmbeddings <= 0:
		return bad("max_position_embeddings %d must be positive", d.MaxPositionEmbeddings)
	case !(d.InitializerRange > 0):
		return bad("initializer_range %g must be positive", d.InitializerRange)
	case d.HiddenAct != "silu":
		return bad("hidden_act %q is not supported (want silu)", d.HiddenAct)
	case d.ModelType != "qwen2":
		return bad("model_type %q is not supported (want qwen2)", d.ModelType)
	}
	return nil
}

// NumParameters returns the number of scalar weights of a model with this
// configuration.
func (c Config) NumParameters() int {
	n := 0
	for _, s := range c.withDefaults().tensorSpecs() {
		n += s.size()
	}
	return n
}
