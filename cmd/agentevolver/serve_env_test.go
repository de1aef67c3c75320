package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/toolworld"
)

func TestServeEnvCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() {
		done <- runServeEnv(ctx, []string{"--addr", "127.0.0.1:0", "--env", "toolworld", "--compact", "--log-level", "warn"},
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
	// The instance left live here is released by the shutdown.
	if _, err := client.Create(ctx, toolworld.Name, ids[0], "", nil); err != nil {
		t.Fatal(err)
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
		{"bad address", []string{"--addr", "no-port"}},
		{"extra args", []string{"x"}},
		{"unknown flag", []string{"--nope"}},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		if err := runServeEnv(context.Background(), tt.args, nil, &out, &errOut); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}
