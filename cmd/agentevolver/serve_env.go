package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"

	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/trainer"
)

func init() {
	register(command{
		name:    "serve-env",
		summary: "serve built-in environments over the env-service HTTP protocol",
		run:     runServeEnv,
	})
}

// runServeEnv serves the built-in environments (package envs/builtin, the
// allow-list) named by --env.
func runServeEnv(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	known := strings.Join(builtin.Names(), ", ")
	fs := flag.NewFlagSet("serve-env", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: agentevolver serve-env [--env NAME[,NAME...]] [--addr HOST:PORT] [flags]

Serves built-in environments over the env-service protocol of the Python
AgentEvolver (POST /get_env_profile, /create, /step, /evaluate, /get_info,
/release; GET /healthz) until interrupted. Prints "listening on http://ADDR"
once it accepts connections. Environments: %s.

Flags:
`, known)
		fs.PrintDefaults()
	}
	envs := fs.String("env", toolworld.Name, "comma-separated environments to serve ("+known+"); the first is the default env_type")
	addr := fs.String("addr", "127.0.0.1:8080", "TCP address to listen on (port 0 picks a free one)")
	maxInstances := fs.Int("max-instances", envservice.DefaultMaxInstances, "most live instances; creates beyond it get 429")
	idle := fs.Duration("idle-timeout", envservice.DefaultIdleTimeout, "release instances idle this long (negative: never)")
	sweep := fs.Duration("sweep-interval", envservice.DefaultSweepInterval, "how often to look for idle instances")
	maxBody := fs.Int64("max-body-bytes", envservice.DefaultMaxBodyBytes, "largest request body; larger ones get 413")
	shutdown := fs.Duration("shutdown-timeout", envservice.DefaultShutdownTimeout, "how long a shutdown waits for requests in flight")
	levelText := fs.String("log-level", "info", "log level: debug (one line per request), info, warn or error")
	seed := fs.Int64("seed", 0, "toolworld: task generation seed")
	compact := fs.Bool("compact", false, "toolworld: terse system prompt for small policies")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*levelText)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	switch {
	case *maxInstances <= 0:
		return errors.New("--max-instances must be positive")
	case *sweep <= 0:
		return errors.New("--sweep-interval must be positive")
	case *maxBody <= 0:
		return errors.New("--max-body-bytes must be positive")
	case *shutdown <= 0:
		return errors.New("--shutdown-timeout must be positive")
	case *idle == 0:
		return errors.New("--idle-timeout must not be zero (use a negative value to disable reaping)")
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	m := envservice.NewManager(envservice.ManagerConfig{
		MaxInstances:  *maxInstances,
		IdleTimeout:   *idle,
		SweepInterval: *sweep,
		Logger:        logger,
	})
	// The flags fill the env sections of a configuration, as train's
	// --set env.toolworld.seed=... does.
	envCfg := trainer.EnvConfig{Toolworld: trainer.ToolworldConfig{Seed: *seed, Compact: *compact}}
	factories := builtin.Environments()
	var names []string
	for name := range strings.SplitSeq(*envs, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		factory, ok := factories[name]
		if !ok {
			return fmt.Errorf("--env: unknown environment %q (available: %s)", name, known)
		}
		cfg := envCfg
		cfg.Type = name
		env, err := factory(ctx, cfg, logger.With("env_type", name))
		if err != nil {
			return fmt.Errorf("--env %s: %w", name, err)
		}
		if err := m.Register(name, env); err != nil {
			return err
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return errors.New("--env names no environment")
	}

	srv := envservice.NewServer(m, envservice.ServerConfig{
		MaxBodyBytes:    *maxBody,
		DefaultEnvType:  names[0],
		ShutdownTimeout: *shutdown,
		Logger:          logger,
	})
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "listening on http://%s\n", ln.Addr())
	return srv.Serve(ctx, ln)
}
