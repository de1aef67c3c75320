package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
)

// runArgs runs the program and returns its stdout, stderr and error.
func runArgs(ctx context.Context, t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = run(ctx, args, &out, &errOut)
	return out.String(), errOut.String(), err
}

// expertObservation is the observation of the expert's first action of a
// task, and that action's tool line.
func expertFirstStep(t *testing.T, cfg toolworld.Config, taskID string) (action, observation string) {
	t.Helper()
	ctx := context.Background()
	env, err := toolworld.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	actions, err := env.Solve(taskID)
	if err != nil {
		t.Fatal(err)
	}
	in, err := env.New(ctx, taskID, "check", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	res, err := in.Step(ctx, actions[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	call, err := toolworld.ParseAction(actions[0])
	if err != nil {
		t.Fatal(err)
	}
	return call.String(), res.State[0].Content
}

// TestPerCallContext: with --context per_call each call's prompt is the
// initial system messages and the last observation, nothing of earlier
// turns, and the transcript still shows the whole episode.
func TestPerCallContext(t *testing.T) {
	action, obs := expertFirstStep(t, toolworld.Config{}, "tw-val-0000")
	var mu sync.Mutex
	var prompts [][]agentevolver.Message
	srv := startChatServer(t, func(_ context.Context, msgs []agentevolver.Message) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		prompts = append(prompts, msgs)
		if len(prompts) == 1 {
			return "```tool\n" + action + "\n```", nil
		}
		return "```tool\ntask.finish\n```", nil
	})
	stdout, stderr, err := runArgs(context.Background(), t, "--base-url", srv.baseURL(), "--model", testModel,
		"--retries", "0", "--attempts", "1", "--tasks", "1", "--context", "per_call", "--max-steps", "2")
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr)
	}
	if len(prompts) != 2 {
		t.Fatalf("%d calls, want 2", len(prompts))
	}
	first, second := prompts[0], prompts[1]
	if len(second) != 2 || second[0].Role != agentevolver.RoleSystem || second[0].Content != first[0].Content ||
		second[1].Role != agentevolver.RoleUser || second[1].Content != obs {
		t.Errorf("second prompt %+v, want the system message and the observation %q", second, obs)
	}
	if !strings.Contains(stdout, "[assistant, turn 2]") || !strings.Contains(stdout, obs) {
		t.Errorf("transcript lacks the second turn or the observation:\n%s", stdout)
	}
}

// TestExpertEpisodes runs complete episodes against a server that answers
// with the expert's actions: every episode scores 1 and its transcript
// shows the task, the actions and the observations.
func TestExpertEpisodes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cfg      toolworld.Config
		args     []string
		taskIDs  []string
		rollouts int
	}{
		{"three tasks", toolworld.Config{}, []string{"--tasks", "3"}, []string{"tw-val-0000", "tw-val-0001", "tw-val-0002"}, 1},
		{"groups, compact, seeded, test split", toolworld.Config{Compact: true, Seed: 7},
			[]string{"--compact", "--seed", "7", "--split", "test", "--tasks", "2", "--n", "3", "--concurrency", "4", "--temperature", "0", "--sample-seed", "1"},
			[]string{"tw-test-0000", "tw-test-0001"}, 3},
		{"chosen tasks, per-turn context", toolworld.Config{}, []string{"--task-ids", "tw-train-0005, tw-train-0002", "--split", "train", "--context", "linear_think"},
			[]string{"tw-train-0005", "tw-train-0002"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startChatServer(t, mustExpert(t, tc.cfg).reply)
			outFile := filepath.Join(t.TempDir(), "trajectories.jsonl")
			args := append([]string{"--base-url", srv.baseURL(), "--model", testModel, "--out", outFile, "--retries", "0", "--attempts", "1"}, tc.args...)
			stdout, stderr, err := runArgs(context.Background(), t, args...)
			if err != nil {
				t.Fatalf("run: %v\nstderr:\n%s", err, stderr)
			}
			episodes := len(tc.taskIDs) * tc.rollouts
			for _, id := range tc.taskIDs {
				action, obs := expertFirstStep(t, tc.cfg, id)
				info, _ := mustExpert(t, tc.cfg).env.Task(id)
				for _, want := range []string{
					"task " + id + ", rollout 0 ===\n[system]\n",
					"[user]\n" + strings.Join(wrap(info.Instruction, defaultWidth, transcriptIndent), "\n") +
						"\n[assistant, turn 1]\n  ```tool\n  " + action + "\n  ```\n[environment]\n  " + obs + "\n",
				} {
					if !strings.Contains(stdout, want) {
						t.Errorf("transcript lacks %q", want)
					}
				}
			}
			for _, want := range []string{
				"[environment, episode over, reward 1]\n  task finished\n--- score 1.00 (success)",
				"=== summary ===\nTASK",
				"mean score 1.000 | success rate 100.0%",
			} {
				if !strings.Contains(stdout, want) {
					t.Errorf("output lacks %q", want)
				}
			}
			if n := strings.Count(stdout, "--- score 1.00 (success)"); n != episodes {
				t.Errorf("%d successful episodes, want %d", n, episodes)
			}
			if tc.rollouts > 1 && !strings.Contains(stdout, "tasks solved by at least one of 3 episodes: 2/2") {
				t.Errorf("no group summary in\n%s", stdout)
			}
			if !strings.Contains(stderr, "] task "+tc.taskIDs[0]+" rollout 0: score 1.00") {
				t.Errorf("no progress line in stderr:\n%s", stderr)
			}

			f, err := os.Open(outFile)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			trajs, err := agentflow.ReadTrajectories(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(trajs) != episodes {
				t.Fatalf("%d trajectories written, want %d", len(trajs), episodes)
			}
			for _, tr := range trajs {
				if tr.Reward.Outcome != 1 || !tr.IsTerminated || tr.Error != "" {
					t.Errorf("trajectory %s/%s: outcome %v, terminated %v, error %q", tr.TaskID, tr.RolloutID, tr.Reward.Outcome, tr.IsTerminated, tr.Error)
				}
			}
		})
	}
}

// TestGarbageActions runs a model that never makes a tool call: each
// action gets an error observation, the episodes run to the step limit and
// score 0, and the run itself succeeds.
func TestGarbageActions(t *testing.T) {
	for _, reply := range []string{
		"I think I should look at the calendar first.",
		"```tool\ncontacts.find(name='Ann')\n```",
		"\x1b[31m{\"name\": \"bank.pay\", \"arguments\": {\"to\": \"Nobody\"",
		"",
	} {
		t.Run("", func(t *testing.T) {
			srv := startChatServer(t, func(context.Context, []agentevolver.Message) (string, error) { return reply, nil })
			stdout, stderr, err := runArgs(context.Background(), t,
				"--base-url", srv.baseURL(), "--model", testModel, "--tasks", "2", "--max-steps", "3", "--sparse")
			if err != nil {
				t.Fatalf("run: %v\nstderr:\n%s", err, stderr)
			}
			for _, want := range []string{
				"[assistant, turn 3]",
				"[environment]\n  error: ",
				"--- score 0.00 (no success), 3 turns, step limit",
				"success rate 0.0% (0/2)",
			} {
				if !strings.Contains(stdout, want) {
					t.Errorf("output lacks %q:\n%s", want, stdout)
				}
			}
			if strings.Contains(stdout, "[assistant, turn 4]") {
				t.Error("an episode ran past --max-steps")
			}
			if strings.Contains(stdout, "\x1b") {
				t.Error("a control character reached the transcript")
			}
			if n := srv.requests.Load(); n != 6 {
				t.Errorf("%d chat requests, want 6", n)
			}
		})
	}
}

// TestUnreachableEndpoint fails at once, naming the endpoint.
func TestUnreachableEndpoint(t *testing.T) {
	srv := httptest.NewServer(nil)
	url := srv.URL + "/v1"
	srv.Close()
	start := time.Now()
	stdout, _, err := runArgs(context.Background(), t, "--base-url", url, "--model", testModel)
	if !errors.Is(err, errUnreachable) || !strings.Contains(err.Error(), url) {
		t.Fatalf("error %v, want errUnreachable naming %s", err, url)
	}
	if d := time.Since(start); d > probeTimeout {
		t.Errorf("took %s", d)
	}
	if stdout != "" {
		t.Errorf("stdout %q", stdout)
	}
	var msg bytes.Buffer
	if code := exitCode(err, &msg); code != 1 || !strings.Contains(msg.String(), "cannot reach the model endpoint") {
		t.Errorf("exit %d, message %q", code, msg.String())
	}
}

// TestModelErrors reports failing episodes: the server knows no such
// model, so every chat request fails, and the run says why.
func TestModelErrors(t *testing.T) {
	srv := startChatServer(t, mustExpert(t, toolworld.Config{}).reply)
	stdout, stderr, err := runArgs(context.Background(), t,
		"--base-url", srv.baseURL(), "--model", "no-such-model", "--tasks", "2", "--attempts", "1")
	if err == nil || !strings.Contains(err.Error(), "all 2 episodes failed") || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("error %v", err)
	}
	if !strings.Contains(stderr, `warning: model "no-such-model" is not among the models`) {
		t.Errorf("no warning in stderr:\n%s", stderr)
	}
	if !strings.Contains(stdout, "[failed: task tw-val-0001, rollout 0, 1 attempts]") || !strings.Contains(stdout, "episodes: 0 finished, 2 failed") {
		t.Errorf("summary:\n%s", stdout)
	}
}

// TestFlags rejects bad command lines with a usage error (exit status 2)
// before contacting anything.
func TestFlags(t *testing.T) {
	base := []string{"--base-url", "http://127.0.0.1:1/v1", "--model", "m"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "m"}, "--base-url is required"},
		{[]string{"--base-url", "http://127.0.0.1:1/v1"}, "--model is required"},
		{[]string{"--base-url", "127.0.0.1:8000", "--model", "m"}, "--base-url must be an http"},
		{append(base, "--tasks", "0"), "--tasks must be at least 1"},
		{append(base, "--n", "-1"), "--n must be at least 1"},
		{append(base, "--max-steps", "0"), "--max-steps"},
		{append(base, "--temperature", "3"), "--temperature"},
		{append(base, "--top-p", "1.5"), "--top-p"},
		{append(base, "--max-tokens", "4096", "--max-model-len", "4096"), "--max-model-len (4096) must exceed"},
		{append(base, "--context", "fancy"), "--context must be one of"},
		{append(base, "--width", "10"), "--width"},
		{append(base, "--concurrency", "0"), "--concurrency"},
		{append(base, "--env-url", "ftp://x"), "--env-url must be"},
		{append(base, "--env-url", "http://127.0.0.1:1", "--seed", "3"), "--seed configures the built-in toolworld"},
		{append(base, "--env-type", "appworld"), "--env-type \"appworld\" needs --env-url"},
		{append(base, "--tasks", "three"), "invalid value"},
		{append(base, "--bogus"), "flag provided but not defined"},
		{append(base, "extra"), "unexpected argument \"extra\""},
	} {
		_, stderr, err := runArgs(context.Background(), t, tc.args...)
		var ue *usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want a usage error with %q (stderr %q)", tc.args, err, tc.want, stderr)
			continue
		}
		var msg bytes.Buffer
		if code := exitCode(err, &msg); code != 2 || !strings.Contains(msg.String(), "-h") {
			t.Errorf("%q: exit %d, message %q", tc.args, code, msg.String())
		}
	}

	_, stderr, err := runArgs(context.Background(), t, "-h")
	if !errors.Is(err, flag.ErrHelp) || !strings.Contains(stderr, "--base-url") || exitCode(err, &bytes.Buffer{}) != 0 {
		t.Errorf("-h: error %v, stderr %q", err, stderr)
	}
}

// TestUnknownTaskID is a usage error naming the split's tasks.
func TestUnknownTaskID(t *testing.T) {
	srv := startChatServer(t, mustExpert(t, toolworld.Config{}).reply)
	_, _, err := runArgs(context.Background(), t, "--base-url", srv.baseURL(), "--model", testModel, "--task-ids", "tw-train-0000")
	var ue *usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `"tw-train-0000" is not a task of split "val"`) {
		t.Errorf("error %v", err)
	}
	if srv.requests.Load() != 0 {
		t.Error("the model was asked")
	}
}

// startEnvService serves the toolworld over the env-service protocol, as
// "agentevolver serve-env" does.
func startEnvService(t *testing.T, cfg toolworld.Config) (*envservice.Manager, string) {
	t.Helper()
	tw, err := toolworld.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := envservice.NewManager(envservice.ManagerConfig{})
	if err := m.Register(toolworld.Name, tw); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(envservice.NewServer(m, envservice.ServerConfig{DefaultEnvType: toolworld.Name}))
	t.Cleanup(srv.Close)
	return m, srv.URL
}

// TestRemoteEnv runs the episodes in an env service reached over HTTP.
func TestRemoteEnv(t *testing.T) {
	m, envURL := startEnvService(t, toolworld.Config{})
	srv := startChatServer(t, mustExpert(t, toolworld.Config{}).reply)
	stdout, stderr, err := runArgs(context.Background(), t,
		"--base-url", srv.baseURL(), "--model", testModel, "--env-url", envURL, "--tasks", "2")
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr)
	}
	if n := strings.Count(stdout, "--- score 1.00 (success)"); n != 2 {
		t.Errorf("%d successful episodes:\n%s", n, stdout)
	}
	if st := m.Stats(); st.Live != 0 || st.Created != 2 {
		t.Errorf("env service stats %+v, want 2 created, none live", st)
	}

	_, _, err = runArgs(context.Background(), t,
		"--base-url", srv.baseURL(), "--model", testModel, "--env-url", envURL, "--split", "nope")
	if err == nil || !strings.Contains(err.Error(), `listing the "nope" tasks of the env service at `+envURL) {
		t.Errorf("unknown split: error %v", err)
	}
}

// TestInterrupt cancels a run while the model is thinking: the run stops
// promptly, reports the interruption and releases every instance.
func TestInterrupt(t *testing.T) {
	m, envURL := startEnvService(t, toolworld.Config{})
	var once sync.Once
	thinking := make(chan struct{})
	srv := startChatServer(t, func(ctx context.Context, _ []agentevolver.Message) (string, error) {
		once.Do(func() { close(thinking) })
		<-ctx.Done() // never answers
		return "", ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-thinking
		cancel()
	}()
	start := time.Now()
	stdout, stderr, err := runArgs(ctx, t,
		"--base-url", srv.baseURL(), "--model", testModel, "--env-url", envURL, "--tasks", "3", "--n", "2", "--concurrency", "2")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s to stop", d)
	}
	if code := exitCode(err, &bytes.Buffer{}); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	if !strings.Contains(stderr, "interrupted: stopping the episodes") || !strings.Contains(stdout, "episodes: 0 finished, 6 unfinished (interrupted)") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	// A create in flight at the interruption is released in the
	// background (by the server, or by the client once the answer comes),
	// so wait for it rather than read the stats the moment the run returns.
	deadline := time.Now().Add(10 * time.Second)
	st := m.Stats()
	for st.Live != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		st = m.Stats()
	}
	if st.Live != 0 || st.Created == 0 {
		t.Errorf("env service stats %+v, want instances created and none live", st)
	}
}
