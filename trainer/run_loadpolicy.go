package trainer

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/model"
)

// LoadedPolicy is a saved policy ready to act outside training: a chat
// model sampling from its weights in process, and the context manager
// settings the trainer's rollouts use with it (its tokenizer, chat template
// and lengths), so that an episode driven by it sees the prompts it was
// trained on.
type LoadedPolicy struct {
	// Model samples from the policy; concurrent episodes are batched.
	Model llm.ChatModel
	// Context is the rollouts' linear context configuration.
	Context contextmgr.Config
}

// LoadPolicy loads the policy directory dir (Hugging Face format: a run's
// final/ or reference/ directory, or a checkpoint's model/) with cfg's
// backend and rollout lengths; a directory that holds its tokenizer uses
// it. It is what exploring with a policy checkpoint needs (agentevolver
// gen-tasks --policy).
func LoadPolicy(ctx context.Context, cfg Config, dir string) (LoadedPolicy, error) {
	cfg.Model.Path = dir
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err == nil {
		cfg.Model.Tokenizer = dir
	}
	if cfg.Model.Tokenizer == TokenizerFromEnv {
		return LoadedPolicy{}, fmt.Errorf("%w: load a policy directory that holds its learned tokenizer (tokenizer.json)", ErrConfig)
	}
	if err := cfg.Validate(); err != nil {
		return LoadedPolicy{}, err
	}
	backend, err := model.NewBackend(cfg.Trainer.Backend)
	if err != nil {
		return LoadedPolicy{}, err
	}
	tok, tmpl, _, err := loadTokenizer(ctx, cfg, nil, false)
	if err != nil {
		return LoadedPolicy{}, err
	}
	m, err := newPolicyModel(ctx, cfg, tok, backend)
	if err != nil {
		return LoadedPolicy{}, err
	}
	p, err := newRolloutPolicy(m, tok, tmpl)
	if err != nil {
		return LoadedPolicy{}, err
	}
	r := &run{cfg: cfg, tok: tok, tmpl: tmpl, log: slog.New(slog.DiscardHandler)}
	c := r.contextConfig(p)
	c.Logger = nil
	return LoadedPolicy{Model: p, Context: c}, nil
}

// LoadChatModel loads the policy directory dir as a chat model with the
// default configuration (LoadPolicy with DefaultConfig). It is a
// builtin.PolicyLoader: the trainer hands it to the environment factories
// (Avalon's snapshot opponents) unless the env section has its own.
func LoadChatModel(ctx context.Context, dir string) (llm.ChatModel, error) {
	p, err := LoadPolicy(ctx, DefaultConfig(), dir)
	if err != nil {
		return nil, err
	}
	return p.Model, nil
}
