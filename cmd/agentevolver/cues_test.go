package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/taskgen"
	"github.com/org/agentevolver/taskgen/cues"
)

// cuesServer is an OpenAI-compatible endpoint that explores toolworld by
// writing a file, abstracts that task, re-executes it and approves it.
func cuesServer(t *testing.T) *httptest.Server {
	t.Helper()
	write := "<action>\n```tool\nfiles.write name=cli.txt text=hi\n```\n</action>"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []agentevolver.Message `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		all := ""
		for _, m := range body.Messages {
			all += m.Content
		}
		reply := "OK"
		switch {
		case strings.Contains(all, "curious explorer"):
			reply = write
		case strings.Contains(all, "Task Abstraction Expert"):
			reply = "<task>\nDescription: Notes\nQuery: Write hi to cli.txt\nConfidence: 0.9\nActionSequence:\n```tool\nfiles.write name=cli.txt text=hi\n```\n```tool\ntask.finish\n```\n</task>"
		case strings.Contains(all, "completes a user's task") && strings.Contains(all, "## Previous Actions\nNone"):
			reply = write
		case strings.Contains(all, "completes a user's task"):
			reply = "<action>\n```tool\ntask.finish\n```\n</action>"
		case strings.Contains(all, "strict evaluator"):
			reply = "Success: true"
		case strings.Contains(all, "query rewriting"):
			reply = "Put hi into cli.txt\nSave hi in the file cli.txt"
		case strings.Contains(all, "memory summarizer"):
			reply = "The explorer wrote cli.txt."
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "created": 1, "model": "m",
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": reply}}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestCuesCommand(t *testing.T) {
	srv := cuesServer(t)
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "cues.yaml")
	os.WriteFile(cfg, []byte("cues:\n  seed: 4\n  stage1:\n    rollout_num: 2\n    max_steps: 2\nenv:\n  toolworld:\n    train_size: 2\nllm:\n  max_attempts: 1\n"), 0o644)
	args := []string{"cues", "--config", cfg, "--out", dir, "--env", "toolworld", "--llm-url", srv.URL + "/v1", "--llm-model", "m",
		"--rewrite", "--set", "cues.workers=2"}
	t.Setenv("OPENAI_API_KEY", "k")
	var out, errOut bytes.Buffer
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	t.Log(out.String())
	for _, want := range []string{"stage 1: 2 of 2 rollouts finished", "after dedup", "1 accepted", "exported: 3 tasks", "wrote 3 tasks to"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	objs, err := taskgen.ReadTaskFile(filepath.Join(dir, cues.ExportParquet))
	if err != nil || len(objs) != 3 {
		t.Fatalf("%d tasks, %v", len(objs), err)
	}
	// A rerun finds the work done.
	out.Reset()
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 || !strings.Contains(out.String(), "exported: 3 tasks") {
		t.Fatalf("rerun: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
}

func TestCuesCommandPolicy(t *testing.T) {
	dir := t.TempDir()
	args := []string{"cues", "--out", dir, "--env", "toolworld", "--policy", "builtin:toolworld-base", "--rollouts", "2",
		"--set", "cues.stage1.max_steps=3", "--set", "cues.stage3.max_steps=3"}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "environment check passed") || !strings.Contains(out.String(), "stage 1: 2 of 2 rollouts finished") {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestCuesCommandErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no model", []string{"--out", "D", "--env", "toolworld"}, "give a model"},
		{"no out", []string{"--env", "toolworld", "--policy", "x"}, "--out"},
		{"unknown key", []string{"--out", "D", "--env", "toolworld", "--policy", "x", "--set", "cues.stage9=1"}, "stage9"},
		{"bad stage", []string{"--out", "D", "--env", "toolworld", "--policy", "x", "--stage", "nine"}, "--stage"},
		{"model down", []string{"--out", "D", "--env", "toolworld", "--llm-url", "http://127.0.0.1:1/v1", "--llm-model", "m",
			"--set", "llm.max_attempts=1", "--set", "env.toolworld.train_size=1"}, "check the endpoint"},
		{"env down", []string{"--out", "D", "--env", "toolworld", "--env-url", "http://127.0.0.1:1", "--llm-url", "http://127.0.0.1:1/v1", "--llm-model", "m"},
			"is the env service running"},
		{"bad config", []string{"--out", "D", "--env", "toolworld", "--llm-url", "http://127.0.0.1:1/v1", "--llm-model", "m",
			"--set", "cues.stage2.method=magic"}, "stage2.method"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			for i, a := range args {
				if a == "D" {
					args[i] = t.TempDir()
				}
			}
			var out, errOut bytes.Buffer
			code := run(context.Background(), append([]string{"cues"}, args...), nil, &out, &errOut)
			if code == 0 || !strings.Contains(errOut.String(), c.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant %q", code, errOut.String(), c.want)
			}
		})
	}
}
