package model

import (
	"fmt"
	"strings"
)

// initKind says how New initialises a tensor.
type initKind int

const (
	initNormal initKind = iota // N(0, initializer_range), as Hugging Face does for Linear and Embedding
	initZeros                  // biases
	initOnes                   // RMSNorm scales
)

// tensorSpec is one weight of the model under its Hugging Face name.
type tensorSpec struct {
	name  string
	shape []int
	init  initKind
}

func (s tensorSpec) size() int {
	n := 1
	for _, d := range s.shape {
		n *= d
	}
	return n
}

// layerPrefix returns the Hugging Face name prefix of decoder block i.
func layerPrefix(i int) string { return fmt.Sprintf("model.layers.%d.", i) }

// tensorSpecs lists every weight of the model in a fixed order, under the
// Hugging Face names of Qwen2ForCausalLM. Linear weights keep the
// Hugging Face [out, in] layout. c must have its defaults filled in.
func (c Config) tensorSpecs() []tensorSpec {
	d, hd := c.HiddenSize, c.HeadDim
	qDim, kvDim := c.NumAttentionHeads*hd, c.NumKeyValueHeads*hd
	specs := []tensorSpec{{"model.embed_tokens.weight", []int{c.VocabSize, d}, initNormal}}
	for i := range c.NumHiddenLayers {
		p := layerPrefix(i)
		specs = append(specs,
			tensorSpec{p + "input_layernorm.weight", []int{d}, initOnes},
			tensorSpec{p + "self_attn.q_proj.weight", []int{qDim, d}, initNormal},
			tensorSpec{p + "self_attn.q_proj.bias", []int{qDim}, initZeros},
			tensorSpec{p + "self_attn.k_proj.weight", []int{kvDim, d}, initNormal},
			tensorSpec{p + "self_attn.k_proj.bias", []int{kvDim}, initZeros},
			tensorSpec{p + "self_attn.v_proj.weight", []int{kvDim, d}, initNormal},
			tensorSpec{p + "self_attn.v_proj.bias", []int{kvDim}, initZeros},
			tensorSpec{p + "self_attn.o_proj.weight", []int{d, qDim}, initNormal},
			tensorSpec{p + "post_attention_layernorm.weight", []int{d}, initOnes},
			tensorSpec{p + "mlp.gate_proj.weight", []int{c.IntermediateSize, d}, initNormal},
			tensorSpec{p + "mlp.up_proj.weight", []int{c.IntermediateSize, d}, initNormal},
			tensorSpec{p + "mlp.down_proj.weight", []int{d, c.IntermediateSize}, initNormal},
		)
	}
	specs = append(specs, tensorSpec{"model.norm.weight", []int{d}, initOnes})
	if !c.TieWordEmbeddings {
		specs = append(specs, tensorSpec{"lm_head.weight", []int{c.VocabSize, d}, initNormal})
	}
	return specs
}

// variableScope maps a Hugging Face tensor name to the GoMLX scope and
// variable name that hold it: "model.layers.0.mlp.up_proj.weight" lives in
// scope "/model/layers/0/mlp/up_proj" as variable "weight".
func variableScope(hfName string) (scope, name string) {
	i := strings.LastIndexByte(hfName, '.')
	if i < 0 {
		return "/", hfName
	}
	return "/" + strings.ReplaceAll(hfName[:i], ".", "/"), hfName[i+1:]
}

// hfName is the inverse of variableScope.
func hfName(scope, name string) string {
	scope = strings.Trim(scope, "/")
	if scope == "" {
		return name
	}
	return strings.ReplaceAll(scope, "/", ".") + "." + name
}
