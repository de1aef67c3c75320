package builtin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/org/agentevolver/arena/avalon"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
	"github.com/org/agentevolver/envs/mcp"
	"github.com/org/agentevolver/envs/sqlworld"
	"github.com/org/agentevolver/envs/textgame"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
)

// ErrUnknownEnvironment reports a name that is not a built-in environment;
// Open's error wraps it and lists the known names.
var ErrUnknownEnvironment = errors.New("builtin: unknown environment")

// Config holds the configuration of every built-in environment, each its
// own package's type under the key of a run configuration's env section
// (env.toolworld, env.textgame, env.sqlworld, env.mcp, env.avalon,
// env.diplomacy). A
// factory reads only its own section. The zero value holds each
// environment's defaults.
type Config struct {
	// Toolworld configures toolworld (package envs/toolworld).
	Toolworld toolworld.Config `yaml:"toolworld"`
	// Textgame configures textgame: Colossal Cave, Debian's
	// open-adventure (package envs/textgame).
	Textgame textgame.Config `yaml:"textgame"`
	// Sqlworld configures sqlworld: text-to-SQL over Debian's iso-codes
	// (package envs/sqlworld).
	Sqlworld sqlworld.Config `yaml:"sqlworld"`
	// MCP configures mcp: any MCP server and a task file (package
	// envs/mcp).
	MCP mcp.Config `yaml:"mcp"`
	// Avalon configures avalon: one seat of The Resistance: Avalon trained
	// against fixed models (package arena/avalon). Train it with
	// rollout.context_template per_call and rollout.max_steps above a
	// game's calls.
	Avalon avalon.EnvConfig `yaml:"avalon"`
	// Diplomacy configures diplomacy: one power of Diplomacy trained
	// against fixed models (package arena/diplomacy/dipgame). Train it
	// with rollout.context_template per_call and rollout.max_steps above
	// a game's calls.
	Diplomacy dipgame.EnvConfig `yaml:"diplomacy"`
	// LoadPolicy loads a saved policy directory as a chat model: the
	// avalon and diplomacy factories load their snapshots with it. The trainer sets
	// it to its own loader; nil refuses snapshots with an error.
	LoadPolicy PolicyLoader `yaml:"-"`
}

// PolicyLoader loads the policy saved in dir (a run's final/, a
// checkpoint's model/: weights, config and tokenizer.json) as a chat
// model that is safe for concurrent use.
type PolicyLoader func(ctx context.Context, dir string) (llm.ChatModel, error)

// Factory opens an environment from the env section of a run
// configuration. log receives its records; nil discards them. A factory
// returns the environment itself, not a wrapper, so that its optional
// capabilities stay visible.
type Factory func(ctx context.Context, cfg Config, log *slog.Logger) (envservice.Environment, error)

// Environments returns the factories of the built-in environments by name
// (the env_type they are served as). The map is new on every call and
// belongs to the caller.
func Environments() map[string]Factory {
	return map[string]Factory{
		toolworld.Name:  openToolworld,
		textgame.Name:   openTextgame,
		sqlworld.Name:   openSqlworld,
		mcp.Name:        openMCP,
		avalon.EnvName:  openAvalon,
		dipgame.EnvName: openDiplomacy,
	}
}

// Names returns the names of the built-in environments, sorted.
func Names() []string {
	return slices.Sorted(maps.Keys(Environments()))
}

// Open builds the built-in environment name from cfg (only the section of
// that environment is read; cfg.Type is ignored). log receives the
// environment's records; nil discards them. An unknown name gives an error
// matching ErrUnknownEnvironment that names the known environments.
func Open(ctx context.Context, name string, cfg Config, log *slog.Logger) (envservice.Environment, error) {
	factory, ok := Environments()[name]
	if !ok {
		return nil, fmt.Errorf("%w %q (built in: %s)", ErrUnknownEnvironment, name, strings.Join(Names(), ", "))
	}
	env, err := factory(ctx, cfg, log)
	if err != nil {
		return nil, fmt.Errorf("builtin: open %s: %w", name, err)
	}
	return env, nil
}

// openToolworld is the toolworld factory: cfg.Toolworld, logging to log.
func openToolworld(ctx context.Context, cfg Config, log *slog.Logger) (envservice.Environment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tc := cfg.Toolworld
	tc.Logger = log
	env, err := toolworld.New(tc)
	if err != nil {
		return nil, err // not a nil *toolworld.Env in a non-nil interface
	}
	return env, nil
}

// openTextgame is the textgame factory: cfg.Textgame, logging to log. Without open-adventure installed it fails with
// textgame.ErrNoBinary, which names the Debian package.
func openTextgame(ctx context.Context, cfg Config, log *slog.Logger) (envservice.Environment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tc := cfg.Textgame
	tc.Logger = log
	env, err := textgame.New(tc)
	if err != nil {
		return nil, err
	}
	return env, nil
}

// openSqlworld is the sqlworld factory: cfg.Sqlworld, logging to log. Without Debian's iso-codes it fails with
// sqlworld.ErrNoData, which names the package.
func openSqlworld(ctx context.Context, cfg Config, log *slog.Logger) (envservice.Environment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sc := cfg.Sqlworld
	sc.Logger = log
	env, err := sqlworld.New(sc)
	if err != nil {
		return nil, err
	}
	return env, nil
}

// openMCP is the mcp factory: cfg.MCP, logging to log. The
// environment probes the server once (its tool list) under a context
// that outlives ctx, since the environment itself does.
func openMCP(ctx context.Context, cfg Config, log *slog.Logger) (envservice.Environment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := cfg.MCP
	c.Logger = log
	env, err := mcp.New(context.WithoutCancel(ctx), c)
	if err != nil {
		return nil, err
	}
	return env, nil
}

// openAvalon is the avalon factory: cfg.Avalon with its snapshots loaded
// by cfg.LoadPolicy into the opponent models.
func openAvalon(ctx context.Context, cfg Config, log *slog.Logger) (envservice.Environment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := cfg.Avalon
	a.Logger = log
	models, err := loadSnapshots(ctx, cfg.LoadPolicy, "env.avalon.snapshots", a.Models, a.Snapshots)
	if err != nil {
		return nil, err
	}
	a.Models = models
	env, err := avalon.NewEnv(a)
	if err != nil {
		return nil, err
	}
	return env, nil
}

// openDiplomacy is the diplomacy factory: cfg.Diplomacy with its
// snapshots loaded by cfg.LoadPolicy into the opponent models.
func openDiplomacy(ctx context.Context, cfg Config, log *slog.Logger) (envservice.Environment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d := cfg.Diplomacy
	d.Logger = log
	models, err := loadSnapshots(ctx, cfg.LoadPolicy, "env.diplomacy.snapshots", d.Models, d.Snapshots)
	if err != nil {
		return nil, err
	}
	d.Models = models
	env, err := dipgame.NewEnv(d)
	if err != nil {
		return nil, err
	}
	return env, nil
}

// loadSnapshots returns models with every snapshot (name -> policy
// directory) loaded by load under its name; key names the configuration
// section in errors. Without snapshots it returns models unchanged.
func loadSnapshots(ctx context.Context, load PolicyLoader, key string, models map[string]llm.ChatModel, snapshots map[string]string) (map[string]llm.ChatModel, error) {
	if len(snapshots) == 0 {
		return models, nil
	}
	if load == nil {
		return nil, fmt.Errorf("%s: no policy loader (builtin.Config.LoadPolicy) to load them with", key)
	}
	out := maps.Clone(models)
	if out == nil {
		out = map[string]llm.ChatModel{}
	}
	for _, name := range slices.Sorted(maps.Keys(snapshots)) {
		m, err := load(ctx, snapshots[name])
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", key, name, err)
		}
		out[name] = m
	}
	return out, nil
}
