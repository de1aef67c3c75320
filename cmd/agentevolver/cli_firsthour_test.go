package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelpAndVersion checks "help CMD", "--version", "train -h" and
// "bench -h": each succeeds and prints what it was asked for.
func TestHelpAndVersion(t *testing.T) {
	tests := []struct {
		args       []string
		out, inErr string
	}{
		{[]string{"help", "train"}, "", "Usage: agentevolver train"},
		{[]string{"train", "-h"}, "", "Train a policy by reinforcement learning"},
		{[]string{"help", "eval"}, "", "-checkpoint"},
		{[]string{"bench", "-h"}, "", "Usage: agentevolver bench"},
		{[]string{"--version"}, "agentevolver ", ""},
		{[]string{"version"}, "agentevolver ", ""},
		{[]string{"help"}, "Usage: agentevolver <command>", ""},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		code := run(context.Background(), tt.args, nil, &out, &errOut)
		if code != 0 {
			t.Errorf("%q: exit %d, want 0\n%s%s", tt.args, code, out.String(), errOut.String())
		}
		if !strings.Contains(out.String(), tt.out) || !strings.Contains(errOut.String(), tt.inErr) {
			t.Errorf("%q: stdout %q, stderr %q; want %q and %q", tt.args, out.String(), errOut.String(), tt.out, tt.inErr)
		}
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"help", "nosuch"}, nil, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), `unknown command "nosuch"`) {
		t.Errorf("help nosuch: exit %d, stderr %q", code, errOut.String())
	}
}

// TestPrintConfigShowsDefaults checks that --print-config writes the value
// the trainer uses where the configuration leaves 0, says so, and that
// what it prints loads back to the same configuration.
func TestPrintConfigShowsDefaults(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := runTrain(context.Background(), []string{"--print-config"}, nil, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	printed := out.String()
	for _, want := range []string{
		"max_failed_ratio: 0.25 # default: trainer.DefaultMaxFailedRatio",
		"silent_steps: 5 # default",
		"val_tasks: 0 # 0: every task of data.val_split",
		"concurrency: 20 # default: attribution.DefaultJudgeConcurrency",
	} {
		if !strings.Contains(printed, want) {
			t.Errorf("--print-config lacks %q", want)
		}
	}
	path := filepath.Join(t.TempDir(), "printed.yaml")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := runTrain(context.Background(), []string{"--config", path, "--print-config"}, nil, &again, &errOut); err != nil {
		t.Fatalf("the printed configuration does not load: %v", err)
	}
	strip := func(s string) string {
		var lines []string
		for _, l := range strings.Split(s, "\n") {
			l, _, _ = strings.Cut(l, " #")
			lines = append(lines, l)
		}
		return strings.Join(lines, "\n")
	}
	if strip(again.String()) != strip(printed) {
		t.Errorf("the printed configuration reads back differently")
	}
}

// TestTrainConfigMessages checks the messages of loading a user's
// configuration: a mistyped value names the key, the user's file and its
// line; keys of the original AgentEvolver with no counterpart are named
// in a warning.
func TestTrainConfigMessages(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(bad, []byte("trainer:\n  experiment_name: mine\n  rl_steps: ten\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	err := runTrain(context.Background(), []string{"--config", bad, "--print-config"}, nil, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "trainer.rl_steps") || !strings.Contains(err.Error(), bad+":3") {
		t.Errorf("err = %v, want the key and %s:3", err, bad)
	}

	theirs := filepath.Join(dir, "theirs.yaml")
	if err := os.WriteFile(theirs, []byte("exp_manager:\n  reme:\n    retrieve_top_k: 5\n    enable_summarizer: true\nattribution_driven_credit_assignment:\n  evaluation_type: api\n  adca_grpo:\n    model_name: qwen-max\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	if err := runTrain(context.Background(), []string{"--config", theirs, "--print-config"}, nil, &out, &errOut); err != nil {
		t.Fatalf("a configuration of the original: %v", err)
	}
	if !strings.Contains(out.String(), "retrieve_top_k: 5") || !strings.Contains(out.String(), "model_name: qwen-max") {
		t.Errorf("aliased keys not applied:\n%s", out.String())
	}
	if !strings.Contains(errOut.String(), "warning") || !strings.Contains(errOut.String(), "exp_manager.reme.enable_summarizer") ||
		!strings.Contains(errOut.String(), "attribution_driven_credit_assignment.evaluation_type") {
		t.Errorf("no warning naming the ignored keys:\n%s", errOut.String())
	}
}
