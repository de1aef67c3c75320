package model_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/org/agentevolver/model"
)

// Export writes a model as a Hugging Face directory, here in bfloat16 in
// shards of at most 8 kB, and Load reads it back.
func ExampleModel_Export() {
	cfg := model.Config{VocabSize: 64, HiddenSize: 32, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, IntermediateSize: 64}
	m, err := model.New(cfg, 42, model.Options{})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "export")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	res, err := m.Export(ctx, dir, model.ExportOptions{DType: model.ExportBFloat16, MaxShardBytes: 8 << 10})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Shards, "shards,", res.WeightBytes, "bytes of weights")
	fmt.Println(res.Files[0], "...", res.Files[len(res.Files)-3])
	back, err := model.Load(ctx, dir, model.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(back.Config().NumParameters(), "parameters")
	// Output:
	// 7 shards, 45632 bytes of weights
	// model-00001-of-00007.safetensors ... model.safetensors.index.json
	// 22816 parameters
}
