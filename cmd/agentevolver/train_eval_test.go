package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/envs/sqlworld"
	"github.com/org/agentevolver/envs/textgame"
	"github.com/org/agentevolver/trainer"
)

// tinyRun is a whole train job small enough for a test: a tiny model, a
// few tasks, one warm-start step and one RL step.
func tinyRun(dir string) []string {
	return []string{
		// A tiny policy from scratch, no mechanism on: not the main job.
		"--config", filepath.Join("..", "..", "examples", "configs", "from-scratch.yaml"),
		"--set", "trainer.output_dir=" + dir,
		"--set", "trainer.rl_steps=1", "--set", "trainer.test_freq=1", "--set", "trainer.progress=false",
		"--set", "data.train_batch_size=2", "--set", "data.val_tasks=2",
		"--set", "env.toolworld.train_size=12", "--set", "env.toolworld.val_size=6", "--set", "env.toolworld.test_size=3",
		"--set", "model.tokenizer_vocab=400",
		"--set", "model.shape.hidden_size=16", "--set", "model.shape.num_layers=1", "--set", "model.shape.num_heads=2",
		"--set", "model.shape.num_kv_heads=1", "--set", "model.shape.intermediate_size=32",
		"--set", "rollout.n=2", "--set", "rollout.response_length=12", "--set", "rollout.max_steps=2",
		"--set", "warm_start.steps=1", "--set", "warm_start.batch_size=2", "--set", "warm_start.demos=3",
	}
}

// TestTrainThenEval runs the train command on a tiny job, then the eval
// command on its final policy with transcripts.
func TestTrainThenEval(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	if err := runTrain(context.Background(), tinyRun(dir), nil, &out, &errOut); err != nil {
		t.Fatalf("train: %v\n%s", err, errOut.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err != nil {
		t.Fatalf("no summary: %v", err)
	}

	transcripts := filepath.Join(t.TempDir(), "val.jsonl")
	out.Reset()
	args := append(tinyRun(dir), "--checkpoint", filepath.Join(dir, trainer.FinalModelDir), "--k", "2", "--trajectories", transcripts)
	if err := runEval(context.Background(), args, nil, &out, &errOut); err != nil {
		t.Fatalf("eval: %v\n%s", err, errOut.String())
	}
	var res struct {
		Tasks, K int
		Success  *float64
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Tasks != 2 || res.K != 2 || res.Success == nil {
		t.Fatalf("eval printed %q (%v)", out.String(), err)
	}
	// More tasks than the split has: all of them, and a word saying so.
	out.Reset()
	errOut.Reset()
	if err := runEval(context.Background(), append(tinyRun(dir), "--checkpoint", filepath.Join(dir, trainer.FinalModelDir), "--tasks", "50"), nil, &out, &errOut); err != nil {
		t.Fatalf("eval --tasks 50: %v\n%s", err, errOut.String())
	}
	// (val_size 6 over three levels, max_level 1: two tasks.)
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Tasks != 2 {
		t.Fatalf("eval --tasks 50 printed %q (%v), want the split's 2 tasks", out.String(), err)
	}
	if !strings.Contains(errOut.String(), "--tasks 50 asked for more tasks") || !strings.Contains(errOut.String(), "all 2") {
		t.Errorf("eval --tasks 50 ran 6 tasks without a word:\n%s", errOut.String())
	}
	f, err := os.Open(transcripts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	trajs, err := agentflow.ReadTrajectories(f)
	if err != nil || len(trajs) != 4 {
		t.Fatalf("%d transcripts (%v), want 4", len(trajs), err)
	}
}

// TestEvalShippedPolicy evaluates a shipped policy by its builtin: name,
// as model.path takes it.
func TestEvalShippedPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the shipped policy")
	}
	var out, errOut bytes.Buffer
	if err := runEval(context.Background(), []string{"--checkpoint", "builtin:toolworld-base", "--tasks", "3"}, nil, &out, &errOut); err != nil {
		t.Fatalf("eval builtin:toolworld-base: %v\n%s", err, errOut.String())
	}
	var res struct {
		Checkpoint string
		Tasks      int
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Tasks != 3 || res.Checkpoint != "builtin:toolworld-base" {
		t.Fatalf("eval printed %q (%v)", out.String(), err)
	}
}

func TestEvalErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no checkpoint", nil, "--checkpoint is required"},
		{"negative k", []string{"--checkpoint", "x", "--k", "-1"}, "must be >= 0"},
		{"unknown key", []string{"--checkpoint", t.TempDir(), "--set", "rollout.nn=2"}, `unknown key "rollout.nn"`},
		{"missing checkpoint directory", []string{"--checkpoint", filepath.Join(t.TempDir(), "no-such-run", "final")}, "the directory does not exist"},
		{"unknown shipped policy", []string{"--checkpoint", "builtin:nonesuch"}, "no shipped policy"},
		{"unwritable transcripts", []string{"--checkpoint", t.TempDir(), "--trajectories", filepath.Join(t.TempDir(), "no", "such", "dir", "x.jsonl")}, "no such file"},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		err := runEval(context.Background(), tt.args, nil, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// TestTrainOnRealEnvironments trains the tiny job for one step on each
// built-in environment backed by a real program or data set, as the
// command line builds it from env.type: the warm start on its expert, a
// tokenizer learnt from its corpus, rollouts and validation. It skips an
// environment only when its Debian package is missing, saying which.
func TestTrainOnRealEnvironments(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
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
		}, []string{
			"env.sqlworld.train_size=12", "env.sqlworld.val_size=6", "env.sqlworld.test_size=3",
			// The schema in the system prompt needs a longer context than toolworld's.
			"model.shape.max_positions=2048", "data.max_prompt_length=1536", "rollout.max_model_len=2048",
		}},
		{"mcp", "node and the MCP memory server (npm ci)", func() bool {
			_, err := os.Stat(memoryServer(t))
			_, errNode := exec.LookPath("node")
			return err == nil && errNode == nil
		}, []string{
			"env.mcp.command=" + memoryServer(t), `env.mcp.env=["MEMORY_FILE_PATH={instance_dir}/memory.jsonl"]`,
			"env.mcp.task_file=" + filepath.Join("..", "..", "envs", "mcp", "testdata", "memory.jsonl"),
			"model.shape.max_positions=2048", "data.max_prompt_length=1536", "rollout.max_model_len=2048",
		}},
	} {
		t.Run(tt.env, func(t *testing.T) {
			if !tt.ok() {
				t.Skipf("%s is not installed: the environment needs %s", tt.env, tt.needs)
			}
			dir := t.TempDir()
			args := append(tinyRun(dir), "--set", "env.type="+tt.env)
			for _, s := range tt.sets {
				args = append(args, "--set", s)
			}
			var out, errOut bytes.Buffer
			if err := runTrain(context.Background(), args, nil, &out, &errOut); err != nil {
				t.Fatalf("train on %s: %v\n%s", tt.env, err, errOut.String())
			}
			if _, err := os.Stat(filepath.Join(dir, "summary.json")); err != nil {
				t.Fatalf("no summary: %v", err)
			}
		})
	}
}

// memoryServer is the MCP memory server npm ci installs in the repository.
func memoryServer(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "node_modules", ".bin", "mcp-server-memory"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
