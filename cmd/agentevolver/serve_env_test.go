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
	// The instance left live here is released by the shutdown.
	init, err := client.Create(ctx, toolworld.Name, id, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(init.State) != 2 || init.State[1].Content != instruction || len(init.State[0].Content) > 300 {
		t.Errorf("initial state %+v, want the compact prompt and %q", init.State, instruction)
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
