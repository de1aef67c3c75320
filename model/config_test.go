package model

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// qwen25Config is the config.json of Qwen2.5-0.5B-Instruct.
const qwen25Config = `{
  "architectures": ["Qwen2ForCausalLM"],
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151645,
  "hidden_act": "silu",
  "hidden_size": 896,
  "initializer_range": 0.02,
  "intermediate_size": 4864,
  "max_position_embeddings": 32768,
  "max_window_layers": 21,
  "model_type": "qwen2",
  "num_attention_heads": 14,
  "num_hidden_layers": 24,
  "num_key_value_heads": 2,
  "rms_norm_eps": 1e-06,
  "rope_theta": 1000000.0,
  "sliding_window": 32768,
  "tie_word_embeddings": true,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.43.1",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
}`

func TestParseConfigQwen25(t *testing.T) {
	cfg, err := ParseConfig([]byte(qwen25Config))
	if err != nil {
		t.Fatal(err)
	}
	full := cfg.withDefaults()
	if full.HeadDim != 64 || full.NumKeyValueHeads != 2 || full.RopeTheta != 1e6 || !full.TieWordEmbeddings {
		t.Errorf("parsed %+v", full)
	}
	// Qwen2.5-0.5B has 494,032,768 parameters.
	if got := cfg.NumParameters(); got != 494032768 {
		t.Errorf("NumParameters = %d, want 494032768", got)
	}
	if string(cfg.Extra["eos_token_id"]) != "151645" {
		t.Errorf("Extra lost eos_token_id: %v", cfg.Extra)
	}
	// Writing it back keeps every field.
	out, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var want, got map[string]any
	json.Unmarshal([]byte(qwen25Config), &want)
	json.Unmarshal(out, &got)
	for k, v := range want {
		if g, ok := got[k]; !ok || !jsonEqual(g, v) {
			t.Errorf("%s = %v after round trip, want %v", k, g, v)
		}
	}
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestConfigDefaults(t *testing.T) {
	full := Config{VocabSize: 10, HiddenSize: 8, NumHiddenLayers: 1, NumAttentionHeads: 2, IntermediateSize: 4}.withDefaults()
	want := Config{VocabSize: 10, HiddenSize: 8, NumHiddenLayers: 1, NumAttentionHeads: 2, IntermediateSize: 4,
		NumKeyValueHeads: 2, HeadDim: 4, RMSNormEps: 1e-6, RopeTheta: 10000, MaxPositionEmbeddings: 32768,
		InitializerRange: 0.02, HiddenAct: "silu", ModelType: "qwen2"}
	if !equalConfigs(full, want) {
		t.Errorf("defaults %+v, want %+v", full, want)
	}
}

func TestParseConfigErrors(t *testing.T) {
	base := `"vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 4`
	tests := []struct{ name, json, mentions string }{
		{"not json", `{`, "unexpected end"},
		{"wrong type", `{"vocab_size": "ten"}`, "vocab_size"},
		{"no vocabulary", `{"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 4}`, "vocab_size"},
		{"huge vocabulary", `{` + strings.Replace(base, `"vocab_size": 10`, `"vocab_size": 99999999999`, 1) + `}`, "vocab_size"},
		{"kv heads do not divide", `{` + base + `, "num_key_value_heads": 3}`, "num_key_value_heads"},
		{"odd head width", `{"vocab_size": 10, "hidden_size": 6, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 4}`, "head dimension"},
		{"negative eps", `{` + base + `, "rms_norm_eps": -1}`, "rms_norm_eps"},
		{"gelu", `{` + base + `, "hidden_act": "gelu"}`, "hidden_act"},
		{"llama", `{` + base + `, "model_type": "llama"}`, "model_type"},
		{"rope scaling", `{` + base + `, "rope_scaling": {"type": "yarn", "factor": 4}}`, "rope_scaling"},
		{"sliding window", `{` + base + `, "use_sliding_window": true}`, "use_sliding_window"},
		{"too big", `{"x": "` + strings.Repeat("a", maxConfigFileBytes) + `"}`, "bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tc.json))
			if !errors.Is(err, ErrBadConfig) {
				t.Fatalf("err = %v, want ErrBadConfig", err)
			}
			if !strings.Contains(err.Error(), tc.mentions) {
				t.Errorf("err = %v, want it to mention %q", err, tc.mentions)
			}
		})
	}
	if _, err := ParseConfig([]byte(`{` + base + `, "rope_scaling": null, "use_sliding_window": false}`)); err != nil {
		t.Errorf("null rope_scaling and false use_sliding_window: %v", err)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	if _, err := New(Config{VocabSize: 10}, 1, Options{}); !errors.Is(err, ErrBadConfig) {
		t.Fatalf("err = %v, want ErrBadConfig", err)
	}
}

func TestNewIsSeeded(t *testing.T) {
	a, _ := New(tinyConfig(), 11, Options{})
	b, _ := New(tinyConfig(), 11, Options{})
	c, _ := New(tinyConfig(), 12, Options{})
	assertSameWeights(t, a, b, 0)
	wa, wc := hostWeightsOf(t, a), hostWeightsOf(t, c)
	if wa["model.embed_tokens.weight"].data[0] == wc["model.embed_tokens.weight"].data[0] {
		t.Error("different seeds gave the same first weight")
	}
	if wa["model.norm.weight"].data[0] != 1 || wa["model.layers.0.self_attn.q_proj.bias"].data[0] != 0 {
		t.Error("norm scales must start at one and biases at zero")
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(qwen25Config))
	f.Add([]byte(`{"vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 4}`))
	f.Add([]byte(`{"rope_scaling": {"type": "linear"}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseConfig(data)
		if err != nil {
			if !errors.Is(err, ErrBadConfig) {
				t.Fatalf("error %v does not wrap ErrBadConfig", err)
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("parsed config fails validation: %v", err)
		}
		// A valid config survives a round trip unchanged.
		out, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseConfig(out)
		if err != nil {
			t.Fatalf("re-parsing %s: %v", out, err)
		}
		if !equalConfigs(again.withDefaults(), cfg.withDefaults()) {
			t.Fatalf("round trip changed %+v into %+v", cfg, again)
		}
	})
}
