package model

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/org/agentevolver/tokenizer"
)

// exportLogProbsBatch is a batch whose log-probs depend on every weight.
func exportLogProbsBatch(vocab int) Batch {
	rng := rand.New(rand.NewPCG(7, 7))
	return Batch{Tokens: Tokens{InputIDs: [][]int{randomIDs(rng, 9, vocab), randomIDs(rng, 9, vocab)}, PromptLen: 3}}
}

func TestExportRoundTrip(t *testing.T) {
	tied := tinyConfig()
	tied.TieWordEmbeddings = true
	for _, tc := range []struct {
		name     string
		cfg      Config
		dtype    ExportDType
		maxShard int64
		shards   int
	}{
		{"f32 one file", tinyConfig(), ExportFloat32, 0, 1},
		{"f32 sharded", tinyConfig(), ExportFloat32, 4 << 10, 0},
		{"f32 tied sharded", tied, "", 4 << 10, 0},
		{"bf16 one file", tinyConfig(), ExportBFloat16, 0, 1},
		{"bf16 sharded", tinyConfig(), ExportBFloat16, 2 << 10, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			m := newTestModel(t, tc.cfg, 3)
			dir := t.TempDir()
			res, err := m.Export(ctx, dir, ExportOptions{DType: tc.dtype, MaxShardBytes: tc.maxShard})
			if err != nil {
				t.Fatal(err)
			}
			if tc.shards == 1 && res.Shards != 1 || tc.shards == 0 && res.Shards < 2 {
				t.Fatalf("%d shards (files %v)", res.Shards, res.Files)
			}
			loaded, err := Load(ctx, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := m
			if tc.dtype == ExportBFloat16 {
				want = roundedToBFloat16(t, m)
			}
			assertSameWeights(t, loaded, want, 0)
			batch := exportLogProbsBatch(tc.cfg.VocabSize)
			got, ref := mustLogProbs(t, loaded, batch), mustLogProbs(t, want, batch)
			for b := range got.LogProbs {
				if !slices.Equal(got.LogProbs[b], ref.LogProbs[b]) {
					t.Fatalf("row %d: log-probs %v after the round trip, want %v", b, got.LogProbs[b], ref.LogProbs[b])
				}
			}
			if tc.dtype == ExportBFloat16 {
				// bfloat16 keeps 8 bits of mantissa: the exported model
				// stays close to the float32 one.
				orig := mustLogProbs(t, m, batch)
				for b := range got.LogProbs {
					for i := range got.LogProbs[b] {
						if d := math.Abs(float64(got.LogProbs[b][i] - orig.LogProbs[b][i])); d > 0.05*(1+math.Abs(float64(orig.LogProbs[b][i]))) {
							t.Errorf("row %d token %d: bf16 log-prob %g, float32 %g", b, i, got.LogProbs[b][i], orig.LogProbs[b][i])
						}
					}
				}
			}
		})
	}
}

// roundedToBFloat16 returns a copy of m whose weights are m's rounded to
// bfloat16 (and back to float32).
func roundedToBFloat16(t *testing.T, m *Model) *Model {
	t.Helper()
	weights := hostWeightsOf(t, m)
	out := make(map[string]*tensors.Tensor, len(weights))
	for name, w := range weights {
		data := make([]float32, len(w.data))
		for i, v := range w.data {
			data[i] = math.Float32frombits(uint32(bfloat16Bits(v)) << 16)
		}
		out[name] = tensors.FromFlatDataAndDimensions(data, w.shape...)
	}
	r, err := newModel(m.Config(), out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// hfQwen2Names lists, in the order of Hugging Face's
// Qwen2ForCausalLM.state_dict(), the tensor names and shapes of a model
// with cfg's sizes; written out by hand so that a renaming in tensorSpecs
// cannot go unnoticed.
func hfQwen2Names(cfg Config) map[string][]int {
	c := cfg.withDefaults()
	d, q, kv, inter, v := c.HiddenSize, c.NumAttentionHeads*c.HeadDim, c.NumKeyValueHeads*c.HeadDim, c.IntermediateSize, c.VocabSize
	names := map[string][]int{"model.embed_tokens.weight": {v, d}, "model.norm.weight": {d}}
	if !c.TieWordEmbeddings {
		names["lm_head.weight"] = []int{v, d}
	}
	for i := range c.NumHiddenLayers {
		p := fmt.Sprintf("model.layers.%d.", i)
		for name, shape := range map[string][]int{
			"self_attn.q_proj.weight": {q, d}, "self_attn.q_proj.bias": {q},
			"self_attn.k_proj.weight": {kv, d}, "self_attn.k_proj.bias": {kv},
			"self_attn.v_proj.weight": {kv, d}, "self_attn.v_proj.bias": {kv},
			"self_attn.o_proj.weight": {d, q},
			"mlp.gate_proj.weight":    {inter, d}, "mlp.up_proj.weight": {inter, d},
			"mlp.down_proj.weight":   {d, inter},
			"input_layernorm.weight": {d}, "post_attention_layernorm.weight": {d},
		} {
			names[p+name] = shape
		}
	}
	return names
}

// readHeader parses the JSON header of a safetensors file.
func readHeader(t *testing.T, path string) map[string]stHeaderTensor {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(data)
	if (8+n)%8 != 0 {
		t.Errorf("%s: header of %d bytes leaves the data unaligned", path, n)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data[8:8+n], &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw["__metadata__"]) != `{"format":"pt"}` {
		t.Errorf("%s: __metadata__ %s, want format pt (transformers refuses others)", path, raw["__metadata__"])
	}
	delete(raw, "__metadata__")
	out := make(map[string]stHeaderTensor)
	var end int64
	for name, r := range raw {
		var h stHeaderTensor
		if err := json.Unmarshal(r, &h); err != nil {
			t.Fatal(err)
		}
		out[name] = h
		end = max(end, h.DataOffsets[1])
	}
	if int64(len(data)) != 8+int64(n)+end {
		t.Errorf("%s: %d bytes, header describes %d", path, len(data), 8+int64(n)+end)
	}
	return out
}

func TestExportTensorNamesAndIndex(t *testing.T) {
	cfg := tinyConfig()
	m := newTestModel(t, cfg, 1)
	dir := t.TempDir()
	const maxShard = 3 << 10
	res, err := m.Export(context.Background(), dir, ExportOptions{DType: ExportBFloat16, MaxShardBytes: maxShard})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, WeightIndexFile))
	if err != nil {
		t.Fatal(err)
	}
	var index struct {
		Metadata struct {
			TotalSize int64 `json:"total_size"`
		} `json:"metadata"`
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.Unmarshal(raw, &index); err != nil {
		t.Fatal(err)
	}
	want := hfQwen2Names(cfg)
	got := make(map[string][]int)
	var total int64
	for i := range res.Shards {
		file := fmt.Sprintf("model-%05d-of-%05d.safetensors", i+1, res.Shards)
		header := readHeader(t, filepath.Join(dir, file))
		var shardBytes int64
		for name, h := range header {
			if h.DType != "BF16" {
				t.Errorf("%s: dtype %s, want BF16", name, h.DType)
			}
			if index.WeightMap[name] != file {
				t.Errorf("index puts %s in %q, it is in %s", name, index.WeightMap[name], file)
			}
			got[name] = h.Shape
			shardBytes += h.DataOffsets[1] - h.DataOffsets[0]
		}
		if shardBytes > maxShard && len(header) > 1 {
			t.Errorf("%s holds %d bytes of %d tensors, more than the %d bound", file, shardBytes, len(header), maxShard)
		}
		total += shardBytes
	}
	if len(got) != len(want) || len(index.WeightMap) != len(want) {
		t.Errorf("%d tensors in the files, %d in the index, want %d", len(got), len(index.WeightMap), len(want))
	}
	for name, shape := range want {
		if !slices.Equal(got[name], shape) {
			t.Errorf("%s: shape %v, want %v", name, got[name], shape)
		}
	}
	if index.Metadata.TotalSize != total || res.WeightBytes != total || total != 2*int64(cfg.NumParameters()) {
		t.Errorf("total_size %d, result %d, files %d, want %d", index.Metadata.TotalSize, res.WeightBytes, total, 2*cfg.NumParameters())
	}
	if _, err := os.Stat(filepath.Join(dir, WeightsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a sharded export also has %s (err %v)", WeightsFile, err)
	}
}

func TestExportReplacesStaleShards(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	old := newTestModel(t, tinyConfig(), 1)
	if _, err := old.Export(ctx, dir, ExportOptions{MaxShardBytes: 2 << 10}); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, tinyConfig(), 2)
	if _, err := m.Export(ctx, dir, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.safetensors"))
	if len(files) != 1 || filepath.Base(files[0]) != WeightsFile {
		t.Errorf("weight files %v after re-exporting unsharded", files)
	}
	if _, err := os.Stat(filepath.Join(dir, WeightIndexFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old index survived (err %v)", err)
	}
	loaded, err := Load(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	assertSameWeights(t, loaded, m, 0)
}

func TestExportConfigFiles(t *testing.T) {
	corpus := []string{"<|im_start|>user\nopen the door<|im_end|>\n", "<|im_start|>assistant\nthe door is open<|im_end|>\n"}
	tok, err := tokenizer.TrainBPE(corpus, tokenizer.TrainOptions{VocabSize: 300})
	if err != nil {
		t.Fatal(err)
	}
	cfg := tinyConfig()
	cfg.VocabSize = tok.VocabSize() + 5
	cfg.RopeTheta = 1e6
	m := newTestModel(t, cfg, 1)
	dir := t.TempDir()
	if _, err := m.Export(context.Background(), dir, ExportOptions{DType: ExportBFloat16, Tokenizer: tok}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	eos, _ := tokenizer.EOSID(tok)
	bos, _ := tok.TokenID(tokenizer.EndOfText)
	// The keys vLLM's and transformers' Qwen2 configurations read.
	for key, want := range map[string]any{
		"architectures": []any{"Qwen2ForCausalLM"}, "model_type": "qwen2", "torch_dtype": "bfloat16",
		"hidden_size": 16.0, "intermediate_size": 24.0, "num_attention_heads": 4.0, "num_key_value_heads": 2.0,
		"num_hidden_layers": 2.0, "rms_norm_eps": 1e-6, "rope_theta": 1e6, "vocab_size": float64(cfg.VocabSize),
		"max_position_embeddings": 32768.0, "tie_word_embeddings": false, "hidden_act": "silu",
		"bos_token_id": float64(bos), "eos_token_id": float64(eos), "use_sliding_window": false,
	} {
		if fmt.Sprint(got[key]) != fmt.Sprint(want) {
			t.Errorf("config.json %s = %v, want %v", key, got[key], want)
		}
	}
	if _, ok := got["head_dim"]; ok {
		t.Errorf("config.json writes the default head_dim")
	}
	if _, err := ParseConfig(raw); err != nil {
		t.Errorf("the exported config.json does not parse: %v", err)
	}
	var gen map[string]float64
	raw, err = os.ReadFile(filepath.Join(dir, GenerationConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &gen); err != nil {
		t.Fatal(err)
	}
	if gen["eos_token_id"] != float64(eos) || gen["bos_token_id"] != float64(bos) {
		t.Errorf("generation_config.json %v, want eos %d bos %d", gen, eos, bos)
	}
	back, err := tokenizer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Encode(corpus[0]), tok.Encode(corpus[0])) || back.ChatTemplateSource() != tok.ChatTemplateSource() {
		t.Errorf("the exported tokenizer differs")
	}
}

func TestExportRejects(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 1)
	byteTok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts ExportOptions
	}{
		{"dtype", ExportOptions{DType: "float8"}},
		{"shard size", ExportOptions{MaxShardBytes: -1}},
		{"tokenizer without files", ExportOptions{Tokenizer: byteTok}},
		{"generation config", ExportOptions{GenerationConfig: json.RawMessage(`[1]`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if _, err := m.Export(context.Background(), dir, tc.opts); !errors.Is(err, ErrBadInput) {
				t.Fatalf("err %v, want ErrBadInput", err)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a rejected export created %s", dir)
			}
		})
	}
}

func TestBFloat16Bits(t *testing.T) {
	for _, tc := range []struct {
		in   uint32 // float32 bits
		want uint16
	}{
		{0x3f80_0000, 0x3f80}, // 1
		{0xbf80_0000, 0xbf80}, // -1
		{0x0000_0000, 0x0000}, // +0
		{0x8000_0000, 0x8000}, // -0
		{0x3f80_7fff, 0x3f80}, // just below halfway: down
		{0x3f80_8000, 0x3f80}, // halfway, even below: stays
		{0x3f81_8000, 0x3f82}, // halfway, odd below: up to even
		{0x3f80_8001, 0x3f81}, // just above halfway: up
		{0xbf80_8001, 0xbf81}, // negative values round by magnitude
		{0x7f7f_ffff, 0x7f80}, // largest float32 rounds to +Inf
		{0x7f7f_0000, 0x7f7f}, // largest bfloat16 stays
		{0x7f80_0000, 0x7f80}, // +Inf
		{0xff80_0000, 0xff80}, // -Inf
		{0x7fc0_0000, 0x7fc0}, // quiet NaN
		{0x7f80_0001, 0x7fc0}, // signalling NaN whose payload rounding would lose: still NaN
		{0xffff_ffff, 0xffff}, // NaN with every bit set does not wrap
		{0x0000_8000, 0x0000}, // subnormal halfway, even: 0
		{0x0001_8000, 0x0002}, // subnormal halfway, odd: up
		{0x0000_0001, 0x0000}, // smallest subnormal underflows to 0
		{0x4049_0fdb, 0x4049}, // pi: 3.1415927 -> 3.140625
	} {
		if got := bfloat16Bits(math.Float32frombits(tc.in)); got != tc.want {
			t.Errorf("bfloat16Bits(%#08x) = %#04x, want %#04x", tc.in, got, tc.want)
		}
	}
	// Against the definition: the result is a nearest bfloat16, and an even
	// one on ties.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		f := math.Float32frombits(rng.Uint32())
		if f != f || math.IsInf(float64(f), 0) || math.Abs(float64(f)) >= 0x1.fefp127 {
			continue
		}
		got := bfloat16Bits(f)
		down := uint16(math.Float32bits(f) >> 16)
		lo, hi := float64(math.Float32frombits(uint32(down)<<16)), float64(math.Float32frombits(uint32(down+1)<<16))
		dLo, dHi := math.Abs(float64(f)-lo), math.Abs(float64(f)-hi)
		want := down
		if dHi < dLo || dHi == dLo && down&1 == 1 {
			want = down + 1
		}
		if got != want {
			t.Fatalf("bfloat16Bits(%g = %#08x) = %#04x, want %#04x", f, math.Float32bits(f), got, want)
		}
	}
}

func TestParseExportDType(t *testing.T) {
	for in, want := range map[string]ExportDType{"bf16": ExportBFloat16, "BFloat16": ExportBFloat16, "f32": ExportFloat32, "fp32": ExportFloat32, "float32": ExportFloat32} {
		if got, err := ParseExportDType(in); err != nil || got != want {
			t.Errorf("ParseExportDType(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseExportDType("f16"); !errors.Is(err, ErrBadInput) {
		t.Errorf("f16: err %v, want ErrBadInput", err)
	}
}
