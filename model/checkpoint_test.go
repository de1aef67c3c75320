package model

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nlpodyssey/safetensors"
)

// writeShard writes tensors (converted to dtype F32 or F64) as one
// safetensors file, independently of Save.
func writeShard(t *testing.T, path string, weights map[string]hostTensor, dtype safetensors.DType) {
	t.Helper()
	views := make(map[string]safetensors.TensorView)
	for name, w := range weights {
		var raw []byte
		for _, v := range w.data {
			switch dtype {
			case safetensors.F64:
				raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(float64(v)))
			case safetensors.BF16:
				raw = binary.LittleEndian.AppendUint16(raw, uint16(math.Float32bits(v)>>16))
			default:
				raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
			}
		}
		shape := make([]uint64, len(w.shape))
		for i, d := range w.shape {
			shape[i] = uint64(d)
		}
		view, err := safetensors.NewTensorView(dtype, shape, raw)
		if err != nil {
			t.Fatal(err)
		}
		views[name] = view
	}
	data, err := safetensors.Serialize(views, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeConfig(t *testing.T, dir string, cfg Config) {
	t.Helper()
	data, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ConfigFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func hostWeightsOf(t *testing.T, m *Model) map[string]hostTensor {
	t.Helper()
	w, err := m.hostWeights()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func assertSameWeights(t *testing.T, got, want *Model, tol float64) {
	t.Helper()
	gw, ww := hostWeightsOf(t, got), hostWeightsOf(t, want)
	if len(gw) != len(ww) {
		t.Fatalf("%d tensors, want %d", len(gw), len(ww))
	}
	for name, w := range ww {
		g, ok := gw[name]
		if !ok || !slices.Equal(g.shape, w.shape) {
			t.Fatalf("%s: shape %v, want %v", name, g.shape, w.shape)
		}
		for i := range w.data {
			if !closeTo(float64(g.data[i]), float64(w.data[i]), tol) {
				t.Fatalf("%s[%d] = %g, want %g", name, i, g.data[i], w.data[i])
			}
		}
	}
}

// assertSameLogProbs runs both models on the same batch and requires
// identical results.
func assertSameLogProbs(t *testing.T, got, want *Model) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	batch := Batch{Tokens: Tokens{InputIDs: [][]int{randomIDs(rng, 8, got.Config().VocabSize), randomIDs(rng, 8, got.Config().VocabSize)}, PromptLen: 3}}
	g, w := mustLogProbs(t, got, batch), mustLogProbs(t, want, batch)
	for b := range w.LogProbs {
		if !slices.Equal(g.LogProbs[b], w.LogProbs[b]) {
			t.Fatalf("row %d: log-probs %v, want %v", b, g.LogProbs[b], w.LogProbs[b])
		}
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	for _, tied := range []bool{false, true} {
		cfg := tinyConfig()
		cfg.TieWordEmbeddings = tied
		m := newTestModel(t, cfg, 3)
		m.cfg.Extra = map[string]json.RawMessage{"eos_token_id": json.RawMessage(`151645`)}
		dir := t.TempDir()
		if err := m.Save(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
		loaded, err := Load(context.Background(), dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(loaded.Config().Extra["eos_token_id"]); got != "151645" {
			t.Errorf("eos_token_id = %q after round trip, want 151645", got)
		}
		if got := string(loaded.Config().Extra["torch_dtype"]); got != `"float32"` {
			t.Errorf("torch_dtype = %s, want \"float32\"", got)
		}
		loaded.cfg.Extra, m.cfg.Extra = nil, nil
		if !equalConfigs(loaded.Config(), m.Config()) {
			t.Errorf("config %+v, want %+v", loaded.Config(), m.Config())
		}
		assertSameWeights(t, loaded, m, 0)
		assertSameLogProbs(t, loaded, m)
		names, _ := filepath.Glob(filepath.Join(dir, "*"))
		if len(names) != 2 {
			t.Errorf("checkpoint holds %v, want config.json and model.safetensors only", names)
		}
	}
}

func equalConfigs(a, b Config) bool {
	a.Extra, b.Extra = nil, nil
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// TestLoadSharded writes an index and two shards by hand (one F64, one
// BF16-free F32), plus an unused tensor that must be ignored.
func TestLoadSharded(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 5)
	weights := hostWeightsOf(t, m)
	dir := t.TempDir()
	writeConfig(t, dir, m.Config())
	shards := []map[string]hostTensor{{}, {}}
	index := map[string]string{}
	for i, name := range m.TensorNames() {
		shards[i%2][name] = weights[name]
		index[name] = []string{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}[i%2]
	}
	shards[1]["model.layers.0.self_attn.rotary_emb.inv_freq"] = hostTensor{shape: []int{2}, data: []float32{1, 2}}
	writeShard(t, filepath.Join(dir, "model-00001-of-00002.safetensors"), shards[0], safetensors.F64)
	writeShard(t, filepath.Join(dir, "model-00002-of-00002.safetensors"), shards[1], safetensors.F32)
	raw, _ := json.Marshal(map[string]any{"metadata": map[string]any{"total_size": 1}, "weight_map": index})
	if err := os.WriteFile(filepath.Join(dir, WeightIndexFile), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	assertSameWeights(t, loaded, m, 0)
	assertSameLogProbs(t, loaded, m)
}

// TestLoadBF16 checks the bfloat16 conversion: weights rounded to bf16
// load as those rounded values.
func TestLoadBF16(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 6)
	weights := hostWeightsOf(t, m)
	for name, w := range weights {
		for i, v := range w.data {
			w.data[i] = math.Float32frombits(math.Float32bits(v) &^ 0xffff)
		}
		weights[name] = w
	}
	dir := t.TempDir()
	writeConfig(t, dir, m.Config())
	writeShard(t, filepath.Join(dir, WeightsFile), weights, safetensors.BF16)
	loaded, err := Load(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range hostWeightsOf(t, loaded) {
		if !slices.Equal(w.data, weights[name].data) {
			t.Fatalf("%s: loaded %v, want %v", name, w.data[:4], weights[name].data[:4])
		}
	}
}

func TestLoadErrors(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 7)
	weights := hostWeightsOf(t, m)
	without := func(name string) map[string]hostTensor {
		out := copyWeights(weights)
		delete(out, name)
		return out
	}
	reshaped := copyWeights(weights)
	reshaped["model.layers.1.mlp.up_proj.weight"] = hostTensor{shape: []int{16, 24}, data: make([]float32, 16*24)}

	tests := []struct {
		name     string
		setup    func(t *testing.T, dir string)
		want     error
		mentions string
	}{
		{"missing tensor", func(t *testing.T, dir string) {
			writeConfig(t, dir, m.Config())
			writeShard(t, filepath.Join(dir, WeightsFile), without("model.layers.1.self_attn.k_proj.bias"), safetensors.F32)
		}, ErrMissingTensor, "model.layers.1.self_attn.k_proj.bias"},
		{"wrong shape", func(t *testing.T, dir string) {
			writeConfig(t, dir, m.Config())
			writeShard(t, filepath.Join(dir, WeightsFile), reshaped, safetensors.F32)
		}, ErrTensorMismatch, "model.layers.1.mlp.up_proj.weight"},
		{"config disagrees with weights", func(t *testing.T, dir string) {
			cfg := m.Config()
			cfg.IntermediateSize = 32
			writeConfig(t, dir, cfg)
			writeShard(t, filepath.Join(dir, WeightsFile), weights, safetensors.F32)
		}, ErrTensorMismatch, "mlp"},
		{"no config", func(t *testing.T, dir string) {
			writeShard(t, filepath.Join(dir, WeightsFile), weights, safetensors.F32)
		}, ErrBadCheckpoint, "config.json"},
		{"bad config", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ConfigFile), []byte(`{"vocab_size": 10, "hidden_size": 10, "num_hidden_layers": 1, "num_attention_heads": 3, "intermediate_size": 4}`), 0o644)
		}, ErrBadConfig, "head dimension"},
		{"no weights", func(t *testing.T, dir string) {
			writeConfig(t, dir, m.Config())
		}, ErrBadCheckpoint, "no *.safetensors"},
		{"corrupt weights", func(t *testing.T, dir string) {
			writeConfig(t, dir, m.Config())
			os.WriteFile(filepath.Join(dir, WeightsFile), []byte("\x10\x00\x00\x00\x00\x00\x00\x00{not json}      "), 0o644)
		}, ErrBadCheckpoint, ""},
		{"index escapes the directory", func(t *testing.T, dir string) {
			writeConfig(t, dir, m.Config())
			os.WriteFile(filepath.Join(dir, WeightIndexFile), []byte(`{"weight_map": {"model.norm.weight": "../x.safetensors"}}`), 0o644)
		}, ErrBadCheckpoint, "../x.safetensors"},
		{"index lacks a tensor", func(t *testing.T, dir string) {
			writeConfig(t, dir, m.Config())
			os.WriteFile(filepath.Join(dir, WeightIndexFile), []byte(`{"weight_map": {"model.norm.weight": "a.safetensors"}}`), 0o644)
		}, ErrMissingTensor, "model.embed_tokens.weight"},
		{"integer tensor", func(t *testing.T, dir string) {
			writeConfig(t, dir, m.Config())
			w := copyWeights(weights)
			delete(w, "model.norm.weight")
			writeShard(t, filepath.Join(dir, WeightsFile), w, safetensors.F32)
			view, _ := safetensors.NewTensorView(safetensors.I32, []uint64{16}, make([]byte, 64))
			data, _ := safetensors.Serialize(map[string]safetensors.TensorView{"model.norm.weight": view}, nil)
			os.WriteFile(filepath.Join(dir, "extra.safetensors"), data, 0o644)
		}, ErrTensorMismatch, "model.norm.weight"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			_, err := Load(context.Background(), dir, Options{})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.mentions) {
				t.Errorf("err = %v, want it to mention %q", err, tc.mentions)
			}
		})
	}
}

func copyWeights(in map[string]hostTensor) map[string]hostTensor {
	out := make(map[string]hostTensor, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

func FuzzDecodeSafetensors(f *testing.F) {
	view, _ := safetensors.NewTensorView(safetensors.BF16, []uint64{2, 2}, make([]byte, 8))
	valid, _ := safetensors.Serialize(map[string]safetensors.TensorView{"a": view}, nil)
	f.Add(valid)
	f.Add([]byte("\x02\x00\x00\x00\x00\x00\x00\x00{}"))
	f.Add([]byte(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := decodeSafetensors(data, func(string) ([]int, bool) { return nil, true })
		if err != nil {
			if !errors.Is(err, ErrBadCheckpoint) && !errors.Is(err, ErrTensorMismatch) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		for name, tensor := range out.tensors {
			n := 1
			for _, d := range tensor.shape {
				n *= d
			}
			if n != len(tensor.data) {
				t.Fatalf("%s: shape %v but %d values", name, tensor.shape, len(tensor.data))
			}
		}
	})
}

func FuzzParseWeightIndex(f *testing.F) {
	f.Add([]byte(`{"weight_map": {"a": "model-00001-of-00002.safetensors"}}`))
	f.Add([]byte(`{"weight_map": {"a": "../../etc/passwd"}}`))
	f.Add([]byte(`{"weight_map": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseWeightIndex(data)
		if err != nil {
			if !errors.Is(err, ErrBadCheckpoint) {
				t.Fatalf("error %v does not wrap ErrBadCheckpoint", err)
			}
			return
		}
		for _, file := range m {
			if filepath.Base(file) != file || strings.ContainsAny(file, `/\`) || file == ".." {
				t.Fatalf("accepted shard name %q", file)
			}
		}
	})
}
