package launcher

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestServices(t *testing.T) {
	cfg := Config{Companions: map[string]Companion{
		"envs":   {Kind: KindEnv, Envs: []string{"toolworld", "sqlworld"}, Addr: "127.0.0.1:9000"},
		"reme":   {Shell: "reme http.port=8001", Dir: "/opt/reme", ReadyURL: "http://127.0.0.1:8001/health", Env: map[string]string{"B": "2", "A": "1"}},
		"arena":  {Kind: KindArena, Optional: true, Args: []string{"-v"}},
		"python": {Command: []string{"python", "-m", "env_service.env_service"}, ReadyLine: "Starting server on", ReadyTimeout: time.Minute},
	}}
	envFile := func() (string, []byte, error) { return "/run/env.yaml", []byte{1, 2}, nil }
	getenv := func(k string) string {
		return map[string]string{"APPWORLD_SCRIPT": "bash appworld.sh", "APPWORLD_PATH": "/opt/appworld"}[k]
	}
	services, err := cfg.Services([]string{"arena", "viewer", "appworld"}, Resolution{
		Self: []string{"/bin/agentevolver"}, RunDir: "/runs/x", EnvConfig: envFile, EnvToken: "secret", Getenv: getenv,
	})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Service{}
	var names []string
	for _, s := range services {
		byName[s.Name] = s
		names = append(names, s.Name)
	}
	if want := []string{"appworld", "arena", "envs", "python", "reme", "viewer"}; !slices.Equal(names, want) {
		t.Fatalf("services %v, want %v", names, want)
	}
	sh := shell()
	tests := []struct {
		name    string
		command []string
		dir     string
		ready   Ready
		env     []string
	}{
		{"appworld", []string{sh, "-c", "bash appworld.sh"}, "/opt/appworld", Ready{Line: PythonEnvReadyLine, Timeout: DefaultCommandReadyTimeout}, nil},
		{"arena", []string{"/bin/agentevolver", "arena", "serve", "--addr", DefaultArenaAddr, "-v"}, "", Ready{Line: ArenaReadyLine, Timeout: DefaultReadyTimeout}, nil},
		{"envs", []string{"/bin/agentevolver", "serve-env", "--addr", "127.0.0.1:9000", "--env", "toolworld,sqlworld", "--config", "/run/env.yaml"}, "",
			Ready{Line: EnvReadyLine, Timeout: DefaultReadyTimeout}, []string{"AGENTEVOLVER_ENV_TOKEN=secret"}},
		{"python", []string{"python", "-m", "env_service.env_service"}, "", Ready{Line: "Starting server on", Timeout: time.Minute}, nil},
		{"reme", []string{sh, "-c", "reme http.port=8001"}, "/opt/reme", Ready{URL: "http://127.0.0.1:8001/health", Timeout: DefaultCommandReadyTimeout}, []string{"A=1", "B=2"}},
		{"viewer", []string{"/bin/agentevolver", "view", "--addr", DefaultViewerAddr, "/runs/x"}, "", Ready{Line: ViewerReadyLine, Timeout: DefaultReadyTimeout}, nil},
	}
	for _, tt := range tests {
		s := byName[tt.name]
		if !slices.Equal(s.Command, tt.command) || s.Dir != tt.dir || s.Ready != tt.ready || !slices.Equal(s.Env, tt.env) {
			t.Errorf("%s: %+v\nwant command %q dir %q ready %+v env %q", tt.name, s, tt.command, tt.dir, tt.ready, tt.env)
		}
	}
	if string(byName["envs"].Identity) != "\x01\x02" {
		t.Errorf("env companion's identity %q, want the env file's digest", byName["envs"].Identity)
	}
	// The token is in the environment, not the command line, and changes
	// the identity.
	h1, _ := byName["envs"].hash()
	other := byName["envs"]
	other.Env = []string{"AGENTEVOLVER_ENV_TOKEN=other"}
	if h2, _ := other.hash(); h1 == h2 || strings.Contains(strings.Join(byName["envs"].Command, " "), "secret") {
		t.Error("the env token is on the command line or not part of the identity")
	}
}

func TestServicesErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		with []string
		want string
	}{
		{"unknown with", Config{}, []string{"reme"}, "no companion of that name (known: env, arena, viewer), and $REME_SCRIPT is not set"},
		{"bad kind", Config{Companions: map[string]Companion{"x": {Kind: "daemon"}}}, nil, `launch.companions.x: kind "daemon"`},
		{"bad name", Config{Companions: map[string]Companion{"a/b": {Command: []string{"true"}}}}, nil, "launch.companions.a/b: the name"},
		{"both commands", Config{Companions: map[string]Companion{"x": {Command: []string{"true"}, Shell: "true"}}}, nil, "command and shell are exclusive"},
		{"command on env", Config{Companions: map[string]Companion{"x": {Kind: KindEnv, Shell: "true"}}}, nil, "belong to kind command"},
		{"addr on command", Config{Companions: map[string]Companion{"x": {Addr: ":1", Shell: "true"}}}, nil, "belong to the built-in kinds"},
		{"bad addr", Config{Companions: map[string]Companion{"x": {Kind: KindArena, Addr: "nohost"}}}, nil, `addr "nohost"`},
		{"envs on arena", Config{Companions: map[string]Companion{"x": {Kind: KindArena, Envs: []string{"a"}}}}, nil, "envs belongs to kind env"},
		{"negative timeout", Config{Companions: map[string]Companion{"x": {Shell: "true", ReadyTimeout: -1}}}, nil, "ready_timeout"},
		{"bad ready url", Config{Companions: map[string]Companion{"x": {Shell: "true", ReadyURL: "localhost:1"}}}, nil, "ready_url"},
		{"bad env key", Config{Companions: map[string]Companion{"x": {Shell: "true", Env: map[string]string{"A=B": "1"}}}}, nil, "env key"},
		{"no script", Config{Companions: map[string]Companion{"x": {}}}, nil, "no command, no shell and $X_SCRIPT is not set"},
		{"negative grace", Config{StopGrace: -time.Second}, nil, "launch.stop_grace"},
		{"no self", Config{Companions: map[string]Companion{"e": {Kind: KindEnv}}}, nil, "no agentevolver command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.cfg.Services(tt.with, Resolution{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%v, want %q", err, tt.want)
			}
		})
	}
	// An env file that cannot be written stops the env companion.
	cfg := Config{Companions: map[string]Companion{"e": {Kind: KindEnv}}}
	_, err := cfg.Services(nil, Resolution{Self: []string{"x"}, EnvConfig: func() (string, []byte, error) { return "", nil, errors.New("disk full") }})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("env file error: %v", err)
	}
}
