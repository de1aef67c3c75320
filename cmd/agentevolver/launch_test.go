//go:build unix

package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/org/agentevolver/trainer"
)

// launchCLIVar makes this test binary the agentevolver command (see
// TestLaunchHelperCLI): the companions launch starts run it.
const launchCLIVar = "AGENTEVOLVER_LAUNCH_TEST_CLI"

// TestLaunchHelperCLI is not a test: run as a companion (launchCLIVar
// set), it is agentevolver with the arguments after "--".
func TestLaunchHelperCLI(t *testing.T) {
	if os.Getenv(launchCLIVar) != "1" {
		t.Skip("the agentevolver command of the launch tests' companions")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, flag.Args(), os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// launchTest runs launch commands whose companions are this test binary,
// with their files under one temporary directory.
type launchTest struct {
	t      *testing.T
	dir    string // holds logs/, run/, .env
	logDir string
	runDir string
}

func newLaunchTest(t *testing.T) *launchTest {
	t.Setenv(launchCLIVar, "1")
	dir := t.TempDir()
	lt := &launchTest{t: t, dir: dir, logDir: filepath.Join(dir, "logs"), runDir: filepath.Join(dir, "run")}
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("# nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Whatever a test left running.
		var out, errOut bytes.Buffer
		if err := launch(context.Background(), []string{"stop", "--log-dir", lt.logDir}, lt.deps(&out, &errOut)); err != nil {
			t.Errorf("cleanup stop: %v\n%s%s", err, out.String(), errOut.String())
		}
	})
	return lt
}

func (lt *launchTest) deps(stdout, stderr *bytes.Buffer) launchDeps {
	return launchDeps{
		self:   []string{os.Args[0], "-test.run=^TestLaunchHelperCLI$", "--"},
		stdout: stdout, stderr: stderr,
	}
}

// run runs launch with args and returns its output.
func (lt *launchTest) run(args ...string) (string, error) {
	lt.t.Helper()
	var out, errOut bytes.Buffer
	err := launch(context.Background(), args, lt.deps(&out, &errOut))
	return out.String() + errOut.String(), err
}

// config writes a configuration file.
func (lt *launchTest) config(yaml string) string {
	path := filepath.Join(lt.dir, fmt.Sprintf("config-%d.yaml", time.Now().UnixNano()))
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		lt.t.Fatal(err)
	}
	return path
}

// base are the flags every launch of a test gives.
func (lt *launchTest) base() []string {
	return []string{"--set", "launch.log_dir=" + lt.logDir, "--set", "trainer.output_dir=" + lt.runDir,
		"--env-file", filepath.Join(lt.dir, ".env")}
}

// urlOf returns the URL a launch printed for a companion.
func urlOf(t *testing.T, out, name string) string {
	t.Helper()
	m := regexp.MustCompile(`companion ` + name + `: [^\n]*\) (http://\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no URL of %s in\n%s", name, out)
	}
	return strings.TrimSuffix(m[1], "/") + "/"
}

func get(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestLaunchCompanionsStatusStop(t *testing.T) {
	lt := newLaunchTest(t)
	cfg := lt.config(`
launch:
  companions:
    envs:
      kind: env
      envs: [toolworld]
      addr: 127.0.0.1:0
    page:
      kind: arena
      addr: 127.0.0.1:0
      optional: true
    viewer:
      kind: viewer
      addr: 127.0.0.1:0
      optional: true
`)
	args := append([]string{"--config", cfg, "--no-train", "--with", "page", "--with", "viewer"}, lt.base()...)
	out, err := lt.run(args...)
	if err != nil {
		t.Fatalf("launch: %v\n%s", err, out)
	}
	for _, name := range []string{"envs", "page", "viewer"} {
		if !strings.Contains(out, "companion "+name+": started") {
			t.Errorf("no start of %s in\n%s", name, out)
		}
	}
	envURL := urlOf(t, out, "envs")
	if code := get(t, envURL+"healthz"); code != http.StatusOK {
		t.Errorf("env service's /healthz: %d", code)
	}
	if code := get(t, urlOf(t, out, "page")); code != http.StatusOK {
		t.Errorf("arena page: %d", code)
	}
	if code := get(t, urlOf(t, out, "viewer")); code != http.StatusOK {
		t.Errorf("viewer page: %d", code)
	}
	// The backup loads as the configuration it records.
	backups, _ := filepath.Glob(filepath.Join(lt.runDir, "launch", "config-*.yaml"))
	if len(backups) != 1 {
		t.Fatalf("backups %v", backups)
	}
	back, err := trainer.LoadConfig([]string{backups[0]}, nil)
	if err != nil || back.Launch.Companions["envs"].Addr != "127.0.0.1:0" || back.Trainer.OutputDir != lt.runDir {
		t.Errorf("backup: %v, %+v", err, back.Launch)
	}
	// Logs are <name>.<hash>.<host>.log under launch.log_dir.
	logs, _ := filepath.Glob(filepath.Join(lt.logDir, "envs.*.*.log"))
	if len(logs) != 1 || !regexp.MustCompile(`envs\.[0-9a-f]{8}\.[^/]+\.log$`).MatchString(logs[0]) {
		t.Errorf("env service logs %v", logs)
	}

	// Launching again reuses all three.
	out, err = lt.run(args...)
	if err != nil || strings.Count(out, "already running, reused") != 3 || urlOf(t, out, "envs") != envURL {
		t.Fatalf("second launch: %v\n%s", err, out)
	}
	status, err := lt.run("status", "--log-dir", lt.logDir)
	if err != nil || strings.Count(status, " alive ") != 3 || !strings.Contains(status, strings.TrimSuffix(envURL, "/")) {
		t.Fatalf("status: %v\n%s", err, status)
	}
	// Stop one: the others run on.
	out, err = lt.run("stop", "--log-dir", lt.logDir, "envs")
	if err != nil || !strings.Contains(out, "companion envs: stopped") {
		t.Fatalf("stop envs: %v\n%s", err, out)
	}
	if _, err := http.Get(envURL + "healthz"); err == nil {
		t.Error("the env service answers after stop")
	}
	status, _ = lt.run("status", "--log-dir", lt.logDir)
	if strings.Contains(status, "envs") || strings.Count(status, " alive ") != 2 {
		t.Errorf("status after stop envs:\n%s", status)
	}
	out, err = lt.run("stop", "--log-dir", lt.logDir)
	if err != nil || strings.Count(out, ": stopped") != 2 {
		t.Fatalf("stop: %v\n%s", err, out)
	}
	if out, _ := lt.run("status", "--log-dir", lt.logDir); !strings.Contains(out, "no companion recorded") {
		t.Errorf("status after stop:\n%s", out)
	}
	if _, err := lt.run("stop", "--log-dir", lt.logDir, "nosuch"); err == nil || !strings.Contains(err.Error(), `no such companion "nosuch"`) {
		t.Errorf("stop nosuch: %v", err)
	}
}

func TestLaunchCompanionFailureStopsBeforeTraining(t *testing.T) {
	lt := newLaunchTest(t)
	cfg := lt.config(`
launch:
  companions:
    broken:
      shell: "echo 'cannot bind 127.0.0.1:8001' >&2; exit 1"
      ready_line: Uvicorn running on
    slow:
      shell: "echo starting; exec sleep 30"
      ready_line: never
      ready_timeout: 500ms
`)
	out, err := lt.run(append([]string{"--config", cfg}, lt.base()...)...)
	if err == nil {
		t.Fatalf("launch with a broken companion trained:\n%s", out)
	}
	msg := err.Error()
	for _, want := range []string{"not training", "companion broken: exited during start-up (exit status 1)", "cannot bind 127.0.0.1:8001",
		"companion slow: not ready in time", "waiting for the line \"never\"", filepath.Join(lt.logDir, "broken."), filepath.Join(lt.logDir, "slow.")} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if _, err := os.Stat(filepath.Join(lt.runDir, trainer.SummaryFile)); err == nil {
		t.Error("trained despite the failed companions")
	}
	if out, _ := lt.run("status", "--log-dir", lt.logDir); strings.Contains(out, " alive ") {
		t.Errorf("a failed companion still runs:\n%s", out)
	}
	// An explicit env file must exist.
	if _, err := lt.run("--no-train", "--env-file", filepath.Join(lt.dir, "missing.env")); err == nil || !strings.Contains(err.Error(), "--env-file") {
		t.Errorf("missing --env-file: %v", err)
	}
	// A name neither configured nor built in.
	if _, err := lt.run(append([]string{"--no-train", "--with", "nosuch"}, lt.base()...)...); err == nil || !strings.Contains(err.Error(), "$NOSUCH_SCRIPT is not set") {
		t.Errorf("--with nosuch: %v", err)
	}
}

// The .env file reaches the companions as python-dotenv would set it: the
// environment wins, and ${...} is interpolated; an original-style
// <NAME>_SCRIPT starts a companion with --with NAME.
func TestLaunchDotEnv(t *testing.T) {
	lt := newLaunchTest(t)
	t.Setenv("LAUNCH_TEST_A", "from-env")
	for _, k := range []string{"LAUNCH_TEST_B", "PYSVC_SCRIPT", "PYSVC_PATH"} {
		t.Cleanup(func() { os.Unsetenv(k) })
	}
	workdir := t.TempDir()
	dotenv := `LAUNCH_TEST_A=from-file
export LAUNCH_TEST_B="b ${LAUNCH_TEST_A}" # comment
PYSVC_SCRIPT="echo A=$LAUNCH_TEST_A B=$LAUNCH_TEST_B dir=$(pwd); echo 'Starting server on 127.0.0.1:8080'; exec sleep 30"
PYSVC_PATH=` + workdir + "\n"
	if err := os.WriteFile(filepath.Join(lt.dir, ".env"), []byte(dotenv), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := lt.run(append([]string{"--no-train", "--with", "pysvc"}, lt.base()...)...)
	if err != nil {
		t.Fatalf("launch: %v\n%s", err, out)
	}
	if !strings.Contains(out, "kept the environment's LAUNCH_TEST_A") {
		t.Errorf("no word of the kept variable:\n%s", out)
	}
	logs, _ := filepath.Glob(filepath.Join(lt.logDir, "pysvc.*.log"))
	if len(logs) != 1 {
		t.Fatalf("logs %v", logs)
	}
	data, _ := os.ReadFile(logs[0])
	if want := "A=from-env B=b from-env dir=" + workdir; !strings.Contains(string(data), want) {
		t.Errorf("companion saw %q, want %q", data, want)
	}
}

// launch trains, as train does, against an env service it started: the
// run's env section configures the service, the token from .env guards
// it, and the trainer reaches it at env.url.
func TestLaunchTrainsWithEnvCompanion(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	lt := newLaunchTest(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	t.Setenv(EnvTokenVar, "") // restored after the test; .env sets it below
	if err := os.WriteFile(filepath.Join(lt.dir, ".env"), []byte(EnvTokenVar+"=launch-test-token-0123456789\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := lt.config(`
env:
  type: toolworld
  url: http://` + addr + `
launch:
  companions:
    envs:
      kind: env
      envs: [toolworld]
      addr: ` + addr + `
`)
	args := append([]string{"--config", cfg, "--env-override"}, tinyRun(lt.runDir)...)
	args = append(args, "--set", "launch.log_dir="+lt.logDir, "--env-file", filepath.Join(lt.dir, ".env"),
		// A remote environment offers no demonstrations and no corpus.
		"--set", "warm_start.steps=0", "--set", "model.tokenizer=byte")
	out, err := lt.run(args...)
	if err != nil {
		t.Fatalf("launch: %v\n%s", err, out)
	}
	if !strings.Contains(out, "companion envs: started") || !strings.Contains(out, "outputs in "+lt.runDir) {
		t.Errorf("output:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(lt.runDir, trainer.SummaryFile)); err != nil {
		t.Errorf("no summary: %v", err)
	}
	// The service requires the token (from .env) the trainer sent.
	resp, err := http.Post("http://"+addr+"/get_env_profile", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the env service answered %d without the token, want 401", resp.StatusCode)
	}
}
