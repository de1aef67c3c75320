package trainer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/gomlx/gomlx/backends"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/internal/runlog"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/tokenizer"
)

// Options are the run-time companions of a Config: where logs and
// progress go, whether to resume, and the extension points. The zero value
// logs nothing, prints nothing and starts afresh.
type Options struct {
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// Output receives progress bars (only when it is a terminal) or plain
	// progress lines, and the final summary table; nil discards them.
	Output io.Writer
	// Resume continues from the last checkpoint under the output
	// directory. With the same configuration the result equals that of an
	// uninterrupted run.
	Resume bool
	// Env replaces the environment of the configuration (an in-process Go
	// environment of the caller, for example).
	Env envclient.Env
	// Hooks plug in task synthesis, experience and attribution.
	Hooks Hooks
}

// Trainer trains a policy as its Config says. Make one with New and call
// Fit; a Trainer runs one Fit at a time.
type Trainer struct {
	cfg  Config
	opts Options
	log  *slog.Logger
	out  io.Writer
}

// New returns a Trainer for cfg, which it validates.
func New(cfg Config, opts Options) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t := &Trainer{cfg: cfg, opts: opts, log: opts.Logger, out: opts.Output}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	if t.out == nil {
		t.out = io.Discard
	}
	return t, nil
}

// Config returns the trainer's configuration.
func (t *Trainer) Config() Config { return t.cfg }

// File names under Config.Trainer.OutputDir.
const (
	MetricsFile = "metrics.jsonl"
	PlotFile    = "progress.png"
	SummaryFile = "summary.json"
	// CheckpointDir holds one directory per checkpoint and a "latest"
	// file naming the newest complete one.
	CheckpointDir = "checkpoints"
	// ReferenceDir holds the frozen reference policy (the policy after the
	// warm start) in Hugging Face format.
	ReferenceDir = "reference"
	// FinalModelDir holds the final policy in Hugging Face format.
	FinalModelDir = "final"
)

// run is the state of one Fit.
type run struct {
	cfg     Config
	log     *slog.Logger
	out     io.Writer
	hooks   Hooks
	dir     string
	backend backends.Backend
	tok     tokenizer.Tokenizer
	tmpl    tokenizer.ChatTemplate
	pad     int
	env     *environment
	m       *model.Model
	policy  llm.ChatModel
	updater *Updater
	ref     *Reference
	train   []agentevolver.Task
	val     []agentevolver.Task
	metrics *runlog.MetricsWriter
	// valTrajectories, when set, receives validation episodes as JSONL.
	valTrajectories io.Writer
	state           runState
	started         time.Time
}

// runState is what a checkpoint records besides weights and optimiser
// state.
type runState struct {
	// Step is the number of RL steps done.
	Step int `json:"step"`
	// WarmStartDone reports that the warm start (if any) is behind.
	WarmStartDone bool `json:"warm_start_done"`
	// ValWarmStart is the validation before RL, if it ran.
	ValWarmStart *runlog.ValidationStats `json:"val_warm_start,omitempty"`
	// LastVal is the latest validation and LastValStep the RL step it
	// ran after, so a resumed run that had already finished does not
	// validate (and record) again.
	LastVal     *runlog.ValidationStats `json:"last_val,omitempty"`
	LastValStep int                     `json:"last_val_step"`
	// WallSeconds is the time spent in earlier sessions of the run.
	WallSeconds float64 `json:"wall_seconds"`
	// Seed guards against resuming with another seed.
	Seed int64 `json:"seed"`
}

// Fit runs the job: a supervised warm start on expert demonstrations (when
// configured and the environment can provide them), validation, RL steps
// (rollouts, GRPO advantages, old and reference log-probs, HET/PPO updates)
// with validation every test_freq and checkpoints every save_freq steps, a
// final validation and checkpoint, then metrics, a plot and a summary under
// the output directory. It returns the summary.
func (t *Trainer) Fit(ctx context.Context) (summary runlog.Summary, err error) {
	r, err := t.open(ctx)
	if err != nil {
		return runlog.Summary{}, err
	}
	defer r.close()

	if !r.state.WarmStartDone {
		if err := r.warmStart(ctx); err != nil {
			return runlog.Summary{}, err
		}
		if err := r.saveReference(ctx); err != nil {
			return runlog.Summary{}, err
		}
		r.state.WarmStartDone = true
		if r.cfg.Trainer.ValBeforeTrain {
			stats, err := r.validate(ctx, 0)
			if err != nil {
				return runlog.Summary{}, err
			}
			r.state.ValWarmStart = &stats
		}
		if err := r.save(ctx); err != nil {
			return runlog.Summary{}, err
		}
	}
	if r.ref == nil {
		if err := r.loadReference(ctx); err != nil {
			return runlog.Summary{}, err
		}
	}

	total := r.cfg.Trainer.RLSteps
	bar := runlog.NewProgress(r.out, int64(total), runlog.ProgressOptions{Description: "RL"})
	bar.Add(int64(r.state.Step))
	var final *runlog.ValidationStats
	for r.state.Step < total {
		step := r.state.Step
		m, err := r.rlStep(ctx, step)
		if err != nil {
			return runlog.Summary{}, fmt.Errorf("trainer: RL step %d: %w", step+1, err)
		}
		r.state.Step++
		bar.Describe(fmt.Sprintf("RL reward %.2f", m["reward/mean"]))
		bar.Add(1)
		last := r.state.Step == total
		if tf := r.cfg.Trainer.TestFreq; last || (tf > 0 && r.state.Step%tf == 0) {
			stats, err := r.validate(ctx, r.state.Step)
			if err != nil {
				return runlog.Summary{}, err
			}
			if last {
				final = &stats
			}
		}
		if sf := r.cfg.Trainer.SaveFreq; last || (sf > 0 && r.state.Step%sf == 0) {
			if err := r.save(ctx); err != nil {
				return runlog.Summary{}, err
			}
		}
	}
	bar.Finish()
	if final == nil && r.state.LastVal != nil && r.state.LastValStep == r.state.Step && r.state.Step > 0 {
		final = r.state.LastVal // a resumed run that had already finished
	}
	if final == nil {
		// Zero RL steps.
		stats, err := r.validate(ctx, r.state.Step)
		if err != nil {
			return runlog.Summary{}, err
		}
		final = &stats
	}
	if err := r.savePolicy(ctx, filepath.Join(r.dir, FinalModelDir)); err != nil {
		return runlog.Summary{}, fmt.Errorf("trainer: save final model: %w", err)
	}
	return r.finish(*final)
}

// open prepares a run: output directory, backend, tokenizer, environment,
// tasks, policy, optimiser and, when resuming, the last checkpoint.
func (t *Trainer) open(ctx context.Context) (_ *run, err error) {
	cfg := t.cfg
	r := &run{cfg: cfg, log: t.log, out: t.out, hooks: t.opts.Hooks, dir: cfg.Trainer.OutputDir, started: time.Now()}
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	r.state.Seed = cfg.Trainer.Seed
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, fmt.Errorf("trainer: %w", err)
	}
	if r.backend, err = model.NewBackend(cfg.Trainer.Backend); err != nil {
		return nil, err
	}
	if r.env, err = openEnvironment(ctx, cfg, t.opts, t.log); err != nil {
		return nil, err
	}
	if r.tok, r.tmpl, r.pad, err = loadTokenizer(ctx, cfg, r.env, t.opts.Resume); err != nil {
		return nil, err
	}
	if r.train, err = r.env.tasks(ctx, cfg, cfg.Data.TrainSplit); err != nil {
		return nil, err
	}
	if r.val, err = r.env.tasks(ctx, cfg, cfg.Data.ValSplit); err != nil {
		return nil, err
	}
	if n := cfg.Data.ValTasks; n > 0 && n < len(r.val) {
		r.val = r.val[:n]
	}
	if r.m, err = newPolicyModel(ctx, cfg, r.tok, r.backend); err != nil {
		return nil, err
	}
	if r.updater, err = NewUpdater(r.backend, r.m.Context(), ModelPolicy(r.m), r.updaterConfig()); err != nil {
		return nil, err
	}

	resumed := false
	if t.opts.Resume {
		if resumed, err = r.resume(ctx); err != nil {
			return nil, err
		}
	}
	metricsPath := filepath.Join(r.dir, MetricsFile)
	if resumed {
		r.metrics, err = runlog.OpenForResume(metricsPath, int64(r.state.Step))
	} else {
		r.metrics, err = runlog.NewMetricsWriter(metricsPath)
	}
	if err != nil {
		return nil, fmt.Errorf("trainer: metrics: %w", err)
	}
	if r.policy, err = newRolloutPolicy(r.m, r.tok, r.tmpl); err != nil {
		return nil, err
	}
	r.log.Info("trainer: ready", "dir", r.dir, "backend", r.backend.Name(), "params", r.m.Config().NumParameters(),
		"train_tasks", len(r.train), "val_tasks", len(r.val), "resumed", resumed, "step", r.state.Step)
	return r, nil
}

func (r *run) close() {
	if r.metrics != nil {
		_ = r.metrics.Close()
	}
	if r.env != nil {
		r.env.close()
	}
}

// updaterConfig maps the actor section onto an UpdaterConfig.
func (r *run) updaterConfig() UpdaterConfig {
	a := r.cfg.Actor
	wd := a.WeightDecay
	return UpdaterConfig{
		Optimizer: AdamWConfig{LearningRate: a.LR, WeightDecay: wd, NoWeightDecay: wd == 0},
		Clip:      ClipConfig{MaxGradNorm: a.GradClip, NoClip: a.GradClip == 0},
		Loss: PolicyLossConfig{
			ClipLow: a.ClipRatioLow, ClipHigh: a.ClipRatioHigh, DualClip: a.ClipRatioC,
			OffPolicyClipHigh: a.OffClipRangeHigh, AggMode: AggMode(a.LossAggMode),
		},
		KLType:          KLType(a.KLLossType),
		KLCoef:          a.KLLossCoef,
		NoKLLoss:        !a.UseKLLoss,
		EntropyCoef:     a.EntropyCoeff,
		PPOEpochs:       a.PPOEpochs,
		MiniBatchSize:   a.PPOMiniBatchSize,
		MicroBatchSize:  a.MicroBatchSize,
		Temperature:     r.cfg.Rollout.Temperature,
		NoEntropyMetric: false,
		Logger:          r.log,
	}
}

// contextConfig is the context-manager configuration of every episode.
func (r *run) contextConfig() contextmgr.Config {
	ro := r.cfg.Rollout
	return contextmgr.Config{
		Tokenizer:      r.tok,
		Template:       r.tmpl,
		MaxModelLen:    ro.MaxModelLen,
		ResponseLength: ro.ResponseLength,
		MaxEnvTokens:   ro.MaxEnvLen,
		MaxPromptLen:   r.cfg.Data.MaxPromptLength,
		MaxResponseLen: r.cfg.Data.MaxResponseLength,
	}
}

// flow returns the episode loop with policy sampling at temperature.
func (r *run) flow(policy llm.ChatModel, temperature float64) *agentflow.Flow {
	ro := r.cfg.Rollout
	return &agentflow.Flow{
		Env:    r.env.env,
		Policy: policy,
		Chat: llm.ChatOptions{
			Temperature: llm.Float(temperature),
			TopP:        ro.TopP,
			TopK:        ro.TopK,
			MaxTokens:   ro.ResponseLength,
		},
		Context:    r.contextConfig(),
		EnvType:    r.env.envType,
		MaxSteps:   ro.MaxSteps,
		Sparse:     ro.Sparse,
		Experience: r.hooks.Experience,
		Logger:     r.log,
	}
}

func (r *run) runner(f *agentflow.Flow) *agentflow.Runner {
	return &agentflow.Runner{Flow: f, Concurrency: r.cfg.Rollout.Concurrency, Logger: r.log}
}

// rolloutSeed derives a reproducible seed for one episode from the run's
// seed and the episode's coordinates.
func rolloutSeed(seed int64, phase, step, dataID, rolloutID int) *int64 {
	s := agentflow.TurnSeed(seed, phase)
	s = agentflow.TurnSeed(s, step)
	s = agentflow.TurnSeed(s, dataID)
	s = agentflow.TurnSeed(s, rolloutID)
	return &s
}

// Seed phases, so that training and validation episodes never share seeds.
const (
	phaseTrain = iota + 1
	phaseValidate
)

// runEpisodes runs rollouts and returns the finished results. Failed
// rollouts are logged and dropped (validation counts them as failures);
// only cancellation and configuration errors are returned.
func (r *run) runEpisodes(ctx context.Context, runner *agentflow.Runner, rollouts []agentflow.Rollout) ([]agentflow.Result, int, error) {
	results, err := runner.Run(ctx, rollouts)
	if ctx.Err() != nil {
		return nil, 0, ctx.Err()
	}
	failed := len(rollouts) - len(results)
	if err != nil {
		var re *agentflow.RolloutError
		if !errors.As(err, &re) {
			return nil, 0, err
		}
		r.log.Warn("trainer: some rollouts failed", "failed", failed, "err", err)
	}
	return results, failed, nil
}

// record writes one metrics line (nowhere when the run keeps no metrics,
// as in Evaluate).
func (r *run) record(step int, values map[string]float64) error {
	if r.metrics == nil {
		return nil
	}
	if err := r.metrics.Write(int64(step), values); err != nil {
		return fmt.Errorf("trainer: metrics: %w", err)
	}
	return nil
}

// finish writes the plot, the summary and the table.
func (r *run) finish(final runlog.ValidationStats) (runlog.Summary, error) {
	if err := r.metrics.Sync(); err != nil {
		return runlog.Summary{}, err
	}
	s := runlog.Summary{
		Seed:            r.cfg.Trainer.Seed,
		ValSuccessFinal: final.Success,
		RLSteps:         r.state.Step,
		WallSeconds:     r.state.WallSeconds + time.Since(r.started).Seconds(),
		Extras: map[string]any{
			"experiment_name": r.cfg.Trainer.ExperimentName,
			"model_params":    r.m.Config().NumParameters(),
			"warm_start":      r.cfg.WarmStart.Steps,
		},
	}
	if w := r.state.ValWarmStart; w != nil {
		s.ValSuccessWarmStart = w.Success
		s.Phases = append(s.Phases, runlog.Phase{Name: "warm start", Stats: *w})
	}
	s.Phases = append(s.Phases, runlog.Phase{Name: "after RL", Stats: final})
	if err := s.WriteFile(filepath.Join(r.dir, SummaryFile)); err != nil {
		return runlog.Summary{}, fmt.Errorf("trainer: summary: %w", err)
	}
	records, err := runlog.ReadMetrics(filepath.Join(r.dir, MetricsFile))
	if err == nil {
		err = runlog.PlotMetrics(records, filepath.Join(r.dir, PlotFile))
	}
	if err != nil && !errors.Is(err, runlog.ErrNoData) {
		return runlog.Summary{}, fmt.Errorf("trainer: plot: %w", err)
	}
	if err := s.WriteTable(r.out); err != nil {
		return runlog.Summary{}, err
	}
	return s, nil
}

// mean returns the mean of xs, NaN when empty.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
