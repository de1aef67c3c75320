package trainer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"

	"github.com/gomlx/gomlx/backends"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/model"
	"github.com/org/agentevolver/tokenizer"
)

// environment is the run's environment: the Env every episode talks to and,
// when it is the built-in toolworld in this process, the toolworld itself
// (whose expert solver writes the warm-start demonstrations).
type environment struct {
	env     envclient.Env
	tw      *toolworld.Env
	envType string
	close   func()
}

// openEnvironment builds the environment of cfg: opts.Env when given, a
// remote env service when cfg.Env.URL is set, else the built-in toolworld
// in process or, with cfg.Env.Companion, served over HTTP on loopback.
func openEnvironment(ctx context.Context, cfg Config, opts Options, log *slog.Logger) (*environment, error) {
	e := &environment{envType: cfg.Env.Type, close: func() {}}
	switch {
	case opts.Env != nil:
		e.env = opts.Env
		return e, nil
	case cfg.Env.URL != "":
		c, err := envclient.New(envclient.Config{BaseURL: cfg.Env.URL, EnvType: cfg.Env.Type, Logger: log})
		if err != nil {
			return nil, fmt.Errorf("trainer: env service client: %w", err)
		}
		e.env = c
		return e, nil
	}
	if cfg.Env.Type != toolworld.Name {
		return nil, fmt.Errorf("%w: env.type %q is not built in (built in: %s); set env.url to use an env service", ErrConfig, cfg.Env.Type, toolworld.Name)
	}
	tw, err := toolworld.New(toolworld.Config{
		Seed: cfg.Env.Toolworld.Seed, Compact: cfg.Env.Toolworld.Compact, SystemPrompt: cfg.Env.Toolworld.SystemPrompt,
		TrainSize: cfg.Env.Toolworld.TrainSize, ValSize: cfg.Env.Toolworld.ValSize, TestSize: cfg.Env.Toolworld.TestSize,
		Logger: log,
	})
	if err != nil {
		return nil, fmt.Errorf("trainer: toolworld: %w", err)
	}
	e.tw = tw
	mgr := envservice.NewManager(envservice.ManagerConfig{Logger: log})
	if err := mgr.Register(toolworld.Name, tw); err != nil {
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
	srv := envservice.NewServer(mgr, envservice.ServerConfig{DefaultEnvType: toolworld.Name, Logger: log})
	srvCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- srv.Serve(srvCtx, ln) }()
	c, err := envclient.New(envclient.Config{BaseURL: "http://" + ln.Addr().String(), EnvType: toolworld.Name, Logger: log})
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

// tasks returns the tasks of a split, filtered to cfg's toolworld levels.
func (e *environment) tasks(ctx context.Context, cfg Config, split string) ([]agentevolver.Task, error) {
	ids, err := e.env.TaskIDs(ctx, e.envType, split)
	if err != nil {
		return nil, fmt.Errorf("trainer: list %s tasks: %w", split, err)
	}
	var out []agentevolver.Task
	for _, id := range ids {
		if e.tw != nil && cfg.Env.Toolworld.MaxLevel > 0 {
			info, err := e.tw.Task(id)
			if err != nil {
				return nil, err
			}
			if info.Level > cfg.Env.Toolworld.MaxLevel {
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
	src := cfg.Model.Tokenizer
	if src == "" {
		src = cmp.Or(cfg.Model.Path, "byte")
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
	pad := 0
	if st, ok := tok.(tokenizer.SpecialTokens); ok {
		if id, ok := st.PadID(); ok {
			pad = id
		} else if id, ok := st.EOSID(); ok {
			pad = id
		}
	}
	return tok, tmpl, pad, nil
}

// newPolicyModel loads cfg.Model.Path or initialises a new model with
// cfg.Model.Shape over tok's vocabulary.
func newPolicyModel(ctx context.Context, cfg Config, tok tokenizer.Tokenizer, backend backends.Backend) (*model.Model, error) {
	opts := model.Options{Backend: backend}
	if cfg.Model.Path != "" {
		m, err := model.Load(ctx, cfg.Model.Path, opts)
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
