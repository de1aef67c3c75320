//go:build unix

package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/mcp"
	"github.com/org/agentevolver/envservice"
)

// TestExpertSolvesShippedTasks checks every task of the shipped task
// files: its reference solution scores 1 on the real server.
func TestExpertSolvesShippedTasks(t *testing.T) {
	for _, server := range []string{"memory", "filesystem", "everything"} {
		t.Run(server, func(t *testing.T) {
			env := newNPMEnv(t, server, nil)
			for _, split := range []string{mcp.SplitTrain, mcp.SplitVal} {
				ids, err := env.TaskIDs(t.Context(), split, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, id := range ids {
					reward, sparse, dense := playExpert(t, env, id)
					if reward != 1 || sparse != 1 || dense != 1 {
						t.Errorf("%s: reward %v, sparse %v, dense %v; want 1", id, reward, sparse, dense)
					}
				}
			}
			if n := env.LiveInstances(); n != 0 {
				t.Errorf("%d instances still live", n)
			}
		})
	}
}

// TestPartialScores: doing nothing scores 0; half the checks give a dense
// score of 0.5 and a sparse 0.
func TestPartialScores(t *testing.T) {
	env := newNPMEnv(t, "everything", nil)
	ctx := t.Context()
	inst, err := env.New(ctx, "ev-sum", "partial", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	if s, err := inst.Evaluate(ctx, nil); err != nil || s != 0 {
		t.Fatalf("fresh instance score %v, %v", s, err)
	}
	if _, err := inst.Step(ctx, call("get-sum", map[string]any{"a": 17, "b": 25}), nil); err != nil {
		t.Fatal(err)
	}
	res, err := inst.Step(ctx, call(mcp.FinalAnswerTool, map[string]any{"answer": "41"}), map[string]any{"sparse": false})
	if err != nil || !res.IsTerminated || res.Reward != 0.5 {
		t.Fatalf("wrong answer: %+v, %v; want terminated with reward 0.5", res, err)
	}
	if s, _ := inst.Evaluate(ctx, map[string]any{"sparse": true}); s != 0 {
		t.Errorf("sparse score %v, want 0", s)
	}
	res, err = inst.Step(ctx, call("echo", map[string]any{"message": "x"}), nil)
	if err != nil || !res.IsTerminated || !strings.HasPrefix(res.State[0].Content, "error:") {
		t.Errorf("step after the end: %+v, %v", res, err)
	}
}

// TestSystemPromptAndStructuredCalls: the system prompt lists the tools
// with their schemas; OpenAI-style tool calls get tool messages with
// their ids, structured content included.
func TestSystemPromptAndStructuredCalls(t *testing.T) {
	env := newNPMEnv(t, "everything", nil)
	ctx := t.Context()
	inst, err := env.New(ctx, "ev-echo", "structured", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	init, _ := inst.InitState(ctx, nil)
	system := init.State[0].Content
	for _, want := range []string{"- echo: ", `"message":{"description":"Message to echo","type":"string"}`, "- get-sum: ", "- final_answer: ", "```json"} {
		if !strings.Contains(system, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, system)
		}
	}
	action := agentevolver.Message{Role: agentevolver.RoleAssistant, ToolCalls: []agentevolver.ToolCall{
		{ID: "c1", Type: "function", Function: agentevolver.FunctionCall{Name: "echo", Arguments: `{"message":"banana"}`}},
		{ID: "c2", Type: "function", Function: agentevolver.FunctionCall{Name: "get-sum", Arguments: `{"a":1,"b":2}`}},
		{ID: "c3", Type: "function", Function: agentevolver.FunctionCall{Name: "get-structured-content", Arguments: `{"location":"Chicago"}`}},
	}}
	res, err := inst.Step(ctx, action, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.State) != 3 {
		t.Fatalf("%d observation messages, want 3: %+v", len(res.State), res.State)
	}
	for i, want := range []string{"Echo: banana", "The sum of 1 and 2 is 3", "temperature"} {
		m := res.State[i]
		if m.Role != agentevolver.RoleTool || m.ToolCallID != fmt.Sprintf("c%d", i+1) || !strings.Contains(m.Content, want) {
			t.Errorf("observation %d = %+v, want a tool message containing %q", i, m, want)
		}
	}
	if s, _ := inst.Evaluate(ctx, nil); s != 1 {
		t.Errorf("score %v after the echo, want 1", s)
	}
	info, err := inst.Info(ctx, map[string]any{"format": "openai"})
	if err != nil {
		t.Fatal(err)
	}
	if tools := info.([]map[string]any); len(tools) != len(env.Tools())+1 {
		t.Errorf("%d OpenAI tools, want %d", len(tools), len(env.Tools())+1)
	}
}

// TestBadActionsAreObservations: malformed actions, unknown tools, schema
// violations, tool errors and timeouts are "error:" observations; the
// episode goes on and the server still answers.
func TestBadActionsAreObservations(t *testing.T) {
	env := newNPMEnv(t, "everything", func(c *mcp.Config) { c.CallTimeout = 700 * time.Millisecond; c.MaxObservationBytes = 120 })
	ctx := t.Context()
	inst, err := env.New(ctx, "ev-echo", "bad", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	text := func(s string) agentevolver.Message {
		return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: s}
	}
	cases := []struct {
		name   string
		action agentevolver.Message
		want   string
	}{
		{"no call", text("I think I am done."), "error: no tool call found"},
		{"invalid JSON", text("```json\n{\"name\": \"echo\", \"arguments\": {\"message\": }\n```"), "error: the tool call is not valid JSON"},
		{"two calls", text(`{"name": "echo", "arguments": {}} {"name": "echo", "arguments": {}}`), "error: 2 tool calls found"},
		{"unknown tool", call("shout", nil), `error: unknown tool "shout"; the tools are`},
		{"missing argument", call("echo", nil), `error: invalid arguments for echo: missing required argument "message"`},
		{"wrong type", call("get-sum", map[string]any{"a": "one", "b": 2}), `argument "a" must be number, got string`},
		{"server refuses", call("get-annotated-message", map[string]any{"messageType": "bogus"}), "error: "},
		{"bad structured arguments", agentevolver.Message{Role: agentevolver.RoleAssistant, ToolCalls: []agentevolver.ToolCall{
			{ID: "x", Function: agentevolver.FunctionCall{Name: "echo", Arguments: "{not json"}}}}, "error: the arguments must be a JSON object"},
		{"timeout", call("trigger-long-running-operation", map[string]any{"duration": 5, "steps": 1}), "error: the tool trigger-long-running-operation did not answer within 700ms"},
		{"truncated", call("echo", map[string]any{"message": strings.Repeat("ab", 100)}), "[truncated: "},
		{"too long", text(strings.Repeat("x", mcp.MaxActionBytes+1)), "error: the action is longer than"},
	}
	for _, c := range cases {
		res, err := inst.Step(ctx, c.action, nil)
		if err != nil {
			t.Fatalf("%s: Step error %v, want an observation", c.name, err)
		}
		if res.IsTerminated || len(res.State) != 1 || !strings.Contains(res.State[0].Content, c.want) {
			t.Errorf("%s: %+v, want one observation containing %q", c.name, res.State, c.want)
		}
	}
	res, err := inst.Step(ctx, call("echo", map[string]any{"message": "still here"}), nil)
	if err != nil || res.State[0].Content != "Echo: still here" {
		t.Fatalf("after the bad actions: %+v, %v", res, err)
	}
}

// TestCallLimitEndsEpisode: the call that reaches MaxCalls ends the
// episode, malformed actions counting.
func TestCallLimitEndsEpisode(t *testing.T) {
	env := newNPMEnv(t, "everything", func(c *mcp.Config) { c.MaxCalls = 2 })
	ctx := t.Context()
	inst, err := env.New(ctx, "ev-echo", "limit", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	res, err := inst.Step(ctx, agentevolver.Message{Content: "nothing"}, nil)
	if err != nil || res.IsTerminated {
		t.Fatalf("first step: %+v, %v", res, err)
	}
	res, err = inst.Step(ctx, call("echo", map[string]any{"message": "banana"}), nil)
	if err != nil || !res.IsTerminated || res.Reward != 1 {
		t.Fatalf("second step: %+v, %v; want terminated with reward 1", res, err)
	}
}

// TestServerCrashIsStepError: a server killed mid-episode makes Step and
// Evaluate fail with ErrServerFailed; Close still succeeds.
func TestServerCrashIsStepError(t *testing.T) {
	env := newNPMEnv(t, "memory", nil)
	ctx := t.Context()
	inst, err := env.New(ctx, "memory-ada", "crash", nil)
	if err != nil {
		t.Fatal(err)
	}
	pid := inst.(*mcp.Instance).Pid()
	if _, err := inst.Step(ctx, call("read_graph", nil), nil); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, err = inst.Step(ctx, call("read_graph", nil), nil)
	if !errors.Is(err, mcp.ErrServerFailed) {
		t.Fatalf("Step after the crash: %v, want ErrServerFailed", err)
	}
	if !strings.Contains(err.Error(), "exited") {
		t.Errorf("error %q does not say the server exited", err)
	}
	if _, err := inst.Evaluate(ctx, nil); !errors.Is(err, mcp.ErrServerFailed) {
		t.Errorf("Evaluate after the crash: %v", err)
	}
	if err := inst.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestNoLeakedProcesses: every instance's server is killed by its Close,
// by a failed create, and by Env.Close for the instances left open; the
// instance directories go with them.
func TestNoLeakedProcesses(t *testing.T) {
	before := len(children(t))
	env := newNPMEnv(t, "filesystem", nil)
	waitChildren(t, before) // the probe server of New is gone
	ctx := t.Context()
	var insts []envservice.Instance
	var pids []int
	for i := range 3 {
		inst, err := env.New(ctx, "fs-notes", fmt.Sprint("leak-", i), nil)
		if err != nil {
			t.Fatal(err)
		}
		insts = append(insts, inst)
		pids = append(pids, inst.(*mcp.Instance).Pid())
	}
	if got := len(children(t)); got != before+3 {
		t.Fatalf("%d children with 3 instances, want %d", got, before+3)
	}
	if _, err := insts[0].Step(ctx, call("write_file", map[string]any{"path": "notes.txt", "content": "hello"}), nil); err != nil {
		t.Fatal(err)
	}
	// The instance directory is the server's root.
	res, err := insts[0].Step(ctx, call("list_allowed_directories", nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := strings.TrimSpace(res.State[0].Content[strings.LastIndexByte(res.State[0].Content, ':')+1:])
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("instance directory %q: %v", dir, err)
	}
	if err := insts[0].Close(); err != nil {
		t.Fatal(err)
	}
	if alive(pids[0]) {
		t.Errorf("server %d alive after Close", pids[0])
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("instance directory %q still there after Close: %v", dir, err)
	}
	if _, err := insts[0].Step(ctx, call("list_allowed_directories", nil), nil); !errors.Is(err, mcp.ErrClosed) {
		t.Errorf("Step after Close: %v, want ErrClosed", err)
	}
	waitChildren(t, before+2)

	// A create whose context ends kills its server.
	short, cancel := context.WithTimeout(ctx, time.Millisecond)
	_, err = env.New(short, "fs-code", "leak-short", nil)
	cancel()
	if err == nil {
		t.Fatal("create with an expired context succeeded")
	}
	waitChildren(t, before+2)

	// Env.Close kills the rest.
	if err := env.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("server %d alive after Env.Close", pid)
		}
	}
	waitChildren(t, before)
	if _, err := env.New(ctx, "fs-notes", "after-close", nil); !errors.Is(err, mcp.ErrClosed) {
		t.Errorf("create after Env.Close: %v, want ErrClosed", err)
	}
	waitChildren(t, before)
}

// TestThroughEnvService plays episodes over HTTP: envclient -> Server ->
// Manager -> Env, releases and the Manager's Close kill the servers.
func TestThroughEnvService(t *testing.T) {
	before := len(children(t))
	env := newNPMEnv(t, "memory", nil)
	m := envservice.NewManager(envservice.ManagerConfig{})
	if err := m.Register(mcp.Name, env); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(envservice.NewServer(m, envservice.ServerConfig{DefaultEnvType: mcp.Name}))
	defer ts.Close()
	defer m.Close()
	client, err := envclient.New(envclient.Config{BaseURL: ts.URL, EnvType: mcp.Name, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	ids, err := client.TaskIDs(ctx, mcp.Name, mcp.SplitTrain)
	if err != nil || len(ids) != 2 {
		t.Fatalf("TaskIDs = %v, %v", ids, err)
	}
	init, err := client.Create(ctx, mcp.Name, "memory-ada", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	id := init.InstanceID()
	if !strings.Contains(init.State[0].Content, "create_entities") || init.State[1].Content != "Remember that Ada is a mathematician." {
		t.Fatalf("init state %+v", init.State)
	}
	if got := len(children(t)); got != before+1 {
		t.Errorf("%d children with one instance, want %d", got, before+1)
	}
	// A bad call, then the expert's actions.
	res, err := client.Step(ctx, id, call("create_entities", map[string]any{"entities": "Ada"}), nil)
	if err != nil || !strings.HasPrefix(res.State[0].Content, "error:") {
		t.Fatalf("bad call: %+v, %v", res, err)
	}
	actions, _ := env.Demonstrate(ctx, "memory-ada")
	for _, a := range actions {
		if res, err = client.Step(ctx, id, a, nil); err != nil {
			t.Fatal(err)
		}
	}
	if !res.IsTerminated || res.Reward != 1 {
		t.Fatalf("last step %+v", res)
	}
	if s, err := client.Evaluate(ctx, id, map[string]any{"sparse": true}); err != nil || s != 1 {
		t.Fatalf("evaluate = %v, %v", s, err)
	}
	if released, err := client.Release(ctx, id); err != nil || !released {
		t.Fatalf("release = %v, %v", released, err)
	}
	waitChildren(t, before)

	// A second episode starts from an empty memory: the graph of the first
	// one is gone with its process and directory.
	init, err = client.Create(ctx, mcp.Name, "memory-ada", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := client.Evaluate(ctx, init.InstanceID(), nil); err != nil || s != 0 {
		t.Fatalf("fresh episode score %v, %v; want 0", s, err)
	}
	// The Manager's Close releases it.
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	waitChildren(t, before)
}

// TestConcurrentInstances runs several episodes at once (run it with
// -race): each has its own server and state.
func TestConcurrentInstances(t *testing.T) {
	before := len(children(t))
	env := newNPMEnv(t, "memory", nil)
	ctx := t.Context()
	const n = 4
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			inst, err := env.New(ctx, "memory-ada", fmt.Sprint("conc-", i), nil)
			if err != nil {
				errs <- err
				return
			}
			defer inst.Close()
			name := fmt.Sprint("Person", i)
			if _, err := inst.Step(ctx, call("create_entities", map[string]any{"entities": []any{
				map[string]any{"name": name, "entityType": "person", "observations": []any{"x"}}}}), nil); err != nil {
				errs <- err
				return
			}
			res, err := inst.Step(ctx, call("read_graph", nil), nil)
			if err != nil {
				errs <- err
				return
			}
			for j := range n {
				other := fmt.Sprint("Person", j)
				if got := strings.Contains(res.State[0].Content, `"`+other+`"`); got != (i == j) {
					errs <- fmt.Errorf("instance %d sees %s: %v", i, other, got)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	waitChildren(t, before)
}

// TestNewErrors: bad configs, unknown tools in tasks and servers that do
// not start are errors of New, and leave no process.
func TestNewErrors(t *testing.T) {
	before := len(children(t))
	ctx := t.Context()
	bin := npmServer(t, "everything")
	task := mcp.Task{TaskID: "t", Query: "q", Checker: mcp.Checks{{Type: mcp.CheckToolResult, Tool: "nope", Contains: ptr("x")}}}
	cases := []struct {
		name string
		cfg  mcp.Config
		want error
	}{
		{"no server", mcp.Config{Tasks: []mcp.Task{task}}, nil},
		{"no tasks", mcp.Config{Server: mcp.Server{Command: bin}}, nil},
		{"unknown tool", mcp.Config{Server: mcp.Server{Command: bin}, Tasks: []mcp.Task{task}}, mcp.ErrBadTaskFile},
		{"missing binary", mcp.Config{Server: mcp.Server{Command: "/nonexistent/mcp-server"}, TaskFile: "testdata/everything.jsonl"}, mcp.ErrServerFailed},
		{"not a server", mcp.Config{Server: mcp.Server{Command: "true"}, TaskFile: "testdata/everything.jsonl"}, mcp.ErrServerFailed},
		{"no task file", mcp.Config{Server: mcp.Server{Command: bin}, TaskFile: "testdata/nope.jsonl"}, os.ErrNotExist},
	}
	for _, c := range cases {
		_, err := mcp.New(ctx, c.cfg)
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("%s: %v, want an error matching %v", c.name, err, c.want)
		}
	}
	waitChildren(t, before)
}

// TestUnknownTaskAndSplit: the envclient sentinels.
func TestUnknownTaskAndSplit(t *testing.T) {
	kv := &kvServer{}
	env, err := mcp.New(t.Context(), mcp.Config{Server: mcp.Server{Dial: kv.Dial}, TaskFile: "testdata/kv.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if _, err := env.New(t.Context(), "nope", "x", nil); !errors.Is(err, envclient.ErrBadRequest) {
		t.Errorf("unknown task: %v", err)
	}
	if _, err := env.TaskIDs(t.Context(), "holdout", nil); !errors.Is(err, mcp.ErrUnknownSplit) {
		t.Errorf("unknown split: %v", err)
	}
	if ids, err := env.TaskIDs(t.Context(), mcp.SplitTest, nil); err != nil || len(ids) != 0 {
		t.Errorf("empty test split: %v, %v", ids, err)
	}
}
