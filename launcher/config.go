package launcher

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The kinds of companion a configuration names.
const (
	// KindEnv is the built-in environments served by "agentevolver
	// serve-env" (Companion.Envs on Companion.Addr).
	KindEnv = "env"
	// KindCommand is any program: a remote environment service (the
	// Python env service of AppWorld or BFCL), the experience service
	// (ReMe), started from Companion.Command or Companion.Shell.
	KindCommand = "command"
	// KindArena is the arena's web page, "agentevolver arena serve".
	KindArena = "arena"
	// KindViewer is the run viewer, "agentevolver view RUN_DIR".
	KindViewer = "viewer"
)

// Default addresses of the built-in kinds: serve-env's and arena serve's
// own defaults, and the original's log viewer port.
const (
	DefaultEnvAddr    = "127.0.0.1:8080"
	DefaultArenaAddr  = "127.0.0.1:8000"
	DefaultViewerAddr = "127.0.0.1:8181"
)

// Default readiness timeouts: the built-in services start in seconds; a
// command may set up a Python environment first (the original waits 1800
// s for every companion).
const (
	DefaultReadyTimeout        = time.Minute
	DefaultCommandReadyTimeout = 30 * time.Minute
)

// DefaultLogDir is Config.LogDir's default, relative to the working
// directory: where the original keeps its companions' logs.
const DefaultLogDir = "logs/companion"

// DefaultStopGrace is Config.StopGrace's default.
const DefaultStopGrace = 5 * time.Second

// Config is the launch section of a run's configuration (YAML key
// "launch" of trainer.Config): the companion services "agentevolver
// launch" starts beside training. The zero value starts none.
type Config struct {
	// Companions are the services by name. Each is started unless it is
	// Optional; "agentevolver launch --with NAME" starts an optional one,
	// or a built-in kind by its name ("env", "arena", "viewer") with its
	// defaults. A name is letters, digits, "-" and "_" (at most 64); it
	// tags the service's log and record files and is what "launch stop
	// NAME" stops.
	Companions map[string]Companion `yaml:"companions"`
	// LogDir holds each companion's log and record files
	// (<name>.<hash>.<host>.log and .json); empty means DefaultLogDir.
	// Relative paths are relative to the working directory.
	LogDir string `yaml:"log_dir"`
	// StopGrace is how long "launch stop" waits after SIGTERM before it
	// sends SIGKILL to a companion's process group; 0 means
	// DefaultStopGrace.
	StopGrace time.Duration `yaml:"stop_grace"`
}

// Companion is one service of Config.Companions.
type Companion struct {
	// Kind is KindEnv, KindCommand, KindArena or KindViewer; empty means
	// KindCommand.
	Kind string `yaml:"kind"`
	// Optional companions start only when "launch --with NAME" asks.
	Optional bool `yaml:"optional"`
	// Addr is where a built-in kind listens (serve-env --addr, arena
	// serve --addr, view --addr); empty means its default
	// (DefaultEnvAddr, DefaultArenaAddr, DefaultViewerAddr). Port 0 picks
	// a free port, which the service prints and the launcher records.
	Addr string `yaml:"addr"`
	// Envs are the environments KindEnv serves (serve-env --env; the
	// first is the default env_type); empty means serve-env's default.
	Envs []string `yaml:"envs"`
	// Args are extra arguments of a built-in kind's command, before the
	// run directory of KindViewer.
	Args []string `yaml:"args"`
	// Command is KindCommand's program and arguments, run directly.
	Command []string `yaml:"command"`
	// Shell is KindCommand's command line, run with "bash -c" (sh
	// without bash), as the original runs <NAME>_SCRIPT. With neither
	// Command nor Shell the command line is $<NAME>_SCRIPT and the
	// directory $<NAME>_PATH (NAME upper-cased, "-" as "_"), the
	// original's .env convention.
	Shell string `yaml:"shell"`
	// Dir is the working directory of the command; empty means the
	// launcher's.
	Dir string `yaml:"dir"`
	// Env are variables set for the service over the launcher's
	// environment (which holds the .env file's).
	Env map[string]string `yaml:"env"`
	// URL is where the service answers, shown by "launch status"; empty
	// takes the URL its ready line prints, or ReadyURL's origin.
	URL string `yaml:"url"`
	// ReadyURL, when set, is polled until it answers 2xx or 3xx.
	ReadyURL string `yaml:"ready_url"`
	// ReadyLine, when set, is text the service's log must contain once
	// it is ready. The built-in kinds have theirs; a command named after
	// the original's companions has the original's ("Uvicorn running on"
	// for reme, "Starting server on" for the Python env service). With
	// neither ReadyURL nor ReadyLine a command is ready once it has run
	// for a second without exiting.
	ReadyLine string `yaml:"ready_line"`
	// ReadyTimeout bounds the wait for readiness; 0 means
	// DefaultReadyTimeout for the built-in kinds and
	// DefaultCommandReadyTimeout for commands.
	ReadyTimeout time.Duration `yaml:"ready_timeout"`
}

// namePattern is what a companion name may be: it becomes part of file
// names.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// kinds are the known Companion.Kind values.
var kinds = []string{KindEnv, KindCommand, KindArena, KindViewer}

// Validate reports every problem of the section, each naming its key.
func (c Config) Validate() error {
	var errs []error
	if c.StopGrace < 0 {
		errs = append(errs, fmt.Errorf("launch.stop_grace %v < 0", c.StopGrace))
	}
	for _, name := range sortedNames(c.Companions) {
		if err := c.Companions[name].validate(name); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (c Companion) validate(name string) error {
	key := "launch.companions." + name
	var errs []string
	add := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if !namePattern.MatchString(name) {
		add("the name must be letters, digits, - and _ (at most 64), starting with a letter or digit")
	}
	kind := c.kind()
	if !slices.Contains(kinds, kind) {
		add("kind %q: want %s", c.Kind, strings.Join(kinds, ", "))
	}
	if kind == KindCommand {
		if len(c.Command) > 0 && c.Shell != "" {
			add("command and shell are exclusive")
		}
		if c.Addr != "" || len(c.Envs) > 0 || len(c.Args) > 0 {
			add("addr, envs and args belong to the built-in kinds; a command names its own")
		}
	} else {
		if len(c.Command) > 0 || c.Shell != "" || c.Dir != "" {
			add("command, shell and dir belong to kind command")
		}
		if c.Addr != "" {
			if _, _, err := net.SplitHostPort(c.Addr); err != nil {
				add("addr %q: %v", c.Addr, err)
			}
		}
		if kind != KindEnv && len(c.Envs) > 0 {
			add("envs belongs to kind env")
		}
	}
	for k := range c.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			add("env key %q: not a variable name", k)
		}
	}
	if c.ReadyTimeout < 0 {
		add("ready_timeout %v < 0", c.ReadyTimeout)
	}
	if c.ReadyURL != "" && !strings.HasPrefix(c.ReadyURL, "http://") && !strings.HasPrefix(c.ReadyURL, "https://") {
		add("ready_url %q: want an http:// or https:// URL", c.ReadyURL)
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %s", key, strings.Join(errs, "; "))
}

// kind returns the companion's kind, KindCommand for empty.
func (c Companion) kind() string {
	if c.Kind == "" {
		return KindCommand
	}
	return c.Kind
}

// logDir returns LogDir or its default.
func (c Config) logDir() string {
	if c.LogDir == "" {
		return DefaultLogDir
	}
	return c.LogDir
}

// sortedNames returns the map's keys in order.
func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
