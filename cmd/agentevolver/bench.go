package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gomlx/gomlx/backends"

	"github.com/org/agentevolver/internal/gobackend"
	"github.com/org/agentevolver/model"
)

func init() {
	register(command{
		name:    "bench",
		summary: "measure throughput: bench <what> --model tiny|small|mainjob|qwen05b, or bench rollout (one JSON line)",
		run:     runBench,
	})
}

// benchShape is one model of testdata/bench/models.json with the batch
// shape its benchmarks use.
type benchShape struct {
	Model     model.Config
	BatchSize int
	SeqLen    int
	PromptLen int
	GenTokens int
}

// benchShapes returns the benchmark shapes by name: those of
// testdata/bench/models.json (shared with the PyTorch benchmark), and the
// two of the team's llama.cpp decode comparison (the GGUF generator's
// SHAPE mainjob and qwen05b, docs/benchmarks.md), one stream each.
func benchShapes() map[string]benchShape {
	return map[string]benchShape{
		"tiny": {
			Model: model.Config{VocabSize: 512, HiddenSize: 64, NumHiddenLayers: 2, NumAttentionHeads: 4,
				NumKeyValueHeads: 2, IntermediateSize: 192, RMSNormEps: 1e-6, RopeTheta: 10000},
			BatchSize: 8, SeqLen: 128, PromptLen: 64, GenTokens: 64,
		},
		"small": {
			Model: model.Config{VocabSize: 4096, HiddenSize: 256, NumHiddenLayers: 4, NumAttentionHeads: 8,
				NumKeyValueHeads: 4, IntermediateSize: 768, RMSNormEps: 1e-6, RopeTheta: 10000},
			BatchSize: 8, SeqLen: 256, PromptLen: 128, GenTokens: 64,
		},
		// The main job's policy (2 layers, 128 wide, a 1,024-token
		// vocabulary).
		"mainjob": {
			Model: model.Config{VocabSize: 1024, HiddenSize: 128, NumHiddenLayers: 2, NumAttentionHeads: 4,
				NumKeyValueHeads: 2, IntermediateSize: 384, RMSNormEps: 1e-6, RopeTheta: 10000},
			BatchSize: 1, SeqLen: 256, PromptLen: 32, GenTokens: 128,
		},
		// Qwen2.5-0.5B's dimensions (tied embeddings, as the model has).
		"qwen05b": {
			Model: model.Config{VocabSize: 151936, HiddenSize: 896, NumHiddenLayers: 24, NumAttentionHeads: 14,
				NumKeyValueHeads: 2, IntermediateSize: 4864, RMSNormEps: 1e-6, RopeTheta: 1000000, TieWordEmbeddings: true},
			BatchSize: 1, SeqLen: 64, PromptLen: 32, GenTokens: 32,
		},
	}
}

// benchRun is what one benchmark is given.
type benchRun struct {
	Shape   benchShape
	Backend backends.Backend // the backend the benchmark's model runs on
	Warmup  int              // untimed steps
	Steps   int              // timed steps
	// SamplerWeights is the format of the weights generate samples with
	// (--weights).
	SamplerWeights model.SamplerWeights
}

// benchmark measures one thing. setup prepares a model and returns the
// steps to time.
type benchmark struct {
	summary string
	setup   func(ctx context.Context, r benchRun) (benchSteps, error)
}

// benchSteps is what a benchmark's setup returns: the step to time, how
// many tokens one step processes and, for generation, the same step cut
// after its first new token, whose time is subtracted to give the decode
// rate alone (prefill excluded).
type benchSteps struct {
	step    func() error
	tokens  int
	prefill func() error // nil: no decode rate
	decoded int          // tokens the step decodes after the prefill's
}

// benchmarks holds the benchmarks by name; each bench_<name>.go file
// registers its own from init.
var benchmarks = map[string]benchmark{}

func registerBenchmark(name string, b benchmark) {
	if _, dup := benchmarks[name]; dup {
		panic("agentevolver: duplicate benchmark " + name)
	}
	benchmarks[name] = b
}

// benchResult is the JSON line a benchmark prints.
type benchResult struct {
	Model        string  `json:"model"`
	What         string  `json:"what"`
	TokensPerSec float64 `json:"tokens_per_s"`
	MedianStepS  float64 `json:"median_step_s"`
	Steps        int     `json:"steps"`
	Backend      string  `json:"backend"`
	// The step's shape: rows, prompt tokens, and tokens per row
	// (logprob, train) or generated tokens per row (generate).
	Batch     int `json:"batch"`
	PromptLen int `json:"prompt_len"`
	SeqLen    int `json:"seq_len,omitempty"`
	GenTokens int `json:"gen_tokens,omitempty"`
	// PrefillStepS (generate) is the median time of the same step cut
	// after the first new token, and DecodeTokensPerSec the rate of the
	// tokens decoded after it: (gen_tokens-1)·batch over the difference,
	// the figure to compare with llama.cpp's eval rate.
	PrefillStepS       float64 `json:"prefill_step_s,omitempty"`
	DecodeTokensPerSec float64 `json:"decode_tokens_per_s,omitempty"`
	// Weights is the sampler's weight format (generate), empty for
	// float32.
	Weights string `json:"weights,omitempty"`
}

// medianStep runs step n times and returns the median duration.
func medianStep(ctx context.Context, step func() error, n int) (time.Duration, error) {
	times := make([]time.Duration, n)
	for i := range times {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		start := time.Now()
		if err := step(); err != nil {
			return 0, err
		}
		times[i] = time.Since(start)
	}
	slices.Sort(times)
	median := times[len(times)/2]
	if len(times)%2 == 0 {
		median = (times[len(times)/2-1] + times[len(times)/2]) / 2
	}
	return median, nil
}

func runBench(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	names := make([]string, 0, len(benchmarks))
	for n := range benchmarks {
		names = append(names, n)
	}
	sort.Strings(names)
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: agentevolver bench <%s|rollout> [flags]\n\n", strings.Join(names, "|"))
		for _, n := range names {
			fmt.Fprintf(stderr, "  %-10s %s\n", n, benchmarks[n].summary)
		}
		fmt.Fprintf(stderr, "  %-10s %s\n", "rollout", "toolworld episodes (levels 2-3), many at once, through the in-process policy; --baseline compares (own flags: bench rollout -h)")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	modelName := fs.String("model", "tiny", "model shape: tiny or small (testdata/bench/models.json), mainjob or qwen05b (one stream; the llama.cpp comparison's shapes)")
	batch := fs.Int("batch", 0, "rows per step instead of the shape's (0: the shape's)")
	promptLen := fs.Int("prompt-len", 0, "prompt tokens per row instead of the shape's (0: the shape's)")
	genTokens := fs.Int("gen-tokens", 0, "generated tokens per row (generate) instead of the shape's (0: the shape's)")
	seqLen := fs.Int("seq-len", 0, "tokens per row (logprob, train) instead of the shape's (0: the shape's)")
	backend := fs.String("backend", "", "GoMLX backend (default $GOMLX_BACKEND or "+model.DefaultBackend+")")
	steps := fs.Int("steps", 10, "timed steps; the median is reported")
	warmup := fs.Int("warmup", 2, "untimed warm-up steps")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the timed steps to this file")
	opProfile := fs.Int("op-profile", 0, "time every op of the timed steps (gofast backend) and print the `N` costliest kinds to stderr")
	weights := fs.String("weights", "float32", "weights generate samples with: float32, bfloat16 or int8 (per-row scales; model.SamplerWeights)")
	if len(args) > 0 && isHelpFlag(args[0]) {
		fs.Usage()
		return errHelp
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fs.Usage()
		return errors.New("bench: name what to measure")
	}
	what := args[0]
	if what == "rollout" {
		return runBenchRollout(ctx, args[1:], stdout, stderr)
	}
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	b, ok := benchmarks[what]
	if !ok {
		return fmt.Errorf("bench: unknown benchmark %q (have %s)", what, strings.Join(names, ", "))
	}
	shapes := benchShapes()
	shape, ok := shapes[*modelName]
	if !ok {
		return fmt.Errorf("bench: unknown model %q (have %s)", *modelName, strings.Join(slices.Sorted(maps.Keys(shapes)), ", "))
	}
	if *batch < 0 || *promptLen < 0 || *genTokens < 0 || *seqLen < 0 {
		return fmt.Errorf("bench: --batch, --prompt-len, --gen-tokens and --seq-len must be >= 0")
	}
	shape.BatchSize = cmp.Or(*batch, shape.BatchSize)
	shape.PromptLen = cmp.Or(*promptLen, shape.PromptLen)
	shape.GenTokens = cmp.Or(*genTokens, shape.GenTokens)
	shape.SeqLen = cmp.Or(*seqLen, shape.SeqLen)
	if shape.PromptLen >= shape.SeqLen && what != "generate" {
		return fmt.Errorf("bench: prompt length %d must be below the sequence length %d", shape.PromptLen, shape.SeqLen)
	}
	if *steps < 1 || *warmup < 0 {
		return fmt.Errorf("bench: --steps must be >= 1 and --warmup >= 0")
	}
	if *opProfile < 0 {
		return fmt.Errorf("bench: --op-profile must be >= 0")
	}
	samplerWeights, err := model.ParseSamplerWeights(*weights)
	if err != nil {
		return fmt.Errorf("bench: --weights: %w", err)
	}
	if samplerWeights != model.SamplerFloat32 && what != "generate" {
		return fmt.Errorf("bench: --weights applies to generate only")
	}
	backendName, config, err := benchBackend(*backend, *opProfile)
	if err != nil {
		return err
	}
	be, err := model.NewBackend(config)
	if err != nil {
		return err
	}
	bs, err := b.setup(ctx, benchRun{Shape: shape, Backend: be, Warmup: *warmup, Steps: *steps, SamplerWeights: samplerWeights})
	if err != nil {
		return err
	}
	step, tokens := bs.step, bs.tokens
	for range *warmup {
		if err := step(); err != nil {
			return err
		}
	}
	profiled, _ := be.(opProfiler)
	if profiled != nil {
		profiled.OpProfile() // drops the warm-up's ops
	}
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	median, err := medianStep(ctx, step, *steps)
	if err != nil {
		return err
	}
	if *opProfile > 0 && profiled != nil {
		fmt.Fprintf(stderr, "ops of %d timed steps:\n", *steps)
		if err := gobackend.WriteOpProfile(stderr, profiled.OpProfile(), *opProfile); err != nil {
			return err
		}
	}
	res := benchResult{
		Model: *modelName, What: what, TokensPerSec: float64(tokens) / median.Seconds(),
		MedianStepS: median.Seconds(), Steps: *steps, Backend: backendName,
		Batch: shape.BatchSize, PromptLen: shape.PromptLen, Weights: string(samplerWeights),
	}
	if bs.prefill != nil && bs.decoded > 0 {
		// Timed after the main steps, on the same warm model.
		prefill, err := medianStep(ctx, bs.prefill, *steps)
		if err != nil {
			return err
		}
		res.PrefillStepS = prefill.Seconds()
		if d := median - prefill; d > 0 {
			res.DecodeTokensPerSec = float64(bs.decoded) / d.Seconds()
		}
	}
	if what == "generate" {
		res.GenTokens = shape.GenTokens
	} else {
		res.SeqLen = shape.SeqLen
	}
	return json.NewEncoder(stdout).Encode(res)
}

// opProfiler is the gofast backend's op profile (its opprofile option).
type opProfiler interface {
	OpProfile() []gobackend.OpProfileRow
}

// benchBackend resolves a bench's backend name (the flag, else
// $GOMLX_BACKEND, else the default) and the configuration to create it
// with: the name, plus the opprofile option when opProfile > 0.
func benchBackend(flag string, opProfile int) (name, config string, err error) {
	name = flag
	if name == "" {
		name = os.Getenv(model.BackendEnvVar)
	}
	if name == "" {
		name = model.DefaultBackend
	}
	config = name
	if opProfile > 0 {
		if config, err = withOpProfile(config); err != nil {
			return "", "", err
		}
	}
	return name, config, nil
}

// withOpProfile adds the opprofile option to a gofast backend
// configuration ("gofast" or "gofast:options").
func withOpProfile(config string) (string, error) {
	name, options, _ := strings.Cut(config, ":")
	if name != gobackend.BackendName {
		return "", fmt.Errorf("bench: --op-profile needs the %s backend, not %q", gobackend.BackendName, name)
	}
	if options == "" {
		return name + ":opprofile", nil
	}
	return name + ":" + options + ",opprofile", nil
}
