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
	"github.com/org/agentevolver/envs/mcp"
	"github.com/org/agentevolver/envs/sqlworld"
	"github.com/org/agentevolver/envs/textgame"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/trainer"
)

// ErrUnknownEnvironment reports a name that is not a built-in environment;
// Open's error wraps it and lists the known names.
var ErrUnknownEnvironment = errors.New("builtin: unknown environment")

// Environments returns the factories of the built-in environments by name
// (the env_type they are served as). The map is new on every call and
// belongs to the caller.
func Environments() map[string]trainer.EnvFactory {
	return map[string]trainer.EnvFactory{
		toolworld.Name: openToolworld,
		textgame.Name:  openTextgame,
		sqlworld.Name:  openSqlworld,
		mcp.Name:       openMCP,
		avalon.EnvName: openAvalon,
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
func Open(ctx context.Context, name string, cfg trainer.EnvConfig, log *slog.Logger) (envservice.Environment, error) {
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

// openToolworld is the toolworld factory: cfg.Toolworld mapped onto
// toolworld.Config.
func openToolworld(ctx context.Context, cfg trainer.EnvConfig, log *slog.Logger) (envservice.Environment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tc := cfg.Toolworld
	env, err := toolworld.New(toolworld.Config{
		Seed:          tc.Seed,
		Compact:       tc.Compact,
		SystemPrompt:  tc.SystemPrompt,
		TrainSize:     tc.TrainSize,
		ValSize:       tc.ValSize,
		TestSize:      tc.TestSize,
		MaxLevel:      tc.MaxLevel,
		MinLevel:      tc.MinLevel,
		Worlds:        tc.Worlds,
		WorldSeed:     tc.WorldSeed,
		TrainReserved: tc.TrainReserved,
		Logger:        log,
	})
	if err != nil {
		return nil, err // not a nil *toolworld.Env in a non-nil interface
	}
	return env, nil
}

// openTextgame is the textgame factory: cfg.Textgame mapped onto
// textgame.Config. Without open-adventure installed it fails with
// textgame.ErrNoBinary, which names the Debian package.
func openTextgame(ctx context.Context, cfg trainer.EnvConfig, log *slog.Logger) (envservice.Environment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tc := cfg.Textgame
	env, err := textgame.New(textgame.Config{
		Binary: tc.Binary, Seed: tc.Seed, MaxCommands: tc.MaxCommands, ReadTimeout: tc.ReadTimeout,
		MaxObservationBytes: tc.MaxObservationBytes, Logger: log,
	})
	if err != nil {
		return nil, err
	}
	return env, nil
}

// openSqlworld is the sqlworld factory: cfg.Sqlworld mapped onto
// sqlworld.Config. Without Debian's iso-codes it fails with
// sqlworld.ErrNoData, which names the package.
func openSqlworld(ctx context.Context, cfg trainer.EnvConfig, log *slog.Logger) (envservice.Environment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sc := cfg.Sqlworld
	env, err := sqlworld.New(sqlworld.Config{
		DataDir: sc.DataDir, Seed: sc.Seed, TrainSize: sc.TrainSize, ValSize: sc.ValSize, TestSize: sc.TestSize,
		MaxRows: sc.MaxRows, MaxObservationBytes: sc.MaxObservationBytes, StatementTimeout: sc.StatementTimeout,
		MaxActions: sc.MaxActions, MaxConns: sc.MaxConns, Logger: log,
	})
	if err != nil {
		return nil, err
	}
	return env, nil
}

// openMCP is the mcp factory: cfg.MCP mapped onto mcp.Config. The
// environment probes the server once (its tool list) under a context
// that outlives ctx, since the environment itself does.
func openMCP(ctx context.Context, cfg trainer.EnvConfig, log *slog.Logger) (envservice.Environment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := cfg.MCP
	env, err := mcp.New(context.WithoutCancel(ctx), mcp.Config{
		Server:   mcp.Server{Command: c.Command, Args: c.Args, Env: c.Env, Dir: c.Dir, URL: c.URL, Headers: c.Headers},
		TaskFile: c.TaskFile, Tools: c.Tools, Instructions: c.Instructions,
		CallTimeout: c.CallTimeout, StartTimeout: c.StartTimeout,
		MaxObservationBytes: c.MaxObservationBytes, MaxCalls: c.MaxCalls, Logger: log,
	})
	if err != nil {
		return nil, err
	}
	return env, nil
}

// DefaultAvalonOpponentMaxTokens is env.avalon.opponent_max_tokens's
// default.
const DefaultAvalonOpponentMaxTokens = 256

// openAvalon is the avalon factory: cfg.Avalon mapped onto
// avalon.EnvConfig (one seat of Avalon trained against the built-in
// baselines or saved snapshots of a policy, each loaded with
// trainer.LoadPolicy under the default configuration).
func openAvalon(ctx context.Context, cfg trainer.EnvConfig, log *slog.Logger) (envservice.Environment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := cfg.Avalon
	models := map[string]llm.ChatModel{}
	for _, name := range slices.Sorted(maps.Keys(a.Snapshots)) {
		p, err := trainer.LoadPolicy(ctx, trainer.DefaultConfig(), a.Snapshots[name])
		if err != nil {
			return nil, fmt.Errorf("env.avalon.snapshots.%s: %w", name, err)
		}
		models[name] = p.Model
	}
	maxTokens := a.OpponentMaxTokens
	if maxTokens == 0 {
		maxTokens = DefaultAvalonOpponentMaxTokens
	}
	env, err := avalon.NewEnv(avalon.EnvConfig{
		Game: avalon.Config{
			Players:         a.Players,
			Roles:           avalon.Roles{Percival: a.Percival, Morgana: a.Morgana, Mordred: a.Mordred, Oberon: a.Oberon},
			MaxRetries:      a.MaxRetries,
			MaxHistoryBytes: a.MaxHistoryBytes,
			// The opponents' sampling; the baselines ignore it.
			Chat: llm.ChatOptions{MaxTokens: maxTokens, Temperature: llm.Float(a.OpponentTemperature)},
		},
		Seat: a.Seat, Role: a.Role, Opponents: a.Opponents, Models: models, Seed: a.Seed,
		TrainTasks: a.TrainSize, ValTasks: a.ValSize, TestTasks: a.TestSize, Logger: log,
	})
	if err != nil {
		return nil, err
	}
	return env, nil
}
