package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/internal/gobackend"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/tokenizer"
	"github.com/org/agentevolver/trainer"
)

// rolloutBenchOptions size a rollout benchmark.
type rolloutBenchOptions struct {
	tasks, n, concurrency int
	maxSteps, maxTokens   int
	temperature           float64
	seed                  int64
	backend               string
	baseline              bool
	cold                  bool
	cpuProfile            string
	opProfile             int
}

// rolloutResult is the JSON line of bench rollout (and, under "baseline",
// of the same episodes without prefix reuse and continuous batching).
type rolloutResult struct {
	What                  string         `json:"what"`
	Mode                  string         `json:"mode"`
	Episodes              int            `json:"episodes"`
	Failed                int            `json:"failed"`
	WallS                 float64        `json:"wall_s"`
	CPUS                  float64        `json:"cpu_s"`
	EpisodesPerCPUS       float64        `json:"episodes_per_cpu_s,omitempty"`
	EpisodesPerS          float64        `json:"episodes_per_s"`
	GeneratedTokensPerS   float64        `json:"generated_tokens_per_s"`
	GeneratedTokens       int            `json:"generated_tokens"`
	PrefillTokens         int            `json:"prefill_tokens"`
	ReusedPrefillTokens   int            `json:"reused_prefill_tokens"`
	PrefillPerGenerated   float64        `json:"prefill_tokens_per_generated_token"`
	PrefillShare          float64        `json:"prefill_share"`
	DecodeShare           float64        `json:"decode_share"`
	LayoutShare           float64        `json:"layout_share"`
	EnvShare              float64        `json:"env_share"`
	DecodeSteps           int            `json:"decode_steps"`
	PrefillCalls          int            `json:"prefill_calls"`
	PrefillPadded         int            `json:"prefill_padded_tokens"`
	RowsPerDecodeStep     float64        `json:"rows_per_decode_step"`
	ComputedRowsPerStep   float64        `json:"computed_rows_per_decode_step"`
	ColumnsPerRow         float64        `json:"cache_columns_per_row"`
	BlocksPerDecodeStep   float64        `json:"blocks_per_decode_step"`
	Compiles              int            `json:"compiles,omitempty"`
	Backend               string         `json:"backend"`
	Baseline              *rolloutResult `json:"baseline,omitempty"`
	SpeedupEpisodesPerSec float64        `json:"speedup_episodes_per_s,omitempty"`
	SpeedupPerCPUS        float64        `json:"speedup_episodes_per_cpu_s,omitempty"`
}

// runBenchRollout is bench rollout: toolworld episodes of levels 2 and 3
// played by a randomly initialised policy of the built-in training shape
// (trainer.DefaultConfig), many at once, as an RL step's rollouts run.
func runBenchRollout(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench rollout", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := trainer.DefaultConfig()
	var o rolloutBenchOptions
	fs.IntVar(&o.tasks, "tasks", 64, "toolworld tasks (levels 2-3) to run")
	fs.IntVar(&o.n, "n", def.Rollout.N, "rollouts per task (a group shares its first prompt)")
	fs.IntVar(&o.concurrency, "concurrency", def.Rollout.Concurrency, "episodes in flight")
	fs.IntVar(&o.maxSteps, "max-steps", def.Rollout.MaxSteps, "policy turns per episode")
	fs.IntVar(&o.maxTokens, "max-tokens", def.Rollout.ResponseLength, "tokens per policy turn")
	fs.Float64Var(&o.temperature, "temperature", def.Rollout.Temperature, "sampling temperature")
	fs.Int64Var(&o.seed, "seed", 1, "seed of the episodes")
	fs.StringVar(&o.backend, "backend", "", "GoMLX backend (default $GOMLX_BACKEND or "+model.DefaultBackend+")")
	fs.BoolVar(&o.baseline, "baseline", false, "also run the episodes without prefix reuse and continuous batching, first")
	fs.BoolVar(&o.cold, "cold", false, "measure the first pass, compilations included (by default each policy first plays other tasks, as at every RL step after the first)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured runs to this file")
	fs.IntVar(&o.opProfile, "op-profile", 0, "time every op of each measured run (gofast backend) and print the `N` costliest kinds to stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if o.tasks < 1 || o.n < 1 || o.concurrency < 1 || o.maxSteps < 1 || o.maxTokens < 1 || o.opProfile < 0 {
		return errors.New("bench rollout: --tasks, --n, --concurrency, --max-steps and --max-tokens must be >= 1, --op-profile >= 0")
	}
	b, err := newRolloutBench(ctx, def, o, stderr)
	if err != nil {
		return err
	}
	defer b.env.Close()
	stop, err := startCPUProfile(o.cpuProfile)
	if err != nil {
		return err
	}
	defer stop()
	var base *rolloutResult
	if o.baseline {
		if base, err = b.run(ctx, model.PolicyOptions{PrefixCacheBytes: -1, NoContinuousBatching: true}, "baseline"); err != nil {
			return err
		}
	}
	res, err := b.run(ctx, model.PolicyOptions{}, "continuous+prefix")
	if err != nil {
		return err
	}
	if base != nil {
		res.Baseline = base
		res.SpeedupEpisodesPerSec = res.EpisodesPerS / base.EpisodesPerS
		if base.EpisodesPerCPUS > 0 {
			res.SpeedupPerCPUS = res.EpisodesPerCPUS / base.EpisodesPerCPUS
		}
	}
	return json.NewEncoder(stdout).Encode(res)
}

// rolloutBench holds what every run of a rollout benchmark shares.
type rolloutBench struct {
	o       rolloutBenchOptions
	def     trainer.Config
	env     *envservice.Manager
	timed   *timedEnv
	tok     *tokenizer.BPE
	tmpl    tokenizer.ChatTemplate
	backend string
	tasks   []agentevolver.Task
	warmup  []agentevolver.Task // other tasks, played first unless cold
	model   *model.Model
	// profiled is the backend's op profile (--op-profile), written to
	// stderr after each measured run; nil without it.
	profiled opProfiler
	stderr   io.Writer
}

func newRolloutBench(ctx context.Context, def trainer.Config, o rolloutBenchOptions, stderr io.Writer) (*rolloutBench, error) {
	tw := def.Env.Toolworld
	world, err := toolworld.New(toolworld.Config{
		Seed: o.seed, Compact: tw.Compact, SystemPrompt: tw.SystemPrompt, MinLevel: 2, MaxLevel: 3,
		TrainSize: 300, ValSize: 1, TestSize: 1,
	})
	if err != nil {
		return nil, fmt.Errorf("bench rollout: %w", err)
	}
	corpus, err := world.Corpus(ctx, toolworld.SplitTrain)
	if err != nil {
		return nil, fmt.Errorf("bench rollout: corpus: %w", err)
	}
	tok, err := tokenizer.TrainBPE(corpus, tokenizer.TrainOptions{VocabSize: def.Model.TokenizerVocab})
	if err != nil {
		return nil, fmt.Errorf("bench rollout: tokenizer: %w", err)
	}
	tmpl, err := tok.ChatTemplate()
	if err != nil {
		return nil, fmt.Errorf("bench rollout: %w", err)
	}
	ids, err := world.TaskIDs(ctx, toolworld.SplitTrain, nil)
	if err != nil {
		return nil, fmt.Errorf("bench rollout: %w", err)
	}
	need := o.tasks
	if !o.cold {
		need = 2 * o.tasks
	}
	if len(ids) < need {
		return nil, fmt.Errorf("bench rollout: %d tasks needed, toolworld lists %d", need, len(ids))
	}
	b := &rolloutBench{o: o, def: def, tok: tok, tmpl: tmpl, env: envservice.NewManager(envservice.ManagerConfig{}), stderr: stderr}
	if err := b.env.Register(toolworld.Name, world); err != nil {
		b.env.Close()
		return nil, fmt.Errorf("bench rollout: %w", err)
	}
	b.timed = &timedEnv{Env: b.env}
	for i, id := range ids[:need] {
		task := agentevolver.Task{TaskID: id, EnvType: toolworld.Name}
		if i < o.tasks {
			b.tasks = append(b.tasks, task)
		} else {
			b.warmup = append(b.warmup, task)
		}
	}
	s := def.Model.Shape
	_, config, err := benchBackend(o.backend, o.opProfile)
	if err != nil {
		b.env.Close()
		return nil, err
	}
	backend, err := model.NewBackend(config)
	if err != nil {
		b.env.Close()
		return nil, err
	}
	b.backend = backend.Name()
	if o.opProfile > 0 {
		b.profiled, _ = backend.(opProfiler)
	}
	b.model, err = model.New(model.Config{
		VocabSize: tok.VocabSize(), HiddenSize: s.HiddenSize, NumHiddenLayers: s.NumLayers, NumAttentionHeads: s.NumHeads,
		NumKeyValueHeads: s.NumKVHeads, IntermediateSize: s.IntermediateSize, RopeTheta: s.RopeTheta,
		MaxPositionEmbeddings: s.MaxPositions, TieWordEmbeddings: s.TieWordEmbeddings,
	}, o.seed, model.Options{Backend: backend})
	if err != nil {
		b.env.Close()
		return nil, fmt.Errorf("bench rollout: %w", err)
	}
	return b, nil
}

// run plays every episode once with a policy of opts over the shared
// model and measures it.
func (b *rolloutBench) run(ctx context.Context, opts model.PolicyOptions, mode string) (*rolloutResult, error) {
	policy, err := model.NewPolicy(b.model, b.tok, b.tmpl, opts)
	if err != nil {
		return nil, err
	}
	ro := b.def.Rollout
	flow := &agentflow.Flow{
		Env:    b.timed,
		Policy: policy,
		Chat:   llm.ChatOptions{Temperature: llm.Float(b.o.temperature), TopP: ro.TopP, TopK: ro.TopK, MaxTokens: b.o.maxTokens},
		Context: contextmgr.Config{
			Tokenizer: b.tok, Template: b.tmpl, MaxModelLen: ro.MaxModelLen, ResponseLength: b.o.maxTokens,
			MaxEnvTokens: ro.MaxEnvLen, MaxPromptLen: b.def.Data.MaxPromptLength, MaxResponseLen: b.def.Data.MaxResponseLength,
		},
		Strategy: ro.ContextTemplate,
		EnvType:  toolworld.Name,
		MaxSteps: b.o.maxSteps,
		Sparse:   ro.Sparse,
	}
	play := func(tasks []agentevolver.Task, seed int64) ([]agentflow.Result, error) {
		rollouts := agentflow.Expand(tasks, b.o.n)
		for i := range rollouts {
			s := agentflow.TurnSeed(agentflow.TurnSeed(seed, i/b.o.n), i%b.o.n)
			rollouts[i].Seed = &s
		}
		return (&agentflow.Runner{Flow: flow, Concurrency: b.o.concurrency, MaxAttempts: 1}).Run(ctx, rollouts)
	}
	var before model.PolicyStats
	if len(b.warmup) > 0 {
		// The shapes get compiled; the prefix cache is dropped as a
		// training step's new weights drop it.
		if _, err := play(b.warmup, b.o.seed+1); err != nil {
			if _, rest := agentflow.RolloutErrors(err); rest != nil {
				return nil, fmt.Errorf("bench rollout: warm-up: %w", rest)
			}
		}
		policy.DropPrefixCache()
		before = policy.Stats()
	}
	if b.profiled != nil {
		b.profiled.OpProfile() // drops the warm-up's (or the other run's) ops
	}
	b.timed.nanos.Store(0)
	began, cpuBegan := time.Now(), processCPUTime()
	results, err := play(b.tasks, b.o.seed)
	wall, cpu := time.Since(began).Seconds(), (processCPUTime() - cpuBegan).Seconds()
	if b.profiled != nil {
		fmt.Fprintf(b.stderr, "ops of the %s run:\n", mode)
		if werr := gobackend.WriteOpProfile(b.stderr, b.profiled.OpProfile(), b.o.opProfile); werr != nil {
			return nil, werr
		}
	}
	failed, rest := agentflow.RolloutErrors(err)
	if rest != nil {
		return nil, fmt.Errorf("bench rollout: %w", rest)
	}
	st := statsSince(policy.Stats(), before)
	res := &rolloutResult{
		What: "rollout", Mode: mode, Episodes: len(results), Failed: len(failed), WallS: wall, CPUS: cpu,
		EpisodesPerS:        float64(len(results)) / wall,
		GeneratedTokensPerS: float64(st.GeneratedTokens) / wall,
		GeneratedTokens:     st.GeneratedTokens, PrefillTokens: st.PrefillTokens, ReusedPrefillTokens: st.ReusedTokens,
		PrefillShare: st.PrefillTime.Seconds() / wall, DecodeShare: st.DecodeTime.Seconds() / wall,
		LayoutShare: st.LayoutTime.Seconds() / wall,
		EnvShare:    time.Duration(b.timed.nanos.Load()).Seconds() / wall,
		DecodeSteps: st.DecodeSteps, PrefillCalls: st.PrefillCalls, PrefillPadded: st.PrefillPadded, Compiles: st.Compiles, Backend: b.backend,
	}
	if cpu > 0 {
		res.EpisodesPerCPUS = float64(len(results)) / cpu
	}
	if st.GeneratedTokens > 0 {
		res.PrefillPerGenerated = float64(st.PrefillTokens) / float64(st.GeneratedTokens)
	}
	if st.DecodeSteps > 0 {
		// Every generated token but each request's first (sampled from the
		// prefill) was fed by a decode step.
		res.RowsPerDecodeStep = float64(st.GeneratedTokens-st.Requests) / float64(st.DecodeSteps)
		res.ComputedRowsPerStep = float64(st.DecodeRows) / float64(st.DecodeSteps)
		res.ColumnsPerRow = float64(st.DecodeColumns) / float64(st.DecodeRows)
		res.BlocksPerDecodeStep = float64(st.DecodeBlocks) / float64(st.DecodeSteps)
	}
	return res, nil
}

// timedEnv sums the wall time of the environment calls of the episodes
// (concurrent calls add up).
type timedEnv struct {
	envclient.Env
	nanos atomic.Int64
}

func (t *timedEnv) since(began time.Time) { t.nanos.Add(int64(time.Since(began))) }

func (t *timedEnv) Create(ctx context.Context, envType, taskID, instanceID string, params map[string]any) (envclient.InitState, error) {
	defer t.since(time.Now())
	return t.Env.Create(ctx, envType, taskID, instanceID, params)
}

func (t *timedEnv) Step(ctx context.Context, instanceID string, action agentevolver.Message, params map[string]any) (envclient.StepResult, error) {
	defer t.since(time.Now())
	return t.Env.Step(ctx, instanceID, action, params)
}

func (t *timedEnv) Evaluate(ctx context.Context, instanceID string, params map[string]any) (float64, error) {
	defer t.since(time.Now())
	return t.Env.Evaluate(ctx, instanceID, params)
}

func (t *timedEnv) Release(ctx context.Context, instanceID string) (bool, error) {
	defer t.since(time.Now())
	return t.Env.Release(ctx, instanceID)
}

// statsSince returns the counters of now accumulated after before (the
// prefix cache's size is now's).
func statsSince(now, before model.PolicyStats) model.PolicyStats {
	now.Requests -= before.Requests
	now.PrefillTokens -= before.PrefillTokens
	now.ReusedTokens -= before.ReusedTokens
	now.PrefillCalls -= before.PrefillCalls
	now.PrefillPadded -= before.PrefillPadded
	now.GeneratedTokens -= before.GeneratedTokens
	now.DecodeSteps -= before.DecodeSteps
	now.DecodeRows -= before.DecodeRows
	now.DecodeColumns -= before.DecodeColumns
	now.DecodeBlocks -= before.DecodeBlocks
	now.PrefillTime -= before.PrefillTime
	now.DecodeTime -= before.DecodeTime
	now.LayoutTime -= before.LayoutTime
	now.Compiles -= before.Compiles
	return now
}
