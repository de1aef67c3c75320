package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/trainer"
)

func init() {
	register(command{
		name:    "train",
		summary: "train a policy (with no flags: the built-in toolworld job on the pure-Go backend)",
		run:     runTrain,
	})
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func runTrain(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var configs, sets stringList
	fs.Var(&configs, "config", "YAML configuration file, layered over the defaults (repeatable)")
	fs.Var(&sets, "set", "override one key, for example --set trainer.rl_steps=10 (repeatable)")
	resume := fs.Bool("resume", false, "continue from the last checkpoint in the output directory")
	overwrite := fs.Bool("overwrite", false, "start afresh in an output directory that holds a run, removing that run's files")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn or error")
	printConfig := fs.Bool("print-config", false, "print the resolved configuration as YAML and exit")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := trainer.LoadConfig(configs, sets)
	if err != nil {
		return err
	}
	if *printConfig {
		cfg.Env.Token = redactToken(cfg.Env.Token)
		data, err := cfg.YAML()
		if err != nil {
			return err
		}
		_, err = stdout.Write(data)
		return err
	}
	log, err := newLogger(stderr, *logLevel)
	if err != nil {
		return err
	}
	stopProfile, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	cfg.Env.Token = envToken(cfg.Env.Token)
	opts := trainerOptions(log, stdout)
	opts.Resume, opts.Overwrite = *resume, *overwrite
	t, err := trainer.New(cfg, opts)
	if err != nil {
		return err
	}
	s, err := t.Fit(ctx)
	if err != nil {
		return err
	}
	before := "after the warm start"
	if cfg.WarmStart.Steps == 0 {
		before = "before RL"
	}
	fmt.Fprintf(stdout, "outputs in %s (seed %d, validation success %s %.1f%%, after RL %.1f%%)\n",
		cfg.Trainer.OutputDir, s.Seed, before, 100*s.ValSuccessWarmStart, 100*s.ValSuccessFinal)
	return nil
}

// trainerOptions are the trainer options every command that trains or
// evaluates uses: the logger, the output and the built-in environments.
func trainerOptions(log *slog.Logger, out io.Writer) trainer.Options {
	return trainer.Options{Logger: log, Output: out, Environments: builtin.Environments()}
}

// EnvTokenVar is the environment variable holding the env service's
// bearer token when env.token (train, eval) or --token (serve-env) is
// empty; a token there stays out of shell history and process listings.
const EnvTokenVar = "AGENTEVOLVER_ENV_TOKEN"

// envToken returns token, or $AGENTEVOLVER_ENV_TOKEN when token is empty.
func envToken(token string) string {
	if token != "" {
		return token
	}
	return os.Getenv(EnvTokenVar)
}

// redactToken hides a token in printed configurations.
func redactToken(token string) string {
	if token == "" {
		return ""
	}
	return "(redacted)"
}

// newLogger returns a text logger at level.
func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("bad --log-level %q: %w", level, err)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}
