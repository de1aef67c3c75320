package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/org/agentevolver/internal/fsutil"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/tokenizer"
	"github.com/org/agentevolver/trainer"
)

func init() {
	register(command{
		name:    "plan",
		summary: "estimate the device memory a training configuration needs and say whether it fits",
		run:     runPlan,
	})
}

// assumedVocab is the vocabulary a plan assumes when neither the model's
// config.json nor a tokenizer can be read: Qwen2.5's (7B and larger).
const assumedVocab = 152064

func runPlan(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, `Usage: agentevolver plan --config FILE --device-memory SIZE [--devices N] [--dtype f32|bf16] [--lora-r R] [--seq-len T] [--concurrency C]

Prints the memory one device needs to train the configuration (the format
of "agentevolver train --config"): parameters, master weights, gradients,
AdamW's two moments, the reference policy, the sampler's weight copies
(rollout.weight_dtype), training activations, the rollout KV cache and
prefill attention, each with its formula, then what would fit, and on the
last line "fits" or "does not fit".

The settings are the configuration's (actor.dtype, actor.lora,
trainer.devices, rollout.engine: with remote the servers hold the
rollouts' KV cache); --dtype, --lora-r and --devices override them as
what-ifs. The model is read from model.path's config.json when it is
readable, else built from model.shape.

Flags:`)
		fs.PrintDefaults()
	}
	var configs, sets stringList
	fs.Var(&configs, "config", "YAML configuration file, layered over the defaults (repeatable)")
	fs.Var(&sets, "set", "override one key, for example --set data.max_response_length=4096 (repeatable)")
	devices := fs.Int("devices", 0, "devices the updates run on, data parallel with sharded trainable weights and AdamW moments; 0 means trainer.devices")
	memFlag := fs.String("device-memory", "", "memory of one device, e.g. 141GB (H200), 80GB (H100), 24GiB (required)")
	dtypeFlag := fs.String("dtype", "", "compute precision of activations and KV cache, f32 or bf16; empty means actor.dtype")
	loraR := fs.Int("lora-r", -1, "LoRA rank, 0 for full fine-tuning; -1 means actor.lora.r")
	loraTargets := fs.String("lora-targets", "", "LoRA target modules, comma-separated (q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj) or all; empty means actor.lora.target_modules")
	concurrency := fs.Int("concurrency", 0, "episodes rolled out at once; 0 means rollout.concurrency")
	seqLen := fs.Int("seq-len", 0, "cap training and rollout sequences at this many tokens; 0 means the configuration's")
	vocab := fs.Int("vocab-size", 0, "vocabulary size when model.path has no readable config.json; 0 means 152064 (Qwen2.5) with model.path, the tokenizer's without")
	reserveFlag := fs.String("reserve", "2GB", "memory kept for the runtime itself (CUDA context, XLA workspace)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *memFlag == "" {
		fs.Usage()
		return errors.New("--device-memory is required")
	}
	mem, err := parseByteSize(*memFlag)
	if err != nil {
		return fmt.Errorf("--device-memory: %w", err)
	}
	reserve, err := parseByteSize(*reserveFlag)
	if err != nil {
		return fmt.Errorf("--reserve: %w", err)
	}
	if *devices < 0 || *loraR < -1 || *seqLen < 0 || *vocab < 0 || *concurrency < 0 {
		return errors.New("--devices, --seq-len, --concurrency and --vocab-size must not be negative, --lora-r not below -1")
	}
	cfg, err := trainer.LoadConfig(configs, sets)
	if err != nil {
		return err
	}
	dtypeName := *dtypeFlag
	if dtypeName == "" {
		dtypeName = cmp.Or(cfg.Actor.DType, "float32")
	}
	dtype, err := model.ParseExportDType(dtypeName)
	if err != nil {
		return fmt.Errorf("--dtype (or actor.dtype): %w", err)
	}
	if *loraR == -1 {
		*loraR = cfg.Actor.LoRA.R
	}
	targetNames := *loraTargets
	if targetNames == "" {
		targetNames = cmp.Or(strings.Join(cfg.Actor.LoRA.TargetModules, ","), "all")
	}
	targets, err := parseLoRATargets(targetNames)
	if err != nil {
		return err
	}
	if *devices == 0 {
		*devices = max(cfg.Trainer.Devices, 1)
	}
	mc, source, err := planModelConfig(cfg, *vocab)
	if err != nil {
		return err
	}
	s := planSettings{
		dtype: dtype, loraR: *loraR, loraTargets: targets, useKL: cfg.Actor.UseKLLoss,
		microBatch: planMicroBatch(cfg), trainLen: cfg.Data.MaxPromptLength + cfg.Data.MaxResponseLength,
		concurrency: cfg.Rollout.Concurrency, rolloutLen: cfg.Rollout.MaxModelLen, remote: cfg.Rollout.Engine == trainer.EngineRemote,
		devices: *devices, reserve: float64(reserve),
	}
	if s.sampler, err = model.ParseSamplerWeights(cfg.Rollout.WeightDType); err != nil {
		return fmt.Errorf("plan: rollout.weight_dtype: %w", err)
	}
	if *concurrency > 0 {
		s.concurrency = *concurrency
	}
	if *seqLen > 0 {
		s.trainLen, s.rolloutLen = min(s.trainLen, *seqLen), min(s.rolloutLen, *seqLen)
	}
	writePlan(stdout, cfg, mc, source, s, float64(mem))
	return nil
}

// planMicroBatch is the number of samples in one training micro-batch:
// actor.micro_batch_size, else the mini-batch, else the whole step's
// samples.
func planMicroBatch(cfg trainer.Config) int {
	whole := cfg.Data.TrainBatchSize * max(cfg.Rollout.N, 1)
	return cmp.Or(cfg.Actor.MicroBatchSize, cfg.Actor.PPOMiniBatchSize, whole, 1)
}

// planModelConfig returns the model a configuration trains and where its
// sizes came from.
func planModelConfig(cfg trainer.Config, vocabFlag int) (model.Config, string, error) {
	if p := cfg.Model.Path; p != "" {
		dir, err := cfg.Model.Dir()
		if err != nil {
			return model.Config{}, "", err
		}
		raw, err := fsutil.ReadFile(filepath.Join(dir, model.ConfigFile), 1<<20)
		if err == nil {
			mc, err := model.ParseConfig(raw)
			if err != nil {
				return model.Config{}, "", err
			}
			return withConfigDefaults(mc), "model.path " + p, nil
		}
	}
	sh := cfg.Model.Shape
	vocab, vsrc := vocabFlag, "--vocab-size"
	switch {
	case vocab > 0:
	case cfg.Model.Path != "":
		// The checkpoint's embedding decides, whatever the tokenizer.
		vocab, vsrc = assumedVocab, "an assumption (Qwen2.5's; set --vocab-size)"
	default:
		vocab, vsrc = planVocab(cfg)
	}
	mc := model.Config{VocabSize: vocab, HiddenSize: sh.HiddenSize, NumHiddenLayers: sh.NumLayers,
		NumAttentionHeads: sh.NumHeads, NumKeyValueHeads: sh.NumKVHeads, IntermediateSize: sh.IntermediateSize,
		RopeTheta: sh.RopeTheta, TieWordEmbeddings: sh.TieWordEmbeddings, MaxPositionEmbeddings: sh.MaxPositions}
	if err := mc.Validate(); err != nil {
		return model.Config{}, "", fmt.Errorf("model.shape: %w", err)
	}
	source := "model.shape"
	if cfg.Model.Path != "" {
		source += fmt.Sprintf(" (model.path %s has no readable config.json here)", cfg.Model.Path)
	}
	return withConfigDefaults(mc), fmt.Sprintf("%s, vocab_size %d from %s", source, vocab, vsrc), nil
}

// withConfigDefaults fills c's zero optional sizes (head width, key/value
// heads) as the model does.
func withConfigDefaults(c model.Config) model.Config {
	if c.NumKeyValueHeads == 0 {
		c.NumKeyValueHeads = c.NumAttentionHeads
	}
	if c.HeadDim == 0 {
		c.HeadDim = c.HiddenSize / c.NumAttentionHeads
	}
	return c
}

// planVocab returns the vocabulary a new model of cfg (one without
// model.path) gets, the tokenizer's, and where it came from, falling back
// to assumedVocab.
func planVocab(cfg trainer.Config) (int, string) {
	src := cmp.Or(cfg.Model.Tokenizer, "byte")
	switch src {
	case trainer.TokenizerFromEnv:
		if cfg.Model.TokenizerVocab > 0 {
			return cfg.Model.TokenizerVocab, "model.tokenizer_vocab"
		}
		return tokenizer.DefaultTrainVocabSize, "the learned tokenizer's default size"
	case "byte":
		tok, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
		if err == nil {
			return tok.VocabSize(), "the byte-level tokenizer"
		}
	default:
		if tok, err := tokenizer.Load(src); err == nil {
			return tok.VocabSize(), "the tokenizer in " + src
		}
	}
	return assumedVocab, "an assumption (Qwen2.5's; set --vocab-size)"
}

// writePlan prints the plan; its last line is "fits" or "does not fit".
func writePlan(w io.Writer, cfg trainer.Config, mc model.Config, source string, s planSettings, mem float64) {
	p := computePlan(mc, s)
	fmt.Fprintf(w, "model: %s parameters (hidden %d, %d layers, %d heads / %d kv heads of %d, intermediate %d, vocab %d, tied embeddings %v) from %s\n",
		count(float64(mc.NumParameters())), mc.HiddenSize, mc.NumHiddenLayers, mc.NumAttentionHeads, mc.NumKeyValueHeads,
		mc.HeadDim, mc.IntermediateSize, mc.VocabSize, mc.TieWordEmbeddings, source)
	fmt.Fprintf(w, "settings: %s\n", describeSettings(s))
	fmt.Fprintf(w, "training micro-batch: %d x %d tokens (actor.micro_batch_size; data.max_prompt_length + data.max_response_length)\n", s.microBatch, s.trainLen)
	if s.remote {
		fmt.Fprintf(w, "rollouts: on the servers of rollout.remote (rollout.engine remote)\n")
	} else {
		fmt.Fprintf(w, "rollouts: %d sequences x %d tokens on the first device (rollout.concurrency; rollout.max_model_len)\n", s.concurrency, s.rolloutLen)
	}
	fmt.Fprintf(w, "devices: %d x %s\n", s.devices, formatBytes(mem))
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-18s %10s  %s\n", "per device", "memory", "formula")
	for _, l := range p.lines {
		fmt.Fprintf(w, "%-18s %10s  %s\n", l.name, formatBytes(l.bytes), l.formula)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "what fits on %d x %s (longest sequence, a multiple of 256, for training and rollouts alike):\n", s.devices, formatBytes(mem))
	r := cmp.Or(s.loraR, 16)
	for _, alt := range []struct {
		name  string
		dtype model.ExportDType
		lora  int
	}{
		{"f32, full fine-tuning", model.ExportFloat32, 0},
		{"bf16 compute, full", model.ExportBFloat16, 0},
		{fmt.Sprintf("f32, LoRA r=%d", r), model.ExportFloat32, r},
		{fmt.Sprintf("bf16 compute, LoRA r=%d", r), model.ExportBFloat16, r},
	} {
		a := s
		a.dtype, a.loraR = alt.dtype, alt.lora
		n := maxFittingLength(mc, a, mem)
		state := computePlan(mc, a).state
		switch {
		case n == max(s.trainLen, s.rolloutLen):
			fmt.Fprintf(w, "  %-24s the configured lengths fit (peak %s)\n", alt.name, formatBytes(computePlan(mc, a).peak))
		case n == 0:
			short := a
			short.trainLen, short.rolloutLen = min(a.trainLen, 256), min(a.rolloutLen, 256)
			fmt.Fprintf(w, "  %-24s nothing fits: even 256-token sequences need %s (lasting state %s)\n", alt.name, formatBytes(computePlan(mc, short).peak), formatBytes(state))
		default:
			fmt.Fprintf(w, "  %-24s sequences up to %d tokens (--seq-len %d; lasting state %s)\n", alt.name, n, n, formatBytes(state))
		}
	}
	fmt.Fprintln(w, "  (no setting removes the [heads, T, T] attention scores, which grow with the square of the length: that needs a fused attention the model does not have)")
	fmt.Fprintf(w, "the configuration as given needs %s per device of %s\n", formatBytes(p.peak), formatBytes(mem))
	if p.fits(mem) {
		fmt.Fprintln(w, "fits")
	} else {
		fmt.Fprintln(w, "does not fit")
	}
}

// describeSettings says in words what s assumes.
func describeSettings(s planSettings) string {
	d := "float32 weights, activations and KV cache"
	if s.dtype == model.ExportBFloat16 {
		d = "float32 weights, gradients and moments; bfloat16 compute (activations, KV cache)"
	}
	if s.devices > 1 {
		d += fmt.Sprintf("; updates data parallel over %d devices, trainable weights and AdamW moments sharded", s.devices)
	}
	if s.loraR > 0 {
		d += fmt.Sprintf("; LoRA r=%d on %v (base frozen)", s.loraR, s.loraTargets)
	} else {
		d += "; full fine-tuning (AdamW on every weight)"
	}
	if s.useKL {
		d += "; KL to a reference policy"
	}
	return d
}
