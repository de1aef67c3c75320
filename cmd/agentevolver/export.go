package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/org/agentevolver/internal/fsutil"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/tokenizer"
)

func init() {
	register(command{
		name:    "export",
		summary: "write a policy as a Hugging Face directory that vLLM serves (safetensors, config, tokenizer)",
		run:     runExport,
	})
}

func runExport(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("export", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {
		fmt.Fprintln(stderr, `Usage: agentevolver export --checkpoint DIR --out DIR [--dtype bf16|f32] [--tokenizer DIR] [--shard-size 5GB]

Writes the policy in DIR (a run's final/ or reference/, a checkpoint
step_NNNNNN or its model/, or any Hugging Face Qwen2 directory) to --out as
a Hugging Face Qwen2ForCausalLM directory: config.json,
generation_config.json, tokenizer.json and tokenizer_config.json (with the
chat template), and the weights as safetensors, sharded with
model.safetensors.index.json when larger than --shard-size (weight files
already in OUT are replaced). Serve it with "vllm serve OUT"; check it
against another runtime with "agentevolver score".

Flags:`)
		flags.PrintDefaults()
	}
	checkpoint := flags.String("checkpoint", "", "policy directory to export (required)")
	out := flags.String("out", "", "directory to write (required; created if needed)")
	dtypeFlag := flags.String("dtype", "bf16", "weight type: bf16 (round to nearest even; what vLLM loads Qwen2 in) or f32 (exact)")
	tokDir := flags.String("tokenizer", "", "tokenizer directory (tokenizer.json); default: the checkpoint's own")
	noTok := flags.Bool("no-tokenizer", false, "export without tokenizer files (the result is then not servable on its own)")
	shardFlag := flags.String("shard-size", "5GB", "largest safetensors shard, e.g. 5GB, 500MB, 2GiB")
	if err := parseFlags(flags, args); err != nil {
		return err
	}
	if *checkpoint == "" || *out == "" {
		flags.Usage()
		return errors.New("--checkpoint and --out are required")
	}
	dtype, err := model.ParseExportDType(*dtypeFlag)
	if err != nil {
		return err
	}
	shard, err := parseByteSize(*shardFlag)
	if err != nil {
		return fmt.Errorf("--shard-size: %w", err)
	}
	if shard <= 0 {
		return fmt.Errorf("--shard-size must be positive, got %s", *shardFlag)
	}
	if *noTok && *tokDir != "" {
		return errors.New("--tokenizer and --no-tokenizer exclude each other")
	}
	src, err := resolvePolicyDir(*checkpoint)
	if err != nil {
		return err
	}
	if same, _ := sameDir(src, *out); same {
		return fmt.Errorf("--out %s is the checkpoint itself; export to another directory", *out)
	}
	opts := model.ExportOptions{DType: dtype, MaxShardBytes: shard}
	if !*noTok {
		dir := *tokDir
		if dir == "" {
			dir = src
			if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
				return fmt.Errorf("no tokenizer.json in %s: pass --tokenizer DIR (the tokenizer the policy was trained with) or --no-tokenizer", src)
			}
		}
		tok, err := tokenizer.Load(dir)
		if err != nil {
			return fmt.Errorf("--tokenizer: %w", err)
		}
		opts.Tokenizer = tok
	}
	gen, err := fsutil.ReadFile(filepath.Join(src, model.GenerationConfigFile), 1<<20)
	switch {
	case err == nil:
		opts.GenerationConfig = gen
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", model.GenerationConfigFile, err)
	}
	m, err := model.Load(ctx, src, model.Options{})
	if err != nil {
		return err
	}
	res, err := m.Export(ctx, *out, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported %s (%d parameters) to %s: %d safetensors file(s), %s of %s weights\n",
		src, m.Config().NumParameters(), *out, res.Shards, formatBytes(float64(res.WeightBytes)), dtype)
	return nil
}

// resolvePolicyDir finds the Hugging Face directory (the one with
// config.json) of what a user may name as a policy: the directory itself,
// a trainer checkpoint (its model/) or a run directory (its final/).
func resolvePolicyDir(dir string) (string, error) {
	for _, d := range []string{dir, filepath.Join(dir, "model"), filepath.Join(dir, "final")} {
		if st, err := os.Stat(filepath.Join(d, model.ConfigFile)); err == nil && st.Mode().IsRegular() {
			return d, nil
		}
	}
	return "", fmt.Errorf("%s holds no policy: no config.json in it, in its model/ (a checkpoint) or in its final/ (a run)", dir)
}

// sameDir reports whether a and b name the same existing directory.
func sameDir(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}
