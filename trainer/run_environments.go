package trainer

import (
	"context"
	"log/slog"

	"github.com/org/agentevolver/envservice"
)

// EnvFactory opens a built-in environment from the env section of the
// configuration. The trainer imports no concrete environment: the caller
// hands it the environments it may build by name in Options.Environments
// (the command line passes builtin.Environments() of package
// github.com/org/agentevolver/envs/builtin).
type EnvFactory func(ctx context.Context, cfg EnvConfig, log *slog.Logger) (envservice.Environment, error)
