package trainer

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
)

// withToolworld returns opts able to build the built-in environments, as
// the command line does.
func withToolworld(opts Options) Options {
	if opts.Env == nil && opts.Environments == nil {
		opts.Environments = builtin.Environments()
	}
	return opts
}

// TestFitPassesEnvToken trains against an env service that requires a
// bearer token: env.token reaches it, and a wrong token fails at once
// with envclient.ErrUnauthorized instead of being retried.
func TestFitPassesEnvToken(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	tw, err := toolworld.New(toolworld.Config{Compact: true, MaxLevel: 1, TrainSize: 12, ValSize: 6, TestSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	mgr := envservice.NewManager(envservice.ManagerConfig{})
	if err := mgr.Register(toolworld.Name, tw); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	const token = "s3cret-token-for-the-test"
	srv := envservice.NewServer(mgr, envservice.ServerConfig{DefaultEnvType: toolworld.Name, Token: token})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() { stop(); <-done })

	cfg := tinyConfig(t)
	cfg.Env.URL = "http://" + ln.Addr().String()
	cfg.Env.Type = toolworld.Name
	cfg.Model.Tokenizer = "byte" // no corpus over HTTP
	cfg.WarmStart.Steps = 0      // no expert over HTTP
	cfg.Trainer.RLSteps = 1

	cfg.Env.Token = "wrong"
	if _, err := mustNew(t, cfg, Options{}).Fit(context.Background()); !errors.Is(err, envclient.ErrUnauthorized) {
		t.Fatalf("wrong token: err = %v, want ErrUnauthorized", err)
	}
	cfg.Env.Token = token
	cfg.Trainer.OutputDir = t.TempDir()
	s, err := mustNew(t, cfg, Options{}).Fit(context.Background())
	if err != nil || s.RLSteps != 1 {
		t.Fatalf("right token: %+v, %v", s, err)
	}
	saved, err := os.ReadFile(filepath.Join(cfg.Trainer.OutputDir, CheckpointDir, checkpointName(1), checkpointConfig))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(saved), token) {
		t.Error("the checkpoint's config.yaml holds the token")
	}
}

// TestEnvironmentsDefault checks that nil Options.Environments means the
// built-in environments and an empty map means none.
func TestEnvironmentsDefault(t *testing.T) {
	cfg := FromScratchConfig()
	if err := checkEnvSource(cfg, Options{}, "toolworld"); err != nil {
		t.Errorf("nil Environments: %v", err)
	}
	if err := checkEnvSource(cfg, Options{Environments: map[string]builtin.Factory{}}, "toolworld"); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty Environments: %v", err)
	}
	if err := checkEnvSource(cfg, Options{}, "appworld"); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "toolworld") {
		t.Errorf("unknown env.type: %v", err)
	}
}
