package trainer

import (
	"context"
	"log/slog"

	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
)

// withToolworld returns opts able to build the built-in toolworld, as the
// command line does with builtin.Environments() (which this package's own
// tests cannot import: builtin imports trainer).
func withToolworld(opts Options) Options {
	if opts.Env == nil && opts.Environments == nil {
		opts.Environments = map[string]EnvFactory{toolworld.Name: func(_ context.Context, cfg EnvConfig, log *slog.Logger) (envservice.Environment, error) {
			tw := cfg.Toolworld
			return toolworld.New(toolworld.Config{
				Seed: tw.Seed, Compact: tw.Compact, SystemPrompt: tw.SystemPrompt, MaxLevel: tw.MaxLevel,
				TrainSize: tw.TrainSize, ValSize: tw.ValSize, TestSize: tw.TestSize, Logger: log,
			})
		}}
	}
	return opts
}
