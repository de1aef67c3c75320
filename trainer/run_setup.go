package trainer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strings"

	"github.com/gomlx/gomlx/backends"
	"github.com/org/agentevolver"
	"github.com/org/agentevolver/attribution"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/tokenizer"
)

// environment is the run's environment: the Env every episode talks to
// and, when the environment runs in this process, the environment itself,
// whose optional capabilities (envservice.Expert, CorpusProvider,
// TaskMetadataProvider) the warm start, the learned tokenizer and task
// filtering use.
type environment struct {
	env     envclient.Env
	impl    any
	envType string
	close   func()
}

// typeLister is implemented by Envs that can list the environment types
// they serve (envservice.Manager).
type typeLister interface{ Environments() []string }

// environmentLookup is implemented by Envs that hold their environments in
// process (envservice.Manager).
type environmentLookup interface {
	Environment(name string) (envservice.Environment, bool)
}

// resolveEnvType returns the environment type of cfg: env.type when set,
// else the single type opts.Env serves, else (no Env, no URL)
// DefaultEnvType.
func resolveEnvType(cfg Config, opts Options) (string, error) {
	if cfg.Env.Type != "" {
		if l, ok := opts.Env.(typeLister); ok {
			if types := l.Environments(); !slices.Contains(types, cfg.Env.Type) {
				return "", fmt.Errorf("%w: env.type %q is not served by Options.Env (it serves %s)", ErrConfig, cfg.Env.Type, strings.Join(types, ", "))
			}
		}
		return cfg.Env.Type, nil
	}
	switch {
	case opts.Env != nil:
		l, ok := opts.Env.(typeLister)
		if !ok {
			return "", fmt.Errorf("%w: env.type is empty and Options.Env cannot list the types it serves: set env.type", ErrConfig)
		}
		types := l.Environments()
		if len(types) != 1 {
			return "", fmt.Errorf("%w: env.type is empty and Options.Env serves %d types (%s): set env.type", ErrConfig, len(types), strings.Join(types, ", "))
		}
		return types[0], nil
	case cfg.Env.URL != "":
		return "", fmt.Errorf("%w: env.type is required with env.url (an env service may serve several)", ErrConfig)
	}
	return DefaultEnvType, nil
}

// callerEnvironment wraps the caller's Env; its capabilities are those of
// the environment an envservice.Manager holds for envType, else of env.
func callerEnvironment(env envclient.Env, envType string) *environment {
	e := &environment{env: env, impl: env, envType: envType, close: func() {}}
	if l, ok := env.(environmentLookup); ok {
		if impl, ok := l.Environment(envType); ok {
			e.impl = impl
		}
	}
	return e
}

// environments returns the factories the run may build environments
// with: Options.Environments, the built-in ones when it is nil.
func (o Options) environments() map[string]builtin.Factory {
	if o.Environments == nil {
		return builtin.Environments()
	}
	return o.Environments
}

// checkEnvSource reports up front an environment the run cannot open.
func checkEnvSource(cfg Config, opts Options, envType string) error {
	if opts.Env != nil || cfg.Env.URL != "" {
		return nil
	}
	envs := opts.environments()
	if _, ok := envs[envType]; !ok {
		known := slices.Sorted(maps.Keys(envs))
		if len(known) == 0 {
			return fmt.Errorf("%w: no environment: Options.Environments is empty; pass Options.Env (your own, for example an envservice.Manager), set env.url, or leave Options.Environments nil for the built-in ones to build env.type %q", ErrConfig, envType)
		}
		return fmt.Errorf("%w: env.type %q is not in Options.Environments (%s); set env.url to use an env service", ErrConfig, envType, strings.Join(known, ", "))
	}
	return nil
}

// openEnvironment builds the environment of cfg: opts.Env when given, a
// remote env service when cfg.Env.URL is set, else the environment
// opts.Environments builds for env.type, in process or, with
// cfg.Env.Companion, served over HTTP on loopback.
func openEnvironment(ctx context.Context, cfg Config, opts Options, log *slog.Logger) (*environment, error) {
	envType, err := resolveEnvType(cfg, opts)
	if err != nil {
		return nil, err
	}
	if err := checkEnvSource(cfg, opts, envType); err != nil {
		return nil, err
	}
	e := &environment{envType: envType, close: func() {}}
	switch {
	case opts.Env != nil:
		return callerEnvironment(opts.Env, envType), nil
	case cfg.Env.URL != "":
		c, err := envclient.New(envclient.Config{BaseURL: cfg.Env.URL, EnvType: envType, Token: cfg.Env.Token, CAFile: cfg.Env.CAFile, Logger: log})
		if err != nil {
			return nil, fmt.Errorf("trainer: env service client: %w", err)
		}
		e.env = c
		return e, nil
	}
	envCfg := cfg.Env.Config
	if envCfg.LoadPolicy == nil {
		envCfg.LoadPolicy = LoadChatModel
	}
	impl, err := opts.environments()[envType](ctx, envCfg, log)
	if err != nil {
		return nil, fmt.Errorf("trainer: environment %s: %w", envType, err)
	}
	e.impl = impl
	mgr := envservice.NewManager(envservice.ManagerConfig{Logger: log})
	if err := mgr.Register(envType, impl); err != nil {
		return nil, err
	}
	if !cfg.Env.Companion {
		e.env = mgr
		e.close = func() { _ = mgr.Close() }
		return e, nil
	}
	// The companion service: the same environment behind the HTTP
	// protocol, exercised exactly as a remote service would be.
	ln, err := net.Listen("tcp", cfg.Env.CompanionAddr)
	if err != nil {
		return nil, fmt.Errorf("trainer: companion env service: %w", err)
	}
	srv := envservice.NewServer(mgr, envservice.ServerConfig{DefaultEnvType: envType, Logger: log})
	srvCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(srvCtx, ln) }()
	c, err := envclient.New(envclient.Config{BaseURL: "http://" + ln.Addr().String(), EnvType: envType, Logger: log})
	if err != nil {
		stop()
		<-done
		return nil, err
	}
	log.Info("trainer: companion env service started", "addr", ln.Addr().String())
	e.env = c
	e.close = func() {
		stop()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			log.Warn("trainer: companion env service", "err", err)
		}
	}
	return e, nil
}

// checkCapabilities reports, all at once, the features cfg asks for that
// the environment cannot support.
func checkCapabilities(cfg Config, e *environment) error {
	var missing []string
	if _, ok := e.impl.(envservice.Expert); !ok && cfg.WarmStart.Steps > 0 {
		missing = append(missing, fmt.Sprintf("warm_start.steps=%d needs demonstrations (envservice.Expert); set warm_start.steps: 0", cfg.WarmStart.Steps))
	}
	if _, ok := e.impl.(envservice.CorpusProvider); !ok && cfg.Model.Tokenizer == TokenizerFromEnv {
		missing = append(missing, fmt.Sprintf("model.tokenizer=%s learns a tokenizer from the environment's text (envservice.CorpusProvider); set model.tokenizer: byte or a tokenizer directory", TokenizerFromEnv))
	}
	if _, ok := e.impl.(envservice.TaskMetadataProvider); !ok && cfg.Data.MaxDifficulty > 0 {
		missing = append(missing, fmt.Sprintf("data.max_difficulty=%d filters by task difficulty (envservice.TaskMetadataProvider); set data.max_difficulty: 0", cfg.Data.MaxDifficulty))
	}
	if _, ok := e.impl.(envservice.StepOracle); !ok && (cfg.Attribution.Enable || cfg.Attribution.ADCA.EnableMetric) && cfg.Attribution.Judge == attribution.JudgeOracle {
		missing = append(missing, "attribution_driven_credit_assignment.judge=oracle labels steps with the environment's step oracle (envservice.StepOracle); set judge: llm")
	}
	if len(missing) == 0 {
		return nil
	}
	where := "the environment"
	if e.impl == nil {
		where = "an environment behind HTTP"
	}
	return fmt.Errorf("%w: env %q: %s offers no optional capabilities the configuration needs: %s", ErrConfig, e.envType, where, strings.Join(missing, "; "))
}

// tasks returns the tasks of a split, filtered to cfg's maximum difficulty.
func (e *environment) tasks(ctx context.Context, cfg Config, split string) ([]agentevolver.Task, error) {
	ids, err := e.env.TaskIDs(ctx, e.envType, split)
	if err != nil {
		return nil, fmt.Errorf("trainer: list %s tasks: %w", split, err)
	}
	meta, _ := e.impl.(envservice.TaskMetadataProvider)
	var out []agentevolver.Task
	for _, id := range ids {
		if cfg.Data.MaxDifficulty > 0 && meta != nil {
			md, err := meta.TaskMetadata(ctx, id)
			if err != nil {
				return nil, fmt.Errorf("trainer: task %s metadata: %w", id, err)
			}
			if md.Difficulty > cfg.Data.MaxDifficulty {
				continue
			}
		}
		out = append(out, agentevolver.Task{TaskID: id, EnvType: e.envType, Evaluator: agentevolver.EvaluatorEnv})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: split %q has no tasks", ErrConfig, split)
	}
	return out, nil
}

// loadTokenizer returns the tokenizer, chat template and padding id of cfg.
// A learned tokenizer (TokenizerFromEnv) comes from the run directory or
// is trained on env's text.
func loadTokenizer(ctx context.Context, cfg Config, env *environment, resume bool) (tokenizer.Tokenizer, tokenizer.ChatTemplate, int, error) {
	src, err := cfg.Model.TokenizerSource()
	if err != nil {
		return nil, nil, 0, err
	}
	var tok tokenizer.Tokenizer
	if src == TokenizerFromEnv {
		bpe, err := envTokenizer(ctx, cfg, env, cfg.Trainer.OutputDir, resume)
		if err != nil {
			return nil, nil, 0, err
		}
		tok = bpe
	} else if src == "byte" {
		bl, err := tokenizer.NewByteLevel(tokenizer.ByteLevelOptions{})
		if err != nil {
			return nil, nil, 0, fmt.Errorf("trainer: tokenizer: %w", err)
		}
		tok = bl
	} else {
		bpe, err := tokenizer.Load(src)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("trainer: tokenizer: %w", err)
		}
		tok = bpe
	}
	tp, ok := tok.(tokenizer.TemplateProvider)
	if !ok {
		return nil, nil, 0, fmt.Errorf("%w: tokenizer %s has no chat template", ErrConfig, src)
	}
	tmpl, err := tp.ChatTemplate()
	if err != nil {
		return nil, nil, 0, fmt.Errorf("trainer: chat template: %w", err)
	}
	pad, _ := tokenizer.PadID(tok) // 0 when the tokenizer knows none
	return tok, tmpl, pad, nil
}

// newPolicyModel loads cfg.Model.Path or initialises a new model with
// cfg.Model.Shape over tok's vocabulary, computing in actor.dtype (the
// model checks that the backend runs it).
func newPolicyModel(ctx context.Context, cfg Config, tok tokenizer.Tokenizer, backend backends.Backend) (*model.Model, error) {
	dtype, err := cfg.Actor.computeDType()
	if err != nil {
		return nil, fmt.Errorf("%w: actor.dtype: %w", ErrConfig, err)
	}
	samplerWeights, err := model.ParseSamplerWeights(cfg.Rollout.WeightDType)
	if err != nil {
		return nil, fmt.Errorf("%w: rollout.weight_dtype: %w", ErrConfig, err)
	}
	opts := model.Options{Backend: backend, ComputeDType: dtype, SamplerWeights: samplerWeights}
	if cfg.Model.Path != "" {
		dir, err := cfg.Model.Dir()
		if err != nil {
			return nil, err
		}
		m, err := model.Load(ctx, dir, opts)
		if err != nil {
			return nil, fmt.Errorf("trainer: load policy: %w", err)
		}
		if m.Config().VocabSize < tok.VocabSize() {
			return nil, fmt.Errorf("%w: model vocabulary %d is smaller than the tokenizer's %d", ErrConfig, m.Config().VocabSize, tok.VocabSize())
		}
		return m, nil
	}
	m, err := model.New(cfg.Model.Shape.modelConfig(tok.VocabSize()), cfg.Trainer.Seed, opts)
	if err != nil {
		return nil, fmt.Errorf("trainer: new policy: %w", err)
	}
	return m, nil
}

// newRolloutPolicy returns the policy as a chat model sampling from m's
// current weights: every update of m is seen by the next rollout.
// Concurrent episodes are batched into one generation.
func newRolloutPolicy(m *model.Model, tok tokenizer.Tokenizer, tmpl tokenizer.ChatTemplate) (llm.ChatModel, error) {
	p, err := model.NewPolicy(m, tok, tmpl, model.PolicyOptions{})
	if err != nil {
		return nil, fmt.Errorf("trainer: rollout policy: %w", err)
	}
	return p, nil
}
