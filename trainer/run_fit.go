package trainer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/experience"
	"github.com/org/agentevolver/internal/config"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/runlog"
	"github.com/org/agentevolver/runlog/episodelog"
	"github.com/org/agentevolver/runlog/track"
	"github.com/org/agentevolver/taskgen"
	"github.com/org/agentevolver/tokenizer"
	"github.com/org/agentevolver/trainer/objective"
	"github.com/org/agentevolver/trainer/optim"
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
	// Overwrite lets Fit start afresh in an output directory that already
	// holds a run, removing that run's files first. Without it (and
	// without Resume) such a directory is refused, so that old checkpoints
	// and new metrics never mix.
	Overwrite bool
	// Env replaces the environment of the configuration: the caller's own
	// environment, usually an envservice.Manager serving it in process.
	// env.type may then be empty when it serves a single type. Optional
	// capabilities (envservice.Expert, CorpusProvider,
	// TaskMetadataProvider) are found on the environment the Manager
	// holds, or on Env itself.
	Env envclient.Env
	// Environments are the environments the trainer may build by name
	// (env.type) when neither Env nor env.url is given: an allow-list,
	// nil meaning builtin.Environments() (package envs/builtin), an empty
	// map none. The trainer calls no concrete environment itself: only
	// these factories build one.
	Environments map[string]builtin.Factory
	// Reward scores episodes in place of the environment's own evaluation
	// (agentflow.EnvEvaluator), in training and validation.
	Reward agentflow.RewardCalculator
	// ClipModel decides what the context_selfclip context manager drops;
	// nil means the policy itself.
	ClipModel llm.ChatModel
	// ExperiencePool is the experience pool (self-navigating: an
	// experience.LocalPool or the ReMe service). Rollouts the exp_manager
	// section selects retrieve from it; it is filled before RL when
	// exp_manager.init_exp_before_training and from RL steps every
	// exp_manager.updated_freq steps. Exclusive with Hooks.Experience.
	ExperiencePool experience.Pool
	// JudgeModel is the LLM step judge of attribution_driven_credit_assignment
	// (judge: llm) and the judge of task_manager's LLM graders, in place of
	// the endpoints their llm sections name.
	JudgeModel llm.ChatModel
	// ExplorerModel explores the environment and summarises explorations
	// into tasks when task_manager.explorer is llm, in place of the
	// endpoint task_manager.llm names.
	ExplorerModel llm.ChatModel
	// NewContext builds each episode's context manager, the caller's own
	// contextmgr.ContextManager, in place of the strategy
	// rollout.context_template names. cfg is what that strategy would get:
	// the policy's tokenizer and chat template, the context limits of the
	// rollout section and the experience stripper; the manager must
	// tokenise its samples with them. It is called once per episode, from
	// several goroutines at once when rollouts run concurrently.
	NewContext func(cfg contextmgr.Config) (contextmgr.ContextManager, error)
	// Mixture chooses each epoch's training tasks from the original and
	// the synthetic tasks, in place of the strategy task_manager.mixture
	// describes. Its NeedSynthetic decides whether synthetic tasks are made
	// (task_manager.n > 0) or read (task_manager.train_data_path). Mix is
	// called once per epoch with that epoch's synthetic tasks; it chooses
	// its own randomness (the configured strategy is seeded by the run's
	// seed and the epoch). Exclusive with Hooks.Tasks.
	Mixture taskgen.MixtureStrategy
	// Hooks plug in task synthesis, experience and attribution.
	Hooks Hooks
	// Trackers receive every metrics record besides those trainer.logger
	// names (a hosted experiment tracker's client, say), after them and
	// in order. Fit syncs those that are track.Syncers when it finishes
	// but does not close them: they are the caller's.
	Trackers []track.Tracker
}

// Trainer trains a policy as its Config says. Make one with New and call
// Fit; a Trainer runs one Fit at a time.
type Trainer struct {
	cfg  Config
	opts Options
	log  *slog.Logger
	out  io.Writer
}

// New returns a Trainer for cfg. It resolves cfg's ${section.key}
// placeholders, validates it and checks up front what Fit would otherwise
// discover late: that the environment can be opened and, when it is given
// in Options.Env, that it serves env.type (inferred when it serves a
// single type) and offers the optional capabilities the configuration
// needs (an expert for the warm start, a corpus for a learned tokenizer,
// task metadata for difficulty filtering), all reported in one error.
func New(cfg Config, opts Options) (*Trainer, error) {
	if err := config.Apply(&cfg, nil, nil); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.Resume && opts.Overwrite {
		return nil, fmt.Errorf("%w: Resume and Overwrite are exclusive", ErrConfig)
	}
	envType, err := resolveEnvType(cfg, opts)
	if err != nil {
		return nil, err
	}
	if err := checkEnvSource(cfg, opts, envType); err != nil {
		return nil, err
	}
	cfg.Env.Type = envType
	if opts.Env != nil {
		if err := checkCapabilities(cfg, callerEnvironment(opts.Env, envType)); err != nil {
			return nil, err
		}
	} else if cfg.Env.URL != "" {
		if err := checkCapabilities(cfg, &environment{envType: envType}); err != nil {
			return nil, err
		}
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
	updater *optim.Updater
	ref     *optim.Reference
	train   []agentevolver.Task
	val     []agentevolver.Task
	metrics *runlog.MetricsWriter
	// trackers fans metrics out to metrics and the other trackers;
	// opened are those the run opened (and closes).
	trackers *track.Multi
	opened   *track.Multi
	// episodes records episodes for the run viewer (nil: not recorded).
	episodes *episodelog.Writer
	// pool and injector are Options.ExperiencePool and the injector over
	// it; injected the counts of its last step's metrics.
	pool      experience.Pool
	closePool func() error
	injector  *experience.Injector
	injected  experience.InjectorStats
	// mixture is the task_manager mixture when it chooses the training
	// tasks (also r.hooks.Tasks).
	mixture *mixtureTaskSource
	// updated is the pool's update counts at its last step's metrics, for
	// a pool that keeps them (poolWithStats).
	updated experience.PoolStats
	// reward, clipModel and newContext are Options.Reward,
	// Options.ClipModel and Options.NewContext.
	reward     agentflow.RewardCalculator
	clipModel  llm.ChatModel
	newContext func(contextmgr.Config) (contextmgr.ContextManager, error)
	// valTrajectories, when set, receives validation episodes as JSONL.
	valTrajectories io.Writer
	state           runState
	started         time.Time
	// silence watches for RL steps with nothing to learn.
	silence silence
	// contract makes the Flows of the run warn once per run about an
	// environment's contract (agentflow.ContractWarnings).
	contract agentflow.ContractWarnings
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
	// Totals are the failed and skipped episodes and the outages so far.
	Totals runTotals `json:"totals"`
}

// Fit runs the job: a supervised warm start on expert demonstrations (when
// configured and the environment can provide them), validation, RL steps
// (rollouts, GRPO advantages, old and reference log-probs, HET/PPO updates)
// with validation every test_freq and checkpoints every save_freq steps, a
// final validation and checkpoint, then metrics, a plot and a summary under
// the output directory. It returns the summary.
func (t *Trainer) Fit(ctx context.Context) (summary Summary, err error) {
	r, err := t.open(ctx)
	if err != nil {
		return runlog.Summary{}, err
	}
	defer r.close()

	// An unreachable environment or model endpoint is waited out: the
	// step or validation it interrupted runs again (run_outage.go).
	waiter := r.newOutageWaiter(nil)
	validate := func(step int) (runlog.ValidationStats, error) {
		return retryOutages(ctx, waiter, "validation", step, func(n outageNote) (runlog.ValidationStats, error) {
			return r.validate(ctx, step, n)
		})
	}
	if !r.state.WarmStartDone {
		if err := r.warmStart(ctx); err != nil {
			return runlog.Summary{}, err
		}
		if err := r.saveReference(ctx); err != nil {
			return runlog.Summary{}, err
		}
		if err := r.initExperience(ctx); err != nil {
			if ctx.Err() != nil {
				return runlog.Summary{}, r.interrupted(ctx, err)
			}
			return runlog.Summary{}, err
		}
		r.state.WarmStartDone = true
		if r.cfg.Trainer.ValBeforeTrain {
			stats, err := validate(0)
			if err != nil {
				if ctx.Err() != nil {
					return runlog.Summary{}, r.interrupted(ctx, err)
				}
				return runlog.Summary{}, r.stopAfterFailure(ctx, err)
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
	if r.cfg.Experience.InitExpOnly {
		total = 0 // the pool is built; no RL
	}
	bar := runlog.NewProgress(r.out, int64(total), runlog.ProgressOptions{Description: "RL"})
	bar.Add(int64(r.state.Step))
	waiter.bar = bar
	var final *runlog.ValidationStats
	for r.state.Step < total {
		step := r.state.Step
		m, err := retryOutages(ctx, waiter, "rl", step+1, func(n outageNote) (map[string]float64, error) {
			return r.rlStep(ctx, step, n)
		})
		if err != nil {
			if ctx.Err() != nil {
				return runlog.Summary{}, r.interrupted(ctx, err)
			}
			return runlog.Summary{}, r.stopAfterFailure(ctx, fmt.Errorf("trainer: RL step %d: %w", step+1, err))
		}
		r.state.Step++
		bar.Describe(fmt.Sprintf("RL reward %.2f", m["reward/mean"]))
		bar.Add(1)
		last := r.state.Step == total
		if tf := r.cfg.Trainer.TestFreq; last || (tf > 0 && r.state.Step%tf == 0) {
			stats, err := validate(r.state.Step)
			if err != nil {
				if ctx.Err() != nil {
					return runlog.Summary{}, r.interrupted(ctx, err)
				}
				return runlog.Summary{}, r.stopAfterFailure(ctx, err)
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
	if final == nil && r.state.Step == 0 && r.state.ValWarmStart != nil {
		final = r.state.ValWarmStart // zero RL steps: the policy validated before RL is the final one
	}
	if final == nil {
		// Zero RL steps.
		stats, err := validate(r.state.Step)
		if err != nil {
			if ctx.Err() != nil {
				return runlog.Summary{}, r.interrupted(ctx, err)
			}
			return runlog.Summary{}, r.stopAfterFailure(ctx, err)
		}
		final = &stats
	}
	if err := r.savePolicy(ctx, filepath.Join(r.dir, FinalModelDir)); err != nil {
		return runlog.Summary{}, fmt.Errorf("trainer: save final model: %w", err)
	}
	return r.finish(*final)
}

// stopAfterFailure saves a checkpoint when err reports failed episodes, a
// step without samples or an outage that outlasted
// trainer.outage_timeout, so that Resume continues from here once the
// environment is fixed or back; it returns err (joined with any save
// error).
func (r *run) stopAfterFailure(ctx context.Context, err error) error {
	if !errors.Is(err, ErrTooManyFailures) && !errors.Is(err, ErrNoSamples) && !errors.Is(err, ErrOutage) {
		return err
	}
	if ctx.Err() != nil {
		return err
	}
	if errors.Is(err, ErrOutage) {
		return r.stopAfterOutage(ctx, err)
	}
	if serr := r.save(ctx); serr != nil {
		return errors.Join(err, fmt.Errorf("trainer: checkpoint after failures: %w", serr))
	}
	r.log.Error("trainer: stopped after failed episodes; checkpoint saved", "step", r.state.Step, "err", err)
	return err
}

// interrupted keeps what an interrupted run (ctx cancelled, Ctrl-C under
// signal.NotifyContext) has learnt: a checkpoint to resume from, the
// policy so far in FinalModelDir and the plot. The step in flight is
// dropped; it had not updated the policy. It returns err.
func (r *run) interrupted(ctx context.Context, err error) error {
	keep := context.WithoutCancel(ctx)
	var errs []error
	if serr := r.save(keep); serr != nil {
		errs = append(errs, fmt.Errorf("trainer: checkpoint after interrupt: %w", serr))
	}
	if perr := r.savePolicy(keep, filepath.Join(r.dir, FinalModelDir)); perr != nil {
		errs = append(errs, fmt.Errorf("trainer: save policy after interrupt: %w", perr))
	}
	if perr := r.plot(); perr != nil {
		errs = append(errs, perr)
	}
	r.log.Warn("trainer: interrupted; checkpoint, policy and plot saved", "step", r.state.Step)
	return errors.Join(append([]error{fmt.Errorf("trainer: interrupted after %d RL steps (resume with Resume / --resume): %w", r.state.Step, err)}, errs...)...)
}

// plot draws the metrics so far into PlotFile.
func (r *run) plot() error {
	if err := r.metrics.Sync(); err != nil {
		return err
	}
	records, err := runlog.ReadMetrics(filepath.Join(r.dir, MetricsFile))
	if err == nil {
		err = runlog.PlotMetrics(records, filepath.Join(r.dir, PlotFile))
	}
	if err != nil && !errors.Is(err, runlog.ErrNoData) {
		return fmt.Errorf("trainer: plot: %w", err)
	}
	return nil
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
	r.silence.limit = cfg.Trainer.SilentSteps
	if r.silence.limit == 0 {
		r.silence.limit = DefaultSilentSteps
	}
	if err := prepareRunDir(r.dir, t.opts.Resume, t.opts.Overwrite); err != nil {
		return nil, err
	}
	if r.backend, err = model.NewBackend(cfg.Trainer.Backend); err != nil {
		return nil, err
	}
	if r.env, err = openEnvironment(ctx, cfg, t.opts, t.log); err != nil {
		return nil, err
	}
	if err := checkCapabilities(cfg, r.env); err != nil {
		return nil, err
	}
	r.reward, r.clipModel, r.newContext = t.opts.Reward, t.opts.ClipModel, t.opts.NewContext
	if err := r.setupExperience(cfg, t.opts); err != nil {
		return nil, err
	}
	if cfg.Attribution.Enable || cfg.Attribution.ADCA.EnableMetric {
		if r.hooks.Advantages != nil {
			return nil, fmt.Errorf("%w: Hooks.Advantages and attribution_driven_credit_assignment (enable or adca_grpo.enable_adca_metric) both take the advantage hook; choose one", ErrConfig)
		}
		est, err := newADCA(cfg, t.opts, r.env.impl, r.backend, r.log)
		if err != nil {
			return nil, err
		}
		r.hooks.Advantages = est
	}
	if r.tok, r.tmpl, r.pad, err = loadTokenizer(ctx, cfg, r.env, t.opts.Resume); err != nil {
		return nil, err
	}
	if len(cfg.Data.TrainFiles) == 0 { // else setupTasks reads them
		if r.train, err = r.env.tasks(ctx, cfg, cfg.Data.TrainSplit); err != nil {
			return nil, err
		}
	}
	if r.val, err = r.env.tasks(ctx, cfg, cfg.Data.ValSplit); err != nil {
		return nil, err
	}
	if err := r.setupTasks(ctx, cfg, t.opts); err != nil {
		return nil, err
	}
	if n := cfg.Data.ValTasks; n > 0 && n < len(r.val) {
		r.val = r.val[:n]
	}
	if r.m, err = newPolicyModel(ctx, cfg, r.tok, r.backend); err != nil {
		return nil, err
	}
	if err := r.setupLoRA(); err != nil {
		return nil, err
	}
	if r.updater, err = optim.NewUpdater(r.backend, r.m.Context(), optim.ModelPolicy(r.m), r.updaterConfig()); err != nil {
		return nil, asConfigErr(err)
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
	if err := r.openTrackers(t.opts, resumed); err != nil {
		return nil, err
	}
	if r.policy, err = r.rolloutPolicy(); err != nil {
		return nil, err
	}
	if err := r.checkPromptFits(ctx); err != nil {
		return nil, err
	}
	r.log.Info("trainer: ready", "dir", r.dir, "backend", r.backend.Name(), "params", r.m.Config().NumParameters(),
		"train_tasks", len(r.train), "val_tasks", len(r.val), "resumed", resumed, "step", r.state.Step)
	return r, nil
}

func (r *run) close() {
	r.closeTrackers()
	if r.metrics != nil {
		_ = r.metrics.Close()
	}
	if r.env != nil {
		r.env.close()
	}
	if r.closePool != nil {
		if err := r.closePool(); err != nil {
			r.log.Warn("trainer: closing the experience pool", "err", err)
		}
	}
}

// updaterConfig maps the actor section onto an UpdaterConfig.
func (r *run) updaterConfig() optim.UpdaterConfig {
	a := r.cfg.Actor
	wd := a.WeightDecay
	return optim.UpdaterConfig{
		Optimizer: optim.AdamWConfig{LearningRate: a.LR, WeightDecay: wd, NoWeightDecay: wd == 0},
		Clip:      optim.ClipConfig{MaxGradNorm: a.GradClip, NoClip: a.GradClip == 0},
		Loss: objective.PolicyLossConfig{
			ClipLow: a.ClipRatioLow, ClipHigh: a.ClipRatioHigh, DualClip: a.ClipRatioC,
			OffPolicyClipHigh: a.OffClipRangeHigh, AggMode: objective.AggMode(a.LossAggMode),
		},
		KLType:          objective.KLType(a.KLLossType),
		KLCoef:          a.KLLossCoef,
		NoKLLoss:        !a.UseKLLoss,
		EntropyCoef:     a.EntropyCoeff,
		PPOEpochs:       a.PPOEpochs,
		MiniBatchSize:   a.PPOMiniBatchSize,
		MicroBatchSize:  a.MicroBatchSize,
		Temperature:     r.cfg.Rollout.Temperature,
		NoEntropyMetric: false,
		Devices:         r.cfg.Trainer.Devices,
		Logger:          r.log,
	}
}

// contextConfig is the context-manager configuration of every episode
// run by policy: the shared limits and the settings of the strategy
// rollout.context_template selects.
func (r *run) contextConfig(policy llm.ChatModel) contextmgr.Config {
	ro := r.cfg.Rollout
	c := contextmgr.Config{
		Tokenizer:      r.tok,
		Template:       r.tmpl,
		MaxModelLen:    ro.MaxModelLen,
		ResponseLength: ro.ResponseLength,
		MaxEnvTokens:   ro.MaxEnvLen,
		MaxPromptLen:   r.cfg.Data.MaxPromptLength,
		MaxResponseLen: r.cfg.Data.MaxResponseLength,
		NoThink:        ro.UseQwen3,
		Logger:         r.log,
	}
	if tpl := r.cfg.Experience.ExperienceTemplate; tpl != "" {
		c.Stripper = &contextmgr.TemplateStripper{Template: tpl} // validated with the configuration
	}
	switch ro.ContextTemplate {
	case contextmgr.StrategyLinearThink:
		ro.LinearThink.Apply(&c)
	case contextmgr.StrategySelfClip:
		ro.SelfClip.Apply(&c)
		c.ClipModel = cmp.Or[llm.ChatModel](r.clipModel, policy)
		// Only the policy's own clip decisions are its tokens to train.
		c.TrainClipDecisions = c.TrainClipDecisions && r.clipModel == nil
	case contextmgr.StrategyMemory:
		ro.Memory.Apply(&c)
	case contextmgr.StrategyPerCall:
		ro.PerCall.Apply(&c)
	}
	return c
}

// flow returns the episode loop with policy sampling at temperature.
func (r *run) flow(policy llm.ChatModel, temperature float64) *agentflow.Flow {
	ro := r.cfg.Rollout
	f := &agentflow.Flow{
		Env:    r.env.env,
		Policy: policy,
		Chat: llm.ChatOptions{
			Temperature: llm.Float(temperature),
			TopP:        ro.TopP,
			TopK:        ro.TopK,
			MaxTokens:   ro.ResponseLength,
		},
		Context:    r.contextConfig(policy),
		Strategy:   ro.ContextTemplate,
		EnvType:    r.env.envType,
		MaxSteps:   ro.MaxSteps,
		Reward:     r.reward,
		Sparse:     ro.Sparse,
		Experience: r.hooks.Experience,
		Logger:     r.log,
		Warnings:   &r.contract,
	}
	if newContext := r.newContext; newContext != nil {
		cfg := f.Context
		f.NewContext = func() (contextmgr.ContextManager, error) { return newContext(cfg) }
	}
	return f
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
	phaseInitExperience
)

// runEpisodes runs rollouts and returns the finished results and the
// failures tallied by cause, logged once per cause. Failed episodes are
// dropped: they are never training data or validation scores. Only
// cancellation, configuration errors (every episode would repeat them)
// and errors outside any episode are returned.
func (r *run) runEpisodes(ctx context.Context, runner *agentflow.Runner, rollouts []agentflow.Rollout, phase string, step int) ([]agentflow.Result, failureTally, error) {
	results, err := runner.Run(ctx, rollouts)
	if ctx.Err() != nil {
		return nil, failureTally{}, ctx.Err()
	}
	failures, rest := agentflow.RolloutErrors(err)
	if err := configFailure(failures); err != nil {
		return nil, failureTally{}, err
	}
	if rest != nil {
		return nil, failureTally{}, outageOr(rest, len(rollouts))
	}
	tally := tallyFailures(failures)
	if tally.outage == nil {
		// An outage's episodes are not excluded but run again; the
		// waiter logs them.
		tally.log(r.log, phase, step)
		r.recordEpisodes(phase, step, results, failures)
	}
	return results, tally, nil
}

// checkPromptFits reports up front, with the sizes, a configuration whose
// initial prompt alone overflows the context window: one episode of the
// first training task is started and stopped before the policy's turn.
func (r *run) checkPromptFits(ctx context.Context) error {
	tasks := r.train
	if len(tasks) == 0 {
		tasks = r.val
	}
	if len(tasks) == 0 {
		return nil
	}
	f := r.flow(llm.ChatModelFunc(func(context.Context, []agentevolver.Message, llm.ChatOptions) (llm.Completion, error) {
		return llm.Completion{}, errProbe
	}), 0)
	f.MaxSteps = 1
	_, err := f.Run(ctx, rolloutFor(tasks[0]))
	if errors.Is(err, agentflow.ErrPromptTooLong) {
		return fmt.Errorf("%w: task %s: %w; raise rollout.max_model_len (%d) or shorten the environment's prompts", ErrConfig, tasks[0].TaskID, err, r.cfg.Rollout.MaxModelLen)
	}
	return nil // anything else the episodes themselves will report
}

// errProbe stops checkPromptFits's episode at the policy's turn.
var errProbe = errors.New("trainer: prompt probe")

// record writes one metrics line (nowhere when the run keeps no metrics,
// as in Evaluate).
func (r *run) record(step int, values map[string]float64) error {
	if r.trackers == nil {
		return nil
	}
	if err := r.trackers.WriteRecord(runlog.Record{Step: int64(step), Time: time.Now(), Values: values}); err != nil {
		return fmt.Errorf("trainer: metrics: %w", err)
	}
	return nil
}

// finish writes the plot, the summary and the table.
func (r *run) finish(final runlog.ValidationStats) (runlog.Summary, error) {
	if err := r.trackers.Sync(); err != nil {
		return runlog.Summary{}, fmt.Errorf("trainer: metrics: %w", err)
	}
	s := runlog.Summary{
		Seed:              r.cfg.Trainer.Seed,
		ValSuccessFinal:   final.Success,
		RLSteps:           r.state.Step,
		WallSeconds:       r.state.WallSeconds + time.Since(r.started).Seconds(),
		FailedEpisodes:    r.state.Totals.FailedEpisodes,
		SkippedEpisodes:   r.state.Totals.SkippedEpisodes,
		Outages:           r.state.Totals.Outages,
		OutageWaitSeconds: r.state.Totals.OutageWaitSeconds,
		Extras: map[string]any{
			"experiment_name": r.cfg.Trainer.ExperimentName,
			"model_params":    r.m.Config().NumParameters(),
			"warm_start":      r.cfg.WarmStart.Steps,
		},
	}
	if r.cfg.Experience.InitExpOnly {
		s.Extras["init_exp_only"] = true
	}
	if w := r.state.ValWarmStart; w != nil {
		s.ValSuccessWarmStart = w.Success
		name := "after warm start"
		if r.cfg.WarmStart.Steps == 0 {
			name = "before RL"
		}
		s.Phases = append(s.Phases, runlog.Phase{Name: name, Stats: *w})
	}
	s.Phases = append(s.Phases, runlog.Phase{Name: "after RL", Stats: final})
	if err := s.WriteFile(filepath.Join(r.dir, SummaryFile)); err != nil {
		return runlog.Summary{}, fmt.Errorf("trainer: summary: %w", err)
	}
	if err := r.plot(); err != nil {
		return runlog.Summary{}, err
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
