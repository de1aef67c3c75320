package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
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

// envTokenVar is the environment variable --token falls back to: a value
// in the environment does not show in the process list as a flag does.
const envTokenVar = "AGENTEVOLVER_ENV_TOKEN"

// minTokenLen is the token length below which serve-env warns.
const minTokenLen = 16

// runServeEnv serves the built-in environments (package envs/builtin, the
// allow-list) named by --env.
func runServeEnv(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	return serveEnv(ctx, args, os.Getenv, stdout, stderr)
}

// serveEnv is runServeEnv with the environment lookup injected.
func serveEnv(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	known := strings.Join(builtin.Names(), ", ")
	fs := flag.NewFlagSet("serve-env", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: agentevolver serve-env [--env NAME[,NAME...]] [--addr HOST:PORT] [flags]

Serves built-in environments over the env-service protocol of the Python
AgentEvolver (POST /get_env_profile, /create, /step, /evaluate, /get_info,
/release; GET /healthz) until interrupted. Prints "listening on http://ADDR"
(https with --tls-cert) once it accepts connections. Environments: %s.

Security: with a token (--token or $%s) every route but /healthz needs
"Authorization: Bearer TOKEN", and callers with it may name their instance
ids. Without one, creates get unguessable server-chosen ids (returned in
info.instance_id, which the Go client uses), unless --trust-client-ids: the
Python trainer client, which keeps its own ids and sends no token, needs
that flag, on a loopback address. Every route but /healthz takes only
"Content-Type: application/json" (else 415) and refuses requests whose
Origin header is not localhost, the listen address or an --allowed-origin
(403), so that no web page can create instances; clients that send no
Origin (the Go and Python clients, curl) are unaffected.

Environments that start a process per instance (textgame; mcp with a
command) are limited together by --max-process-instances, well below
--max-instances.

Flags:
`, known, envTokenVar)
		fs.PrintDefaults()
	}
	envs := fs.String("env", toolworld.Name, "comma-separated environments to serve ("+known+"); the first is the default env_type")
	addr := fs.String("addr", "127.0.0.1:8080", "TCP address to listen on (port 0 picks a free one)")
	maxInstances := fs.Int("max-instances", envservice.DefaultMaxInstances, "most live instances; creates beyond it get 429")
	maxProcInstances := fs.Int("max-process-instances", envservice.DefaultMaxProcessInstances,
		"most live instances of environments that start a process per instance (textgame; mcp with a command), all together; "+
			"each is a process and perhaps a pty, so keep it within the machine's memory and kernel.pty.max")
	idle := fs.Duration("idle-timeout", envservice.DefaultIdleTimeout, "release instances idle this long (negative: never)")
	sweep := fs.Duration("sweep-interval", envservice.DefaultSweepInterval, "how often to look for idle instances")
	maxBody := fs.Int64("max-body-bytes", envservice.DefaultMaxBodyBytes, "largest request body; larger ones get 413")
	shutdown := fs.Duration("shutdown-timeout", envservice.DefaultShutdownTimeout, "how long a shutdown waits for requests in flight")
	token := fs.String("token", "", "bearer token every request but /healthz must carry; empty: $"+envTokenVar+
		" if set, else none (prefer the variable: flags show in the process list)")
	trustIDs := fs.Bool("trust-client-ids", false, "honour the instance ids callers without the token choose (the Python trainer client needs it); "+
		"otherwise they get server-minted ids")
	tlsCert := fs.String("tls-cert", "", "PEM certificate file: serve HTTPS (needs --tls-key)")
	tlsKey := fs.String("tls-key", "", "PEM private key file of --tls-cert")
	readTimeout := fs.Duration("read-timeout", envservice.DefaultReadTimeout, "longest time to receive one request, headers and body (negative: no limit beyond the 10 s header limit)")
	writeTimeout := fs.Duration("write-timeout", envservice.DefaultWriteTimeout, "longest time to send one answer, counted once the environment has answered, so slow steps are never cut (negative: no limit)")
	connIdle := fs.Duration("conn-idle-timeout", envservice.DefaultConnIdleTimeout, "close keep-alive connections idle this long (negative: never)")
	maxConns := fs.Int("max-connections", envservice.DefaultMaxConnections, "most connections open at once, idle ones included; more wait to be accepted (negative: no bound)")
	levelText := fs.String("log-level", "info", "log level: debug (one line per request), info, warn or error")
	seed := fs.Int64("seed", 0, "toolworld: task generation seed")
	compact := fs.Bool("compact", false, "toolworld: terse system prompt for small policies")
	var configs, sets stringList
	fs.Var(&configs, "config", "training configuration whose env sections configure the environments, as train reads them (repeatable)")
	var origins stringList
	fs.Var(&origins, "allowed-origin", "a web origin (scheme://host:port) whose pages may call the routes from a browser, "+
		"besides localhost and the listen address (repeatable); other Origins get 403")
	fs.Var(&sets, "set", "override one configuration key, for example --set env.mcp.task_file=tasks.jsonl (repeatable)")
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
	case *maxProcInstances <= 0:
		return errors.New("--max-process-instances must be positive")
	case *sweep <= 0:
		return errors.New("--sweep-interval must be positive")
	case *maxBody <= 0:
		return errors.New("--max-body-bytes must be positive")
	case *shutdown <= 0:
		return errors.New("--shutdown-timeout must be positive")
	case *idle == 0:
		return errors.New("--idle-timeout must not be zero (use a negative value to disable reaping)")
	case *readTimeout == 0, *writeTimeout == 0, *connIdle == 0:
		return errors.New("--read-timeout, --write-timeout and --conn-idle-timeout must not be zero (use a negative value for no limit)")
	case *maxConns == 0:
		return errors.New("--max-connections must not be zero (use a negative value for no bound)")
	case (*tlsCert == "") != (*tlsKey == ""):
		return errors.New("--tls-cert and --tls-key go together")
	}
	if *token == "" {
		*token = strings.TrimSpace(getenv(envTokenVar))
	}
	if strings.ContainsFunc(*token, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
		return errors.New("--token must be printable ASCII without spaces") // the value is a secret: not repeated
	}
	// Loaded here, so that a bad file fails before anything listens.
	var tlsConfig *tls.Config
	if *tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey)
		if err != nil {
			return fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if *token != "" && len(*token) < minTokenLen {
		logger.Warn(fmt.Sprintf("the token is shorter than %d characters; use a long random one (openssl rand -hex 32)", minTokenLen))
	}

	m := envservice.NewManager(envservice.ManagerConfig{
		MaxInstances:        *maxInstances,
		MaxProcessInstances: *maxProcInstances,
		IdleTimeout:         *idle,
		SweepInterval:       *sweep,
		Logger:              logger,
	})
	// The env sections of a configuration (--config, --set: the defaults
	// train would use when neither is given, but the environments' own
	// defaults for toolworld, as before) configure the environments;
	// --seed and --compact still set toolworld's.
	envCfg := builtin.Config{Toolworld: toolworld.Config{Seed: *seed, Compact: *compact}}
	if len(configs) > 0 || len(sets) > 0 {
		cfg, err := trainer.LoadConfig(configs, sets)
		if err != nil {
			return err
		}
		envCfg = cfg.Env.Config
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "seed":
				envCfg.Toolworld.Seed = *seed
			case "compact":
				envCfg.Toolworld.Compact = *compact
			}
		})
	}
	envCfg.LoadPolicy = trainer.LoadChatModel // Avalon's snapshot opponents
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
		env, err := factory(ctx, envCfg, logger.With("env_type", name))
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
		ReadTimeout:     *readTimeout,
		WriteTimeout:    *writeTimeout,
		ConnIdleTimeout: *connIdle,
		MaxConnections:  *maxConns,
		Token:           *token,
		TrustClientIDs:  *trustIDs,
		AllowedOrigins:  origins,
		TLSConfig:       tlsConfig,
		Logger:          logger,
	})
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", *addr)
	if err != nil {
		return err
	}
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
	}
	fmt.Fprintf(stdout, "listening on %s://%s\n", scheme, ln.Addr())
	return srv.Serve(ctx, ln)
}
