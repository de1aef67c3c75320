package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/taskgen"
	"github.com/org/agentevolver/trainer"
)

// readGenerated reads both output files of gen-tasks and checks that they
// hold the same rows.
func readGenerated(t *testing.T, dir string) []agentevolver.TaskObjective {
	t.Helper()
	jsonl, err := taskgen.ReadTaskFile(filepath.Join(dir, genTasksJSONL))
	if err != nil {
		t.Fatal(err)
	}
	parquet, err := taskgen.ReadTaskFile(filepath.Join(dir, genTasksParquet))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(jsonl)
	b, _ := json.Marshal(parquet)
	if !bytes.Equal(a, b) {
		t.Fatalf("the JSONL and Parquet files differ:\n%s\n%s", a, b)
	}
	return jsonl
}

func TestGenTasksCommand(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	args := []string{"gen-tasks", "--out", dir, "--seeds", "5", "--n", "2", "--concurrency", "2"}
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	tasks := readGenerated(t, dir)
	if len(tasks) == 0 {
		t.Fatal("no tasks")
	}
	for _, o := range tasks {
		if !strings.HasPrefix(o.Task.TaskID, "hs1:tw-train-") || o.Task.Evaluator != agentevolver.EvaluatorEnv || o.Task.GroundTruth == "" {
			t.Errorf("task %+v", o.Task)
		}
	}
	for _, want := range []string{
		"gen-tasks: 5 of 1500 toolworld/train tasks as seeds, 2 per seed, with random walks and hindsight tasks (no LLM)\n",
		"work: 10 explorations in 5 batches of 2\n",
		"explored:          10 of 10 (0 failed)\n",
		"realtime filter:   ",
		"post filter (environment check): ",
		"wrote " + itoa(len(tasks)) + " tasks to " + filepath.Join(dir, genTasksJSONL),
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, taskgen.DefaultCheckpointFile)); !os.IsNotExist(err) {
		t.Errorf("the checkpoint of a finished run is still there (%v)", err)
	}
	if !strings.Contains(errOut.String(), "exploring: 10/10") {
		t.Errorf("no progress in stderr:\n%s", errOut.String())
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// cancelOn is a writer that cancels when a write contains marker.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	cancel context.CancelFunc
}

func (w *cancelOn) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if bytes.Contains(p, []byte(w.marker)) {
		w.cancel()
	}
	return w.buf.Write(p)
}

// TestGenTasksInterruptResume interrupts gen-tasks after its second
// batch: it exits 1 saying how to resume, with the checkpoint saved, and
// the same command then finishes the run with the tasks of an
// uninterrupted one.
func TestGenTasksInterruptResume(t *testing.T) {
	flags := []string{"--seeds", "4", "--n", "2", "--concurrency", "2", "--seed", "9", "--log-level", "debug"}
	refDir := t.TempDir()
	var out, errOut bytes.Buffer
	if code := run(context.Background(), append([]string{"gen-tasks", "--out", refDir}, flags...), nil, &out, &errOut); code != 0 {
		t.Fatalf("reference run: exit %d\n%s", code, errOut.String())
	}
	want := readGenerated(t, refDir)

	dir := t.TempDir()
	args := append([]string{"gen-tasks", "--out", dir}, flags...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOn{marker: `msg="taskgen: batch done" batch=1 `, cancel: cancel}
	out.Reset()
	if code := run(ctx, args, nil, &out, stderr); code != 1 {
		t.Fatalf("interrupted run: exit %d\n%s", code, stderr.buf.String())
	}
	msg := stderr.buf.String()
	for _, wantMsg := range []string{"interrupted after 2 of 4 batches", "checkpoint saved to " + filepath.Join(dir, taskgen.DefaultCheckpointFile),
		"run the same command again to resume: agentevolver gen-tasks --out " + dir} {
		if !strings.Contains(msg, wantMsg) {
			t.Errorf("stderr lacks %q:\n%s", wantMsg, msg)
		}
	}
	if !strings.Contains(out.String(), "stopped after 2 of 4 batches") {
		t.Errorf("stdout:\n%s", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, genTasksJSONL)); !os.IsNotExist(err) {
		t.Errorf("an interrupted run wrote tasks (%v)", err)
	}

	out.Reset()
	errOut.Reset()
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 {
		t.Fatalf("resumed run: exit %d\n%s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "checkpoint: resumed 2 of 4 batches") || !strings.Contains(out.String(), "explored:          4 of 4") {
		t.Errorf("resumed run printed:\n%s", out.String())
	}
	got := readGenerated(t, dir)
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	if !bytes.Equal(a, b) {
		t.Errorf("resumed run wrote\n%s\nwant\n%s", a, b)
	}
}

func TestGenTasksCommandErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "--out is required"},
		{[]string{"--out", dir, "--env", "nope"}, `unknown environment "nope"`},
		{[]string{"--out", dir, "--llm-url", "http://127.0.0.1:1/v1"}, "--llm-url and --llm-model go together"},
		{[]string{"--out", dir, "--n", "0"}, "--n must be positive"},
		{[]string{"--out", dir, "--concurrency", "0"}, "--concurrency must be positive"},
		{[]string{"--out", dir, "--split", "nope"}, "--split nope"},
		{[]string{"--out", dir, "--log-level", "loud"}, "--log-level"},
		{[]string{"--out", dir, "extra"}, "unexpected arguments"},
	} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), append([]string{"gen-tasks"}, tc.args...), nil, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", tc.args, code, errOut.String(), tc.want)
		}
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"gen-tasks", "-h"}, nil, &out, &errOut); code != 0 || !strings.Contains(errOut.String(), "Usage: agentevolver gen-tasks") {
		t.Errorf("-h: exit %d, %q", code, errOut.String())
	}
	out.Reset()
	run(context.Background(), nil, nil, &out, &errOut)
	if !strings.Contains(out.String(), "gen-tasks") {
		t.Errorf("usage lacks gen-tasks:\n%s", out.String())
	}
}

// bareEnv is an environment with no optional capability; walkingEnv can
// only choose random actions and synthesise tasks.
type bareEnv struct{}

func (bareEnv) TaskIDs(context.Context, string, map[string]any) ([]string, error) {
	return []string{"t"}, nil
}

func (bareEnv) New(context.Context, string, string, map[string]any) (envservice.Instance, error) {
	return nil, envclient.ErrBadRequest
}

type walkingEnv struct{ bareEnv }

func (walkingEnv) RandomAction(context.Context, string, []agentevolver.Message, int64) (agentevolver.Message, error) {
	return agentevolver.Message{}, nil
}

func (walkingEnv) SynthesizeTask(context.Context, string, []agentevolver.Message) (agentevolver.Task, error) {
	return agentevolver.Task{}, nil
}

func TestGenTasksNamesMissingCapability(t *testing.T) {
	m := envservice.NewManager(envservice.ManagerConfig{})
	defer m.Close()
	o := genTasksOptions{env: "mine", postFilter: true}
	if _, err := noLLMGenerator(o, m, bareEnv{}, nil); err == nil || !strings.Contains(err.Error(), "envservice.RandomExplorer") {
		t.Errorf("bare: %v", err)
	}
	if _, err := noLLMGenerator(o, m, walkingEnv{}, nil); err == nil || !strings.Contains(err.Error(), "envservice.Expert") || !strings.Contains(err.Error(), "--post-filter=false") {
		t.Errorf("no expert: %v", err)
	}
	o.postFilter = false
	if _, err := noLLMGenerator(o, m, walkingEnv{}, nil); err != nil {
		t.Errorf("no expert, no post filter: %v", err)
	}
}

// TestGenTasksLLM runs the LLM path of gen-tasks against a scripted
// OpenAI-compatible server: explorations that finish at once, one task
// per summary, validations that pass.
func TestGenTasksLLM(t *testing.T) {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []agentevolver.Message `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		all := ""
		for _, m := range req.Messages {
			all += m.Content
		}
		mu.Lock()
		n++
		reply := "```tool\ntask.finish\n```"
		switch {
		case strings.Contains(all, "Real-World Task Discovery Expert"):
			reply = `<task>{"query": "w` + itoa(n) + `a w` + itoa(n) + `b", "confidence": 0.5, "action_sequence": "task.finish"}</task>`
		case strings.Contains(all, "strict task evaluation expert"):
			reply = "Success: true"
		case strings.Contains(all, "Solution Abstraction Expert"):
			reply = `<task>{"query": "q", "confidence": 1, "action_sequence": "contacts.list\ntask.finish"}</task>`
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "created": 1, "model": "m",
			"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": reply}, "finish_reason": "stop"}},
		})
	}))
	defer srv.Close()
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	args := []string{"gen-tasks", "--out", dir, "--seeds", "3", "--llm-url", srv.URL + "/v1", "--llm-model", "m"}
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	tasks := readGenerated(t, dir)
	if len(tasks) != 3 {
		t.Fatalf("%d tasks\n%s", len(tasks), out.String())
	}
	for _, o := range tasks {
		if o.Task.Evaluator != agentevolver.EvaluatorSynthetic || o.Task.GroundTruth != "contacts.list\ntask.finish" {
			t.Errorf("task %+v", o.Task)
		}
	}
	for _, want := range []string{"with LLM m at " + srv.URL, "realtime filter:   3 -> 3", "post filter (LLM post filter): 3 -> 3 (0 rejected, 0 failed)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestGenTasksAllExplorationsFail checks that a run whose every
// exploration failed is an error and leaves nothing to resume.
func TestGenTasksAllExplorationsFail(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"message":"no such model","type":"invalid_request_error"}}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	args := []string{"gen-tasks", "--out", dir, "--seeds", "3", "--llm-url", srv.URL + "/v1", "--llm-model", "m"}
	if code := run(context.Background(), args, nil, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "all 3 explorations failed") ||
		!strings.Contains(errOut.String(), "exploration failed") {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	if _, err := os.Stat(filepath.Join(dir, taskgen.DefaultCheckpointFile)); !os.IsNotExist(err) {
		t.Errorf("checkpoint left behind (%v)", err)
	}
}

// TestGenTasksThenTrain generates tasks with a training configuration and
// trains on them with the same one: the synthetic tasks name seed tasks of
// the environment train builds, and the run mixes them in.
func TestGenTasksThenTrain(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	dir := t.TempDir()
	run := tinyRun(filepath.Join(dir, "run"))
	var out, errOut bytes.Buffer
	gen := append([]string{"--out", filepath.Join(dir, "tasks"), "--seeds", "4", "--n", "2"}, run...)
	if err := runGenTasks(context.Background(), gen, nil, &out, &errOut); err != nil {
		t.Fatalf("gen-tasks: %v\n%s", err, errOut.String())
	}
	train := append(run, "--set", "task_manager.train_data_path="+filepath.Join(dir, "tasks", genTasksParquet),
		"--set", "task_manager.mixture.synthetic_data_ratio=1")
	out.Reset()
	if err := runTrain(context.Background(), train, nil, &out, &errOut); err != nil {
		t.Fatalf("train on the generated tasks: %v\n%s", err, errOut.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "run", trainer.MetricsFile))
	if err != nil || !strings.Contains(string(data), "tasks/synthetic_share") {
		t.Fatalf("metrics without a task mixture (%v):\n%s", err, data)
	}
}

// TestGenTasksWithPolicy explores with a saved policy (--policy) instead of
// random walks: every exploration runs in the environment's own prompt and
// is relabelled in hindsight, with no LLM.
func TestGenTasksWithPolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	dir := t.TempDir()
	run := tinyRun(filepath.Join(dir, "run"))
	var out, errOut bytes.Buffer
	if err := runTrain(context.Background(), run, nil, &out, &errOut); err != nil {
		t.Fatalf("train: %v\n%s", err, errOut.String())
	}
	out.Reset()
	gen := append([]string{"--out", filepath.Join(dir, "tasks"), "--seeds", "3", "--n", "2",
		"--policy", filepath.Join(dir, "run", trainer.FinalModelDir)}, run...)
	if err := runGenTasks(context.Background(), gen, nil, &out, &errOut); err != nil {
		t.Fatalf("gen-tasks --policy: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), "with the policy") || !strings.Contains(out.String(), "explored:          6 of 6 (0 failed)") {
		t.Errorf("stdout:\n%s", out.String())
	}
	if err := runGenTasks(context.Background(), append(gen, "--llm-url", "http://127.0.0.1:1/v1", "--llm-model", "m"), nil, &out, &errOut); err == nil ||
		!strings.Contains(err.Error(), "give one") {
		t.Errorf("--policy with --llm-url: %v", err)
	}
}
