package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envs/sqlworld"
	"github.com/org/agentevolver/envs/textgame"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/trainer"
)

func TestServeEnvCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- runServeEnv(ctx, []string{"--addr", "127.0.0.1:0", "--env", "toolworld", "--compact", "--seed", "7", "--log-level", "warn"},
			nil, outW, &stderr)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("no address line: %v (stderr %s)", err, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("first line %q", line)
	}

	client, err := envclient.New(envclient.Config{BaseURL: base, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Health(ctx); err != nil {
		t.Fatal(err)
	}
	ids, err := client.TaskIDs(ctx, toolworld.Name, toolworld.SplitVal)
	if err != nil || len(ids) != toolworld.DefaultValSize {
		t.Fatalf("TaskIDs = %d, %v", len(ids), err)
	}
	// --seed and --compact reach the environment: the served task is the
	// seed-7 one, on a task where seeds 0 and 7 differ.
	want, err := toolworld.New(toolworld.Config{Seed: 7, Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	seed0, err := toolworld.New(toolworld.Config{Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	var id, instruction string
	for _, candidate := range ids {
		a, errA := want.Task(candidate)
		b, errB := seed0.Task(candidate)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if a.Instruction != b.Instruction {
			id, instruction = candidate, a.Instruction
			break
		}
	}
	if id == "" {
		t.Fatal("seeds 0 and 7 give the same val tasks")
	}
	// The instance left live here is released by the shutdown. Without a
	// token or --trust-client-ids the server mints the id.
	init, err := client.Create(ctx, toolworld.Name, id, "mine", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(init.State) != 2 || init.State[1].Content != instruction || len(init.State[0].Content) > 300 {
		t.Errorf("initial state %+v, want the compact prompt and %q", init.State, instruction)
	}
	if !regexp.MustCompile(`^exp_\d+_[0-9a-f]{32}$`).MatchString(init.InstanceID()) {
		t.Errorf("instance id %q, want one minted by the server", init.InstanceID())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve-env returned %v (stderr %s)", err, stderr.String())
	}
}

func TestServeEnvCommandErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"unknown env", []string{"--env", "appworld", "--addr", "127.0.0.1:0"}},
		{"no env", []string{"--env", " , ", "--addr", "127.0.0.1:0"}},
		{"bad log level", []string{"--log-level", "loud"}},
		{"zero idle timeout", []string{"--idle-timeout", "0s"}},
		{"bad max instances", []string{"--max-instances", "0"}},
		{"bad max process instances", []string{"--max-process-instances", "0"}},
		{"bad address", []string{"--addr", "no-port"}},
		{"extra args", []string{"x"}},
		{"unknown flag", []string{"--nope"}},
		{"zero read timeout", []string{"--read-timeout", "0s"}},
		{"zero write timeout", []string{"--write-timeout", "0s"}},
		{"zero conn idle timeout", []string{"--conn-idle-timeout", "0s"}},
		{"zero max connections", []string{"--max-connections", "0"}},
		{"cert without key", []string{"--tls-cert", "cert.pem"}},
		{"key without cert", []string{"--tls-key", "key.pem"}},
		{"missing cert files", []string{"--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem", "--addr", "127.0.0.1:0"}},
		{"token with a space", []string{"--token", "two words", "--addr", "127.0.0.1:0"}},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		err := runServeEnv(context.Background(), tt.args, nil, &out, &errOut)
		if err == nil {
			t.Errorf("%s: no error", tt.name)
		}
		if strings.Contains(out.String(), "listening") {
			t.Errorf("%s: listened before failing", tt.name)
		}
		if tt.name == "token with a space" && strings.Contains(err.Error(), "two words") {
			t.Errorf("the error repeats the token: %v", err)
		}
	}
}

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServeEnv runs serve-env with args and the environment env, and
// returns its base URL and a function that stops it and returns its error
// and its log.
func startServeEnv(t *testing.T, args []string, env map[string]string) (string, func() (error, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- serveEnv(ctx, args, func(k string) string { return env[k] }, outW, stderr)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no address line: %v (stderr %s)", err, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		cancel()
		t.Fatalf("first line %q", line)
	}
	return base, func() (error, string) {
		cancel()
		return <-done, stderr.String()
	}
}

// writeSelfSigned writes a self-signed certificate for 127.0.0.1 and its
// key as PEM files.
func writeSelfSigned(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "serve-env test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// TestServeEnvSecure serves toolworld over HTTPS with a token from
// $AGENTEVOLVER_ENV_TOKEN (or --token, which wins) and the timeout and
// connection flags: without the token a call is ErrUnauthorized; with it
// the caller's instance id is kept; the log never holds the token.
func TestServeEnvSecure(t *testing.T) {
	certFile, keyFile := writeSelfSigned(t)
	const envToken, flagToken = "env-token-0123456789abcdef", "flag-token-0123456789abcdef"
	common := []string{"--addr", "127.0.0.1:0", "--env", "toolworld", "--log-level", "debug",
		"--tls-cert", certFile, "--tls-key", keyFile, "--read-timeout", "5s", "--write-timeout", "5s",
		"--conn-idle-timeout", "5s", "--max-connections", "16"}
	for _, tc := range []struct {
		name  string
		args  []string
		token string
	}{
		{"token from the environment", common, envToken},
		{"flag over environment", append([]string{"--token", flagToken}, common...), flagToken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, stop := startServeEnv(t, tc.args, map[string]string{envTokenVar: envToken})
			if !strings.HasPrefix(base, "https://127.0.0.1:") {
				t.Fatalf("base URL %q, want https", base)
			}
			ctx := t.Context()
			client := func(tok string) *envclient.Client {
				c, err := envclient.New(envclient.Config{BaseURL: base, EnvType: toolworld.Name, CAFile: certFile, Token: tok, MaxRetries: -1})
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			stranger := client("")
			if err := stranger.Health(ctx); err != nil {
				t.Fatalf("/healthz must stay open: %v", err)
			}
			if _, err := stranger.TaskIDs(ctx, toolworld.Name, toolworld.SplitVal); !errors.Is(err, envclient.ErrUnauthorized) {
				t.Fatalf("without the token: %v, want ErrUnauthorized", err)
			}
			other := envToken
			if tc.token == envToken {
				other = flagToken
			}
			if _, err := client(other).TaskIDs(ctx, toolworld.Name, toolworld.SplitVal); !errors.Is(err, envclient.ErrUnauthorized) {
				t.Fatalf("with the other token: %v, want ErrUnauthorized", err)
			}
			c := client(tc.token)
			ids, err := c.TaskIDs(ctx, toolworld.Name, toolworld.SplitVal)
			if err != nil || len(ids) == 0 {
				t.Fatalf("TaskIDs = %v, %v", ids, err)
			}
			init, err := c.Create(ctx, toolworld.Name, ids[0], "mine", nil)
			if err != nil || init.InstanceID() != "mine" {
				t.Fatalf("create with the token: id %q, %v", init.InstanceID(), err)
			}
			if ok, err := c.Release(ctx, "mine"); !ok || err != nil {
				t.Fatalf("release = %v, %v", ok, err)
			}
			err, logs := stop()
			if err != nil {
				t.Fatalf("serve-env returned %v (stderr %s)", err, logs)
			}
			if strings.Contains(logs, envToken) || strings.Contains(logs, flagToken) {
				t.Fatalf("a token was logged:\n%s", logs)
			}
		})
	}
}

// TestServeEnvTrustClientIDs keeps the ids of callers without a token, as
// the Python trainer client needs.
func TestServeEnvTrustClientIDs(t *testing.T) {
	base, stop := startServeEnv(t, []string{"--addr", "127.0.0.1:0", "--env", "toolworld", "--trust-client-ids", "--log-level", "warn"}, nil)
	c, err := envclient.New(envclient.Config{BaseURL: base, EnvType: toolworld.Name, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	ids, err := c.TaskIDs(ctx, toolworld.Name, toolworld.SplitVal)
	if err != nil || len(ids) == 0 {
		t.Fatalf("TaskIDs = %v, %v", ids, err)
	}
	if init, err := c.Create(ctx, toolworld.Name, ids[0], "python-uuid", nil); err != nil || init.InstanceID() != "python-uuid" {
		t.Fatalf("create: id %q, %v", init.InstanceID(), err)
	}
	if err, logs := stop(); err != nil {
		t.Fatalf("serve-env returned %v (stderr %s)", err, logs)
	}
}

// TestServeEnvHelpHidesToken checks that the usage names the token
// variable but never shows its value.
func TestServeEnvHelpHidesToken(t *testing.T) {
	var out, errOut bytes.Buffer
	err := serveEnv(context.Background(), []string{"-h"}, func(string) string { return "hidden-secret-value" }, &out, &errOut)
	if !errors.Is(err, errHelp) {
		t.Fatalf("-h = %v", err)
	}
	for _, want := range []string{"AGENTEVOLVER_ENV_TOKEN", "--trust-client-ids", "-tls-cert", "-max-connections", "-conn-idle-timeout"} {
		if !strings.Contains(errOut.String(), strings.TrimPrefix(want, "-")) {
			t.Errorf("usage lacks %s", want)
		}
	}
	if strings.Contains(errOut.String(), "hidden-secret-value") {
		t.Error("usage shows the token")
	}
}

// TestServeEnvRealEnvironments serves each built-in environment backed by a
// real program or data set through the command, configured with --set as
// train would be, and plays one expert episode over HTTP to a score of 1.
// It skips an environment only when its program is missing, saying which.
func TestServeEnvRealEnvironments(t *testing.T) {
	server := memoryServer(t)
	for _, tt := range []struct {
		env, needs string
		ok         func() bool
		sets       []string
	}{
		{"textgame", "open-adventure (apt-get install open-adventure)", func() bool {
			_, err := textgame.FindBinary(textgame.DefaultBinary)
			return err == nil
		}, nil},
		{"sqlworld", "iso-codes (apt-get install iso-codes)", func() bool {
			_, err := os.Stat(filepath.Join(sqlworld.DefaultDataDir, "iso_3166-1.json"))
			return err == nil
		}, []string{"env.sqlworld.train_size=6", "env.sqlworld.val_size=3", "env.sqlworld.test_size=3"}},
		{"mcp", "node and the MCP memory server (npm ci)", func() bool {
			_, err := os.Stat(server)
			_, errNode := exec.LookPath("node")
			return err == nil && errNode == nil
		}, []string{"env.mcp.command=" + server, `env.mcp.env=["MEMORY_FILE_PATH={instance_dir}/memory.jsonl"]`,
			"env.mcp.task_file=" + filepath.Join("..", "..", "envs", "mcp", "testdata", "memory.jsonl")}},
	} {
		t.Run(tt.env, func(t *testing.T) {
			if !tt.ok() {
				t.Skipf("%s is not installed: the environment needs %s", tt.env, tt.needs)
			}
			args := []string{"--addr", "127.0.0.1:0", "--env", tt.env, "--log-level", "warn"}
			for _, s := range tt.sets {
				args = append(args, "--set", s)
			}
			base, stop := startServeEnv(t, args, nil)
			ctx := context.Background()
			client, err := envclient.New(envclient.Config{BaseURL: base, MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			ids, err := client.TaskIDs(ctx, tt.env, "train")
			if err != nil || len(ids) == 0 {
				t.Fatalf("TaskIDs = %v, %v", ids, err)
			}
			// The expert's actions, from the same environment in process.
			cfg, err := trainer.LoadConfig(nil, tt.sets)
			if err != nil {
				t.Fatal(err)
			}
			local, err := builtin.Open(ctx, tt.env, cfg.Env.Config, nil)
			if err != nil {
				t.Fatal(err)
			}
			expert, ok := local.(envservice.Expert)
			if !ok {
				t.Fatalf("%s has no expert", tt.env)
			}
			actions, err := expert.Demonstrate(ctx, ids[0])
			if err != nil {
				t.Fatal(err)
			}
			init, err := client.Create(ctx, tt.env, ids[0], "", nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range actions {
				res, err := client.Step(ctx, init.InstanceID(), a, nil)
				if err != nil {
					t.Fatal(err)
				}
				if res.IsTerminated {
					break
				}
			}
			score, err := client.Evaluate(ctx, init.InstanceID(), map[string]any{"sparse": true})
			if err != nil || score != 1 {
				t.Errorf("expert episode over HTTP scored %v, %v; want 1", score, err)
			}
			if _, err := client.Release(ctx, init.InstanceID()); err != nil {
				t.Error(err)
			}
			if err, stderr := stop(); err != nil {
				t.Fatalf("serve-env: %v\n%s", err, stderr)
			}
		})
	}
}
