package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/org/agentevolver/internal/fsutil"
	"github.com/org/agentevolver/launcher"
	"github.com/org/agentevolver/launcher/dotenv"
	"github.com/org/agentevolver/trainer"
)

func init() {
	register(command{
		name:    "launch",
		summary: "start the companion services a configuration names, then train (launch status, launch stop)",
		run:     runLaunch,
	})
}

const launchUsage = `Usage:
  agentevolver launch [--config FILE]... [--set key=value]... [--with NAME]... [flags]
  agentevolver launch status [--config FILE]... [--log-dir DIR]
  agentevolver launch stop [--config FILE]... [--log-dir DIR] [NAME...]

Reads .env in the working directory (KEY=VALUE lines, as the original's
launcher reads it with python-dotenv: a variable already in the environment
wins unless --env-override), starts the companion services of the
configuration's launch section (built-in environments through serve-env,
commands such as the Python env service or ReMe, the arena's page, the run
viewer), each detached in its own process group with its log under
launch.log_dir (logs/companion/<name>.<hash>.<host>.log), reusing one that
already runs; waits until they are ready; backs up the resolved
configuration to <trainer.output_dir>/launch/; then trains as "agentevolver
train" does with the same --config and --set. Companions keep running after
training: "launch status" lists them, "launch stop [NAME...]" stops them
(only the process groups launch recorded). See docs/launcher.md.

--with NAME starts an optional companion of the configuration, a built-in
one with its defaults (env, arena, viewer), or a command from the .env
variables <NAME>_SCRIPT and <NAME>_PATH (the original's --with-<name>).

Flags:
`

func runLaunch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the agentevolver binary: %w", err)
	}
	return launch(ctx, args, launchDeps{self: []string{self}, stdin: stdin, stdout: stdout, stderr: stderr})
}

// launchDeps are what launch takes from the process: how to run this
// binary (a test runs its own), and the streams.
type launchDeps struct {
	self           []string
	stdin          io.Reader
	stdout, stderr io.Writer
}

// launch is the launch command and its status and stop subcommands.
func launch(ctx context.Context, args []string, d launchDeps) error {
	if len(args) > 0 {
		switch args[0] {
		case "status":
			return launchStatus(ctx, args[1:], d)
		case "stop":
			return launchStop(ctx, args[1:], d)
		}
	}
	flags := flag.NewFlagSet("launch", flag.ContinueOnError)
	flags.SetOutput(d.stderr)
	flags.Usage = func() { fmt.Fprint(d.stderr, launchUsage); flags.PrintDefaults() }
	var configs, sets, with stringList
	flags.Var(&configs, "config", "YAML configuration file, layered over the defaults (repeatable)")
	flags.Var(&sets, "set", "override one key, for example --set launch.companions.envs.addr=127.0.0.1:9000 (repeatable)")
	flags.Var(&with, "with", "also start this companion: an optional one of the configuration, env, arena, viewer, or one from $<NAME>_SCRIPT (repeatable)")
	envFile := flags.String("env-file", ".env", "variables to read first; empty reads none (a missing .env is skipped, a missing other file is an error)")
	envOverride := flags.Bool("env-override", false, "let the env file's values win over variables already set")
	restart := flags.Bool("restart", false, "stop running instances of the companions first, so they start afresh")
	noTrain := flags.Bool("no-train", false, "start the companions and exit without training")
	resume := flags.Bool("resume", false, "train: continue from the last checkpoint in the output directory")
	overwrite := flags.Bool("overwrite", false, "train: start afresh in an output directory that holds a run")
	logLevel := flags.String("log-level", "warn", "train's log level: debug, info, warn or error")
	if err := parseFlags(flags, args); err != nil {
		return err
	}
	if *envFile != "" {
		res, err := dotenv.Load(*envFile, dotenv.OSEnv{}, *envOverride)
		switch {
		case errors.Is(err, fs.ErrNotExist) && !flagSet(flags, "env-file"):
		case err != nil:
			return fmt.Errorf("--env-file: %w", err)
		default:
			for _, e := range res.Skipped {
				fmt.Fprintf(d.stderr, "agentevolver launch: warning: %v (skipped)\n", e)
			}
			fmt.Fprintf(d.stderr, "agentevolver launch: %s set %d variables", *envFile, len(res.Set))
			if len(res.Kept) > 0 {
				fmt.Fprintf(d.stderr, "; kept the environment's %s", strings.Join(res.Kept, ", "))
			}
			fmt.Fprintln(d.stderr)
		}
	}
	cfg, warnings, err := trainer.LoadConfigWarnings(trainer.DefaultConfig(), configs, sets)
	if err != nil {
		return err
	}
	printWarnings(d.stderr, "launch", warnings)
	if err := cfg.Launch.Validate(); err != nil {
		return err
	}
	runDir := cfg.Trainer.OutputDir
	backup, err := backupConfig(cfg, runDir)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.stdout, "configuration backed up to %s\n", backup)

	absRunDir, err := filepath.Abs(runDir)
	if err != nil {
		return err
	}
	services, err := cfg.Launch.Services(with, launcher.Resolution{
		Self: d.self, RunDir: absRunDir,
		EnvConfig: func() (string, []byte, error) { return writeEnvConfig(cfg) },
		EnvToken:  envToken(cfg.Env.Token), Getenv: os.Getenv,
	})
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(d.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	l := launcher.New(cfg.Launch, log)
	if *restart && len(services) > 0 {
		var names []string
		for _, s := range services {
			names = append(names, s.Name)
		}
		stopped, err := l.Stop(ctx, names...)
		if err != nil && !errors.Is(err, launcher.ErrUnknown) {
			return err
		}
		printStopped(d.stdout, stopped)
	}
	if len(services) > 0 {
		fmt.Fprintf(d.stdout, "starting %d companion(s); logs in %s\n", len(services), l.Dir)
	}
	insts, err := l.Start(ctx, services)
	for _, in := range insts {
		how := "started"
		if in.Reused {
			how = "already running, reused"
		}
		fmt.Fprintf(d.stdout, "companion %s: %s (pid %d, process group %d) %s\n  log: %s\n", in.Name, how, in.PID, in.PGID, in.URL, in.Log)
	}
	if err != nil {
		if len(insts) > 0 {
			fmt.Fprintln(d.stderr, "agentevolver launch: the companions above keep running (agentevolver launch stop)")
		}
		return fmt.Errorf("not training: %w", err)
	}
	if *noTrain {
		if len(insts) > 0 {
			fmt.Fprintln(d.stdout, "companions run in the background: agentevolver launch status, agentevolver launch stop")
		}
		return nil
	}

	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go l.Watch(watchCtx, insts, func(_ *launcher.Instance, err error) {
		fmt.Fprintf(d.stderr, "agentevolver launch: %v\n", err)
	})
	trainArgs := []string{"--log-level", *logLevel}
	for _, c := range configs {
		trainArgs = append(trainArgs, "--config", c)
	}
	for _, s := range sets {
		trainArgs = append(trainArgs, "--set", s)
	}
	if *resume {
		trainArgs = append(trainArgs, "--resume")
	}
	if *overwrite {
		trainArgs = append(trainArgs, "--overwrite")
	}
	err = runTrain(ctx, trainArgs, d.stdin, d.stdout, d.stderr)
	if len(insts) > 0 {
		fmt.Fprintln(d.stdout, "companions keep running: agentevolver launch status, agentevolver launch stop")
	}
	return err
}

// flagSet reports whether the named flag was given.
func flagSet(flags *flag.FlagSet, name string) bool {
	set := false
	flags.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// backupConfig writes the resolved configuration (without the env
// token) to <runDir>/launch/config-<UTC time>.yaml, never over an earlier
// backup.
func backupConfig(cfg trainer.Config, runDir string) (string, error) {
	cfg.Env.Token = redactToken(cfg.Env.Token)
	data, err := resolvedConfigYAML(cfg)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(runDir, "launch")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("back up the configuration: %w", err)
	}
	stamp := time.Now().UTC().Format("20060102T150405.000Z")
	path := filepath.Join(dir, "config-"+stamp+".yaml")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("back up the configuration: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", fmt.Errorf("back up the configuration: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("back up the configuration: %w", err)
	}
	return path, nil
}

// writeEnvConfig writes the run's env section (without URL and token)
// where serve-env companions read it: a file named by its content's
// digest in the log directory, so that a change to the section starts a
// new env service instead of reusing one configured otherwise.
func writeEnvConfig(cfg trainer.Config) (path string, digest []byte, err error) {
	env := cfg.Env
	env.URL, env.Token, env.Companion, env.CAFile = "", "", false, ""
	data, err := yaml.Marshal(struct {
		Env trainer.EnvConfig `yaml:"env"`
	}{env})
	if err != nil {
		return "", nil, fmt.Errorf("env configuration: %w", err)
	}
	sum := sha256.Sum256(data)
	dir := cfg.Launch.LogDir
	if dir == "" {
		dir = launcher.DefaultLogDir
	}
	path = filepath.Join(dir, "serve-env."+hex.EncodeToString(sum[:4])+".yaml")
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if old, err := os.ReadFile(path); err != nil || string(old) != string(data) {
		if err := fsutil.WriteFile(path, data); err != nil {
			return "", nil, fmt.Errorf("env configuration: %w", err)
		}
	}
	return path, sum[:], nil
}

// launchLogDir parses the flags of launch status and stop and returns the
// log directory they name and the remaining arguments.
func launchLogDir(name string, args []string, d launchDeps) (*launcher.Launcher, []string, error) {
	flags := flag.NewFlagSet("launch "+name, flag.ContinueOnError)
	flags.SetOutput(d.stderr)
	var configs, sets stringList
	flags.Var(&configs, "config", "configuration whose launch.log_dir to read (repeatable)")
	flags.Var(&sets, "set", "override one configuration key (repeatable)")
	logDir := flags.String("log-dir", "", "the companions' log directory (default: launch.log_dir, else "+launcher.DefaultLogDir+")")
	flags.Usage = func() { fmt.Fprint(d.stderr, launchUsage); flags.PrintDefaults() }
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, errHelp
		}
		return nil, nil, err
	}
	var cfg launcher.Config
	if len(configs) > 0 || len(sets) > 0 {
		c, warnings, err := trainer.LoadConfigWarnings(trainer.DefaultConfig(), configs, sets)
		if err != nil {
			return nil, nil, err
		}
		printWarnings(d.stderr, "launch "+name, warnings)
		cfg = c.Launch
	}
	if *logDir != "" {
		cfg.LogDir = *logDir
	}
	return launcher.New(cfg, nil), flags.Args(), nil
}

func launchStatus(ctx context.Context, args []string, d launchDeps) error {
	l, rest, err := launchLogDir("status", args, d)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("unexpected arguments %q", rest)
	}
	sts, err := l.Status(ctx)
	if len(sts) == 0 && err == nil {
		fmt.Fprintf(d.stdout, "no companion recorded in %s\n", l.Dir)
		return nil
	}
	tw := tabwriter.NewWriter(d.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tPID\tPGID\tUPTIME\tURL\tLOG")
	for _, s := range sts {
		state, uptime := "dead", "-"
		if s.Alive {
			state, uptime = "alive", s.Uptime.String()
		}
		url := s.URL
		if url == "" {
			url = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\n", s.Name, state, s.PID, s.PGID, uptime, url, s.Log)
	}
	if ferr := tw.Flush(); ferr != nil {
		return ferr
	}
	return err
}

func launchStop(ctx context.Context, args []string, d launchDeps) error {
	l, names, err := launchLogDir("stop", args, d)
	if err != nil {
		return err
	}
	stopped, err := l.Stop(ctx, names...)
	printStopped(d.stdout, stopped)
	if len(stopped) == 0 && err == nil {
		fmt.Fprintf(d.stdout, "no companion recorded in %s\n", l.Dir)
	}
	return err
}

// printStopped says what Stop did.
func printStopped(w io.Writer, stopped []launcher.Stopped) {
	for _, s := range stopped {
		switch {
		case !s.WasRunning:
			fmt.Fprintf(w, "companion %s: was not running (pid %d); record removed, log kept: %s\n", s.Name, s.PID, s.Log)
		case s.Killed:
			fmt.Fprintf(w, "companion %s: killed (process group %d outlived SIGTERM); log: %s\n", s.Name, s.PGID, s.Log)
		default:
			fmt.Fprintf(w, "companion %s: stopped (process group %d); log: %s\n", s.Name, s.PGID, s.Log)
		}
	}
}
