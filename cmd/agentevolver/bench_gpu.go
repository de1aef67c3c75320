package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"

	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/trainer/objective"
	"github.com/org/agentevolver/trainer/optim"
)

func init() {
	register(command{
		name:    "bench-gpu",
		summary: "LoRA train step and generation throughput, peak device memory and plan's prediction (one JSON object; the GPU check's bench)",
		run:     runBenchGPU,
	})
}

// gpuBenchShapes are the model shapes bench-gpu knows: Qwen2.5-0.5B's
// (random weights) and a CI-sized one.
func gpuBenchShapes() map[string]model.Config {
	return map[string]model.Config{
		"qwen2.5-0.5b": {VocabSize: 151936, HiddenSize: 896, NumHiddenLayers: 24, NumAttentionHeads: 14,
			NumKeyValueHeads: 2, IntermediateSize: 4864, RMSNormEps: 1e-6, RopeTheta: 1e6, TieWordEmbeddings: true,
			MaxPositionEmbeddings: 32768},
		"ci": benchShapes()["tiny"].Model,
	}
}

// gpuBenchSettings are bench-gpu's flags.
type gpuBenchSettings struct {
	Shape      string
	Backend    string
	DType      string // "bf16" or "f32"
	LoRAR      int    // 0: full fine-tuning
	Batch      int    // training rows
	SeqLen     int    // training row length
	PromptLen  int    // training prompt columns
	Steps      int    // timed training steps
	GenBatches []int  // generation batch sizes
	GenPrompt  int    // generation prompt length
	GenTokens  int    // new tokens per row
	GenSteps   int    // timed generations per batch size
	Reserve    int64  // plan's runtime reserve
}

// gpuBenchResult is what bench-gpu prints: one JSON object.
type gpuBenchResult struct {
	Backend         string            `json:"backend"`
	Shape           string            `json:"shape"`
	DType           string            `json:"dtype"`
	LoRAR           int               `json:"lora_r"`
	Params          int64             `json:"params"`
	TrainableParams int64             `json:"trainable_params"`
	SetupS          float64           `json:"setup_s"`
	Train           gpuTrainResult    `json:"train"`
	Generate        []gpuGenResult    `json:"generate"`
	Memory          gpuMemoryResult   `json:"memory"`
	Plan            gpuPlanComparison `json:"plan"`
	// Complete is false in the copies --out gets after each phase, so
	// that a run stopped by a time limit leaves what it measured.
	Complete bool `json:"complete"`
}

// gpuTrainResult times the LoRA policy update.
type gpuTrainResult struct {
	Batch         int     `json:"batch"`
	SeqLen        int     `json:"seq_len"`
	TokensPerStep int     `json:"tokens_per_step"`
	FirstStepS    float64 `json:"first_step_s"` // compilation included
	MedianStepS   float64 `json:"median_step_s"`
	TokensPerS    float64 `json:"tokens_per_s"`
	Steps         int     `json:"steps"`
	PGLoss        float64 `json:"pg_loss"`
	GradNorm      float64 `json:"grad_norm"`
}

// gpuGenResult times batched sampling at one batch size.
type gpuGenResult struct {
	Batch      int     `json:"batch"`
	PromptLen  int     `json:"prompt_len"`
	NewTokens  int     `json:"new_tokens"`
	FirstS     float64 `json:"first_s"` // compilation included
	MedianS    float64 `json:"median_s"`
	TokensPerS float64 `json:"tokens_per_s"` // new tokens of all rows
	Steps      int     `json:"steps"`
}

// gpuMemoryResult is the measured device memory.
type gpuMemoryResult struct {
	Source        string `json:"source"`
	BaselineBytes int64  `json:"baseline_bytes"`   // before the model was built
	TrainPeak     int64  `json:"train_peak_bytes"` // during setup and training
	Peak          int64  `json:"peak_bytes"`       // the whole run, generation included
	Error         string `json:"error,omitempty"`
}

// gpuPlanComparison sets plan's prediction for the bench's settings against
// the measured peak.
type gpuPlanComparison struct {
	PredictedPeak int64          `json:"predicted_peak_bytes"`
	ReserveBytes  int64          `json:"reserve_bytes"`
	MeasuredPeak  int64          `json:"measured_peak_bytes"`
	Ratio         float64        `json:"measured_over_predicted"`
	Lines         []gpuPlanEntry `json:"lines"`
}

// gpuPlanEntry is one line of the plan.
type gpuPlanEntry struct {
	Name  string  `json:"name"`
	Bytes float64 `json:"bytes"`
}

func runBenchGPU(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench-gpu", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, `Usage: agentevolver bench-gpu [--shape qwen2.5-0.5b|ci] [--backend xla:cuda] [flags]

Builds a model of the shape with random weights, adds LoRA adapters, and
measures one policy update (forward, PPO-clip loss, backward, gradient
clipping, AdamW on the adapters) in tokens/s, batched sampling in new
tokens/s at each --gen-batch, the peak device memory (nvidia-smi on CUDA,
the Go heap on the pure-Go backends), and plan's predicted peak for the
same settings. Prints one JSON object (docs/gpu.md).

Flags:`)
		fs.PrintDefaults()
	}
	var s gpuBenchSettings
	fs.StringVar(&s.Shape, "shape", "qwen2.5-0.5b", "model shape: qwen2.5-0.5b or ci")
	fs.StringVar(&s.Backend, "backend", "", "GoMLX backend (default $GOMLX_BACKEND or "+model.DefaultBackend+")")
	fs.StringVar(&s.DType, "dtype", "bf16", "compute precision: bf16 or f32")
	fs.IntVar(&s.LoRAR, "lora-r", 16, "LoRA rank on every projection; 0 trains every weight")
	fs.IntVar(&s.Batch, "batch", 8, "training rows")
	fs.IntVar(&s.SeqLen, "seq-len", 512, "training row length in tokens")
	fs.IntVar(&s.PromptLen, "prompt-len", 256, "training prompt columns (the rest is the response)")
	fs.IntVar(&s.Steps, "steps", 5, "timed training steps after one untimed")
	gen := fs.String("gen-batch", "1,64", "generation batch sizes, comma-separated")
	fs.IntVar(&s.GenPrompt, "gen-prompt", 64, "generation prompt length")
	fs.IntVar(&s.GenTokens, "gen-tokens", 64, "new tokens per generated row")
	fs.IntVar(&s.GenSteps, "gen-steps", 2, "timed generations per batch size after one untimed")
	reserve := fs.String("reserve", "2GB", "plan's runtime reserve (CUDA context, XLA workspace)")
	out := fs.String("out", "", "write the JSON here instead of stdout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var err error
	if s.GenBatches, err = parseIntList(*gen); err != nil {
		return fmt.Errorf("bench-gpu: --gen-batch: %w", err)
	}
	if s.Reserve, err = parseByteSize(*reserve); err != nil {
		return fmt.Errorf("bench-gpu: --reserve: %w", err)
	}
	save := func(gpuBenchResult) error { return nil }
	if *out != "" {
		save = func(r gpuBenchResult) error { return writeJSONFile(*out, r) }
	}
	res, err := benchGPU(ctx, s, save)
	if err != nil {
		return err
	}
	if *out != "" {
		return save(res)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// writeJSONFile writes v as indented JSON to path, through a temporary
// file renamed over it, so a reader never sees half a file.
func writeJSONFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// parseIntList parses "1,64" into positive integers.
func parseIntList(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// check validates s and returns the model shape.
func (s gpuBenchSettings) check() (model.Config, error) {
	cfg, ok := gpuBenchShapes()[s.Shape]
	if !ok {
		return model.Config{}, fmt.Errorf("bench-gpu: unknown shape %q (have qwen2.5-0.5b, ci)", s.Shape)
	}
	switch {
	case s.DType != "bf16" && s.DType != "f32":
		return cfg, fmt.Errorf("bench-gpu: --dtype %q: want bf16 or f32", s.DType)
	case s.LoRAR < 0:
		return cfg, errors.New("bench-gpu: --lora-r must not be negative")
	case s.Batch < 1 || s.Steps < 1 || s.GenSteps < 1 || s.GenPrompt < 1 || s.GenTokens < 1:
		return cfg, errors.New("bench-gpu: --batch, --steps, --gen-steps, --gen-prompt and --gen-tokens must be positive")
	case s.PromptLen < 1 || s.PromptLen >= s.SeqLen:
		return cfg, fmt.Errorf("bench-gpu: --prompt-len %d must be in [1, --seq-len %d)", s.PromptLen, s.SeqLen)
	case len(s.GenBatches) == 0:
		return cfg, errors.New("bench-gpu: no --gen-batch")
	}
	return cfg, nil
}

// benchGPU runs the bench-gpu measurements, handing the result so far to
// save after the training and after each generation batch size.
func benchGPU(ctx context.Context, s gpuBenchSettings, save func(gpuBenchResult) error) (gpuBenchResult, error) {
	cfg, err := s.check()
	if err != nil {
		return gpuBenchResult{}, err
	}
	backendName := s.Backend
	if backendName == "" {
		backendName = os.Getenv(model.BackendEnvVar)
	}
	if backendName == "" {
		backendName = model.DefaultBackend
	}
	res := gpuBenchResult{Backend: backendName, Shape: s.Shape, DType: s.DType, LoRAR: s.LoRAR,
		Params: int64(cfg.NumParameters())}

	probe := memoryProbeFor(backendName)
	res.Memory.Source = probe.source()
	sampler := startMemorySampler(probe, 100*time.Millisecond)
	res.Memory.BaselineBytes = sampler.baseline

	began := time.Now()
	backend, err := newGPUBenchBackend(backendName)
	if err != nil {
		sampler.stop()
		return res, err
	}
	defer backend.Finalize()
	dt := dtypes.Float32
	if s.DType == "bf16" {
		dt = dtypes.BFloat16
	}
	m, err := model.New(cfg, 1, model.Options{Backend: backend, ComputeDType: dt})
	if err != nil {
		sampler.stop()
		return res, err
	}
	if s.LoRAR > 0 {
		if err := m.AddLoRA(model.LoRAConfig{R: s.LoRAR}, 1); err != nil {
			sampler.stop()
			return res, err
		}
	}
	for v := range m.Context().IterVariables() {
		if v.Trainable {
			res.TrainableParams += int64(v.Shape().Size())
		}
	}
	step, err := gpuTrainStep(ctx, backend, m, s)
	if err != nil {
		sampler.stop()
		return res, err
	}
	res.SetupS = time.Since(began).Seconds()
	if res.Train, err = timeTrain(ctx, step, s); err != nil {
		sampler.stop()
		return res, fmt.Errorf("bench-gpu: train step: %w", err)
	}
	res.Memory.TrainPeak = sampler.peakNow()
	res.Memory.Peak = res.Memory.TrainPeak
	res.Plan = planForBench(cfg, s, res.Memory)
	if err := save(res); err != nil {
		sampler.stop()
		return res, err
	}
	for _, b := range s.GenBatches {
		g, err := timeGenerate(ctx, m, s, b)
		if err != nil {
			sampler.stop()
			return res, fmt.Errorf("bench-gpu: generation at batch %d: %w", b, err)
		}
		res.Generate = append(res.Generate, g)
		res.Memory.Peak = sampler.peakNow()
		res.Plan = planForBench(cfg, s, res.Memory)
		if err := save(res); err != nil {
			sampler.stop()
			return res, err
		}
	}
	res.Memory.Peak, err = sampler.stop()
	if err != nil {
		res.Memory.Error = err.Error()
	}
	res.Plan = planForBench(cfg, s, res.Memory)
	res.Complete = true
	return res, nil
}

// gpuTrainStepFunc runs one policy update and returns its metrics.
type gpuTrainStepFunc func() (optim.StepMetrics, error)

// gpuTrainStep prepares the policy update the bench times: the trainer's
// HET/PPO loss (clip 0.2/0.28, dual clip 3, token mean) with GRPO-like ±1
// advantages, no KL term, gradient-norm clip 1.0, AdamW (lr 1e-5) on the
// trainable weights (the adapters with LoRA).
func gpuTrainStep(ctx context.Context, backend backends.Backend, m *model.Model, s gpuBenchSettings) (gpuTrainStepFunc, error) {
	policy := optim.ModelPolicy(m)
	u, err := optim.NewUpdater(backend, m.Context(), policy, optim.UpdaterConfig{
		Optimizer:       optim.AdamWConfig{LearningRate: 1e-5, WeightDecay: 0.01},
		Clip:            optim.ClipConfig{MaxGradNorm: 1.0},
		Loss:            objective.PolicyLossConfig{ClipLow: 0.2, ClipHigh: 0.28, DualClip: 3.0, AggMode: objective.TokenMean},
		NoKLLoss:        true,
		NoEntropyMetric: true,
	})
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(5, 6))
	b := &optim.Batch{Tokens: optim.Tokens{PromptLen: s.PromptLen}}
	for i := range s.Batch {
		b.InputIDs = append(b.InputIDs, randomRows(rng, 1, s.SeqLen, m.Config().VocabSize)[0])
		mask := make([]float32, s.SeqLen-s.PromptLen)
		adv := make([]float32, len(mask))
		for j := range mask {
			mask[j], adv[j] = 1, float32(1-2*(i%2))
		}
		b.LossMask = append(b.LossMask, mask)
		b.Advantages = append(b.Advantages, adv)
	}
	if b.OldLogProbs, err = u.LogProbs(ctx, &b.Tokens); err != nil {
		return nil, err
	}
	return func() (optim.StepMetrics, error) {
		ms, err := u.Update(ctx, b)
		if err != nil {
			return optim.StepMetrics{}, err
		}
		if len(ms) == 0 {
			return optim.StepMetrics{}, errors.New("update made no step")
		}
		return ms[len(ms)-1], nil
	}, nil
}

// timeTrain runs one untimed step, then s.Steps timed ones.
func timeTrain(ctx context.Context, step gpuTrainStepFunc, s gpuBenchSettings) (gpuTrainResult, error) {
	r := gpuTrainResult{Batch: s.Batch, SeqLen: s.SeqLen, TokensPerStep: s.Batch * s.SeqLen, Steps: s.Steps}
	times := make([]time.Duration, 0, s.Steps+1)
	for i := range s.Steps + 1 {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		start := time.Now()
		ms, err := step()
		if err != nil {
			return r, err
		}
		times = append(times, time.Since(start))
		if i == s.Steps {
			r.PGLoss, r.GradNorm = ms.PGLoss, ms.GradNorm
		}
	}
	r.FirstStepS = times[0].Seconds()
	r.MedianStepS = medianDuration(times[1:]).Seconds()
	r.TokensPerS = float64(r.TokensPerStep) / r.MedianStepS
	return r, nil
}

// timeGenerate samples batch rows of s.GenTokens new tokens after random
// prompts of s.GenPrompt tokens (temperature 1, no stop token): one
// untimed generation, then s.GenSteps timed ones.
func timeGenerate(ctx context.Context, m *model.Model, s gpuBenchSettings, batch int) (gpuGenResult, error) {
	r := gpuGenResult{Batch: batch, PromptLen: s.GenPrompt, NewTokens: s.GenTokens, Steps: s.GenSteps}
	prompts := randomRows(rand.New(rand.NewPCG(7, uint64(batch))), batch, s.GenPrompt, m.Config().VocabSize)
	times := make([]time.Duration, 0, s.GenSteps+1)
	for i := range s.GenSteps + 1 {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		start := time.Now()
		gens, err := m.Generate(ctx, prompts, model.SampleOptions{MaxTokens: s.GenTokens, Temperature: 1, Seed: uint64(i + 1)})
		if err != nil {
			return r, err
		}
		if len(gens) != batch {
			return r, fmt.Errorf("%d generations for %d prompts", len(gens), batch)
		}
		times = append(times, time.Since(start))
	}
	r.FirstS = times[0].Seconds()
	r.MedianS = medianDuration(times[1:]).Seconds()
	r.TokensPerS = float64(batch*s.GenTokens) / r.MedianS
	return r, nil
}

// medianDuration returns the median of ts (not empty).
func medianDuration(ts []time.Duration) time.Duration {
	ts = slices.Clone(ts)
	slices.Sort(ts)
	if len(ts)%2 == 1 {
		return ts[len(ts)/2]
	}
	return (ts[len(ts)/2-1] + ts[len(ts)/2]) / 2
}

// planForBench is plan's prediction for the bench's settings: one device,
// the training micro-batch of the bench, in-process rollouts of the
// largest generation batch, no KL reference; set against the measured
// peak above the baseline.
func planForBench(cfg model.Config, s gpuBenchSettings, mem gpuMemoryResult) gpuPlanComparison {
	dtype := model.ExportFloat32
	if s.DType == "bf16" {
		dtype = model.ExportBFloat16
	}
	full := withConfigDefaults(cfg)
	p := computePlan(full, planSettings{
		dtype: dtype, loraR: s.LoRAR, loraTargets: model.LoRAModules, microBatch: s.Batch, trainLen: s.SeqLen,
		concurrency: slices.Max(s.GenBatches), rolloutLen: s.GenPrompt + s.GenTokens, devices: 1, reserve: float64(s.Reserve),
	})
	c := gpuPlanComparison{PredictedPeak: int64(p.peak), ReserveBytes: s.Reserve}
	for _, l := range p.lines {
		c.Lines = append(c.Lines, gpuPlanEntry{Name: l.name, Bytes: l.bytes})
	}
	if mem.Peak > 0 {
		c.MeasuredPeak = max(mem.Peak-mem.BaselineBytes, 0)
		if c.PredictedPeak > 0 {
			c.Ratio = float64(c.MeasuredPeak) / float64(c.PredictedPeak)
		}
	}
	return c
}
