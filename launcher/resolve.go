package launcher

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// Ready lines of the built-in kinds: what "agentevolver serve-env",
// "agentevolver arena serve" and "agentevolver view" print once they
// accept connections, followed by their URL.
const (
	EnvReadyLine    = "listening on http"
	ArenaReadyLine  = "arena: serving http"
	ViewerReadyLine = "view: serving http"
)

// Ready lines of the original's companions started from .env scripts
// (its launcher's success strings).
const (
	RemeReadyLine      = "Uvicorn running on"
	PythonEnvReadyLine = "Starting server on"
	remeCompanion      = "reme"
)

// Resolution is what Config.Services needs besides the configuration.
type Resolution struct {
	// Self is the command that runs agentevolver (the running binary,
	// os.Executable), for the built-in kinds.
	Self []string
	// RunDir is the run's output directory, which the viewer shows.
	RunDir string
	// EnvConfig, when set, writes a YAML file of the run's env section
	// that serve-env reads with --config, so that the served environments
	// are configured as the run's, and returns its path and its content's
	// digest (part of the service's identity). It is called only when an
	// env companion is started.
	EnvConfig func() (path string, digest []byte, err error)
	// EnvToken is the bearer token serve-env requires, passed in its
	// environment (never on its command line); empty sets none.
	EnvToken string
	// Getenv reads $<NAME>_SCRIPT and $<NAME>_PATH; nil reads nothing.
	Getenv func(string) string
}

// Services returns the services to start: every companion of the
// configuration that is not optional, then those named in with, in name
// order. A name in with that the configuration lacks is a built-in kind
// ("env", "arena", "viewer") with its defaults, or a command from
// $<NAME>_SCRIPT as the original's --with-<name> flags start them; any
// other name is an error listing the known ones.
func (c Config) Services(with []string, r Resolution) ([]Service, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if r.Getenv == nil {
		r.Getenv = func(string) string { return "" }
	}
	chosen := map[string]Companion{}
	for name, comp := range c.Companions {
		if !comp.Optional {
			chosen[name] = comp
		}
	}
	for _, name := range with {
		if comp, ok := c.Companions[name]; ok {
			chosen[name] = comp
			continue
		}
		switch {
		case slices.Contains([]string{KindEnv, KindArena, KindViewer}, name):
			chosen[name] = Companion{Kind: name}
		case r.Getenv(scriptVar(name)) != "":
			chosen[name] = Companion{Kind: KindCommand}
		default:
			known := append(sortedNames(c.Companions), KindEnv, KindArena, KindViewer)
			return nil, fmt.Errorf("launcher: --with %s: no companion of that name (known: %s), and $%s is not set",
				name, strings.Join(known, ", "), scriptVar(name))
		}
	}
	out := make([]Service, 0, len(chosen))
	for _, name := range sortedNames(chosen) {
		comp := chosen[name]
		if err := comp.validate(name); err != nil {
			return nil, err
		}
		s, err := comp.service(name, r)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// service resolves one companion.
func (c Companion) service(name string, r Resolution) (Service, error) {
	s := Service{Name: name, URL: c.URL, Ready: Ready{URL: c.ReadyURL, Line: c.ReadyLine, Timeout: c.ReadyTimeout}}
	for _, k := range sortedNames(c.Env) {
		s.Env = append(s.Env, k+"="+c.Env[k])
	}
	kind := c.kind()
	if kind != KindCommand && len(r.Self) == 0 {
		return Service{}, fmt.Errorf("launcher: companion %s: no agentevolver command to run", name)
	}
	self := slices.Clone(r.Self)
	addr := func(def string) string {
		if c.Addr != "" {
			return c.Addr
		}
		return def
	}
	switch kind {
	case KindEnv:
		s.Command = append(self, "serve-env", "--addr", addr(DefaultEnvAddr))
		if len(c.Envs) > 0 {
			s.Command = append(s.Command, "--env", strings.Join(c.Envs, ","))
		}
		if r.EnvConfig != nil {
			path, digest, err := r.EnvConfig()
			if err != nil {
				return Service{}, fmt.Errorf("launcher: companion %s: %w", name, err)
			}
			s.Command = append(s.Command, "--config", path)
			s.Identity = digest
		}
		if r.EnvToken != "" {
			s.Env = append(s.Env, "AGENTEVOLVER_ENV_TOKEN="+r.EnvToken)
		}
		s.Command = append(s.Command, c.Args...)
		if s.Ready.URL == "" && s.Ready.Line == "" {
			s.Ready.Line = EnvReadyLine
		}
	case KindArena:
		s.Command = append(append(self, "arena", "serve", "--addr", addr(DefaultArenaAddr)), c.Args...)
		if s.Ready.URL == "" && s.Ready.Line == "" {
			s.Ready.Line = ArenaReadyLine
		}
	case KindViewer:
		if r.RunDir == "" {
			return Service{}, fmt.Errorf("launcher: companion %s: the viewer needs the run's directory", name)
		}
		a := addr(DefaultViewerAddr)
		s.Command = append(append(append(self, "view", "--addr", a), c.Args...), r.RunDir)
		if s.Ready.URL == "" && s.Ready.Line == "" {
			s.Ready.Line = ViewerReadyLine
		}
	case KindCommand:
		switch {
		case len(c.Command) > 0:
			s.Command = slices.Clone(c.Command)
			s.Dir = c.Dir
		case c.Shell != "":
			s.Command = []string{shell(), "-c", c.Shell}
			s.Dir = c.Dir
		default:
			script := r.Getenv(scriptVar(name))
			if script == "" {
				return Service{}, fmt.Errorf("launcher: companion %s: no command, no shell and $%s is not set", name, scriptVar(name))
			}
			s.Command = []string{shell(), "-c", script}
			s.Dir = c.Dir
			if s.Dir == "" {
				s.Dir = r.Getenv(pathVar(name))
			}
			if s.Ready.URL == "" && s.Ready.Line == "" {
				s.Ready.Line = PythonEnvReadyLine
				if strings.EqualFold(name, remeCompanion) {
					s.Ready.Line = RemeReadyLine
				}
			}
		}
	}
	if s.Ready.Timeout == 0 {
		s.Ready.Timeout = DefaultReadyTimeout
		if kind == KindCommand {
			s.Ready.Timeout = DefaultCommandReadyTimeout
		}
	}
	return s, nil
}

// shell returns the shell that runs command lines: bash, as the
// original, else sh.
func shell() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// scriptVar and pathVar name the original's .env variables of a
// companion: <NAME>_SCRIPT and <NAME>_PATH.
func scriptVar(name string) string { return envName(name) + "_SCRIPT" }
func pathVar(name string) string   { return envName(name) + "_PATH" }

func envName(name string) string {
	return strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}
