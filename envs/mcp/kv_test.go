package mcp_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/mcp"
	"github.com/org/agentevolver/envservice"
)

// These tests run on the in-process key-value server: no node needed.

func newKVEnv(t *testing.T) (*mcp.Env, *kvServer) {
	t.Helper()
	kv := &kvServer{}
	env, err := mcp.New(t.Context(), mcp.Config{Server: mcp.Server{Dial: kv.Dial}, TaskFile: "testdata/kv.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Close() })
	// New closes the session it listed the tools on; the server sees the
	// close on its own goroutine, so wait for it before counting sessions.
	waitSessions(t, kv, 0)
	return env, kv
}

func TestKVExpertAndSetup(t *testing.T) {
	env, kv := newKVEnv(t)
	for _, id := range []string{"kv-set", "kv-get"} {
		if r, s, d := playExpert(t, env, id); r != 1 || s != 1 || d != 1 {
			t.Errorf("%s: %v %v %v", id, r, s, d)
		}
	}
	waitSessions(t, kv, 0)
}

func TestKVCrashAndClose(t *testing.T) {
	env, kv := newKVEnv(t)
	ctx := t.Context()
	inst, err := env.New(ctx, "kv-set", "boom", nil)
	if err != nil {
		t.Fatal(err)
	}
	if kv.Sessions() != 1 || env.LiveInstances() != 1 {
		t.Fatalf("sessions %d, live %d", kv.Sessions(), env.LiveInstances())
	}
	if _, err := inst.Step(ctx, call("boom", nil), nil); !errors.Is(err, mcp.ErrServerFailed) {
		t.Fatalf("Step on a crashing server: %v", err)
	}
	if _, err := inst.Step(ctx, call("get", map[string]any{"key": "a"}), nil); !errors.Is(err, mcp.ErrServerFailed) {
		t.Fatalf("Step after the crash: %v", err)
	}
	if err := inst.Close(); err != nil {
		t.Fatal(err)
	}
	if env.LiveInstances() != 0 {
		t.Errorf("live %d after Close", env.LiveInstances())
	}
	// The setup of kv-get runs unseen and fails the create when it fails.
	inst, err = env.New(ctx, "kv-get", "ok", nil)
	if err != nil {
		t.Fatal(err)
	}
	inst.Close()
}

// Release through a Manager closes the session.
func TestKVReleaseClosesSession(t *testing.T) {
	env, kv := newKVEnv(t)
	m := envservice.NewManager(envservice.ManagerConfig{})
	defer m.Close()
	if err := m.Register(mcp.Name, env); err != nil {
		t.Fatal(err)
	}
	init, err := m.Create(t.Context(), mcp.Name, "kv-set", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if kv.Sessions() != 1 {
		t.Fatalf("%d sessions", kv.Sessions())
	}
	if released, err := m.Release(t.Context(), init.InstanceID()); err != nil || !released {
		t.Fatal(released, err)
	}
	waitSessions(t, kv, 0)
}

func waitSessions(t *testing.T, kv *kvServer, want int) {
	t.Helper()
	for range 200 {
		if kv.Sessions() == want {
			return
		}
		sleep()
	}
	t.Fatalf("%d sessions, want %d", kv.Sessions(), want)
}

func TestKVCapabilities(t *testing.T) {
	env, _ := newKVEnv(t)
	ctx := t.Context()
	p := env.Profile()
	if len(p.Entities) != 1 || p.Entities[0].Name != "kv" || len(p.Entities[0].Opts) != 3 || p.Entities[0].Attrs["key"] == "" {
		t.Errorf("profile %+v", p)
	}
	docs, err := env.Corpus(ctx, mcp.SplitTrain)
	if err != nil || len(docs) != 4 || !strings.Contains(docs[0], "- set:") || docs[1] != "Store blue under the key sky." {
		t.Errorf("corpus %q, %v", docs, err)
	}
	md, err := env.TaskMetadata(ctx, "kv-get")
	if err != nil || md.Difficulty != 2 {
		t.Errorf("metadata %+v, %v", md, err)
	}
	demo, _ := env.Demonstrate(ctx, "kv-get")
	want := []agentevolver.Message{
		mcp.CallMessage("get", map[string]any{"key": "pet"}),
		mcp.CallMessage(mcp.FinalAnswerTool, map[string]any{"answer": "Tom the cat"}),
	}
	if !reflect.DeepEqual(demo, want) {
		t.Errorf("demonstration %+v", demo)
	}
	if !strings.Contains(demo[0].Content, `{"name": "get", "arguments": {"key":"pet"}}`) {
		t.Errorf("demonstration text %q", demo[0].Content)
	}
	noSol, err := mcp.New(ctx, mcp.Config{Server: mcp.Server{Dial: (&kvServer{}).Dial},
		Tasks: []mcp.Task{{TaskID: "x", Query: "q", Checker: mcp.Checks{{Type: mcp.CheckAnswer, Exact: ptr("a")}}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer noSol.Close()
	if _, err := noSol.Demonstrate(ctx, "x"); !errors.Is(err, mcp.ErrNoSolution) {
		t.Errorf("no solution: %v", err)
	}
}

// Config.Tools hides tools from the agent; verify calls may still use them.
func TestKVToolsAllowList(t *testing.T) {
	ctx := t.Context()
	kv := &kvServer{}
	task := mcp.Task{TaskID: "t", Query: "Store x under k.",
		Checker:  mcp.Checks{{Type: mcp.CheckVerify, Call: &mcp.Call{Name: "get", Arguments: map[string]any{"key": "k"}}, Exact: ptr("x")}},
		Solution: &mcp.Solution{Calls: []mcp.Call{{Name: "set", Arguments: map[string]any{"key": "k", "value": "x"}}}}}
	env, err := mcp.New(ctx, mcp.Config{Server: mcp.Server{Dial: kv.Dial}, Tools: []string{"set"}, Tasks: []mcp.Task{task}})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if tools := env.Tools(); len(tools) != 1 || tools[0].Name != "set" {
		t.Fatalf("tools %+v", tools)
	}
	if r, s, d := playExpert(t, env, "t"); r != 1 || s != 1 || d != 1 {
		t.Errorf("expert: %v %v %v", r, s, d)
	}
	inst, err := env.New(ctx, "t", "hidden", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	init, _ := inst.InitState(ctx, nil)
	if strings.Contains(init.State[0].Content, "- get:") {
		t.Error("the system prompt lists a hidden tool")
	}
	res, err := inst.Step(ctx, call("get", map[string]any{"key": "k"}), nil)
	if err != nil || !strings.HasPrefix(res.State[0].Content, `error: unknown tool "get"`) {
		t.Errorf("hidden tool call: %+v, %v", res, err)
	}
	for _, tools := range [][]string{{"nope"}, {"get"}} {
		if _, err := mcp.New(ctx, mcp.Config{Server: mcp.Server{Dial: kv.Dial}, Tools: tools, Tasks: []mcp.Task{task}}); err == nil {
			t.Errorf("Tools %v accepted", tools)
		}
	}
}

// Stray output on the stream is skipped; a result the client cannot
// decode is an error observation, and the session goes on.
func TestKVStrayOutputAndUndecodableResult(t *testing.T) {
	ctx := t.Context()
	kv := &kvServer{stray: true, weird: true}
	env, err := mcp.New(ctx, mcp.Config{Server: mcp.Server{Dial: kv.Dial}, TaskFile: "testdata/kv.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if r, s, d := playExpert(t, env, "kv-get"); r != 1 || s != 1 || d != 1 {
		t.Errorf("kv-get with stray output: %v %v %v", r, s, d)
	}
	inst, err := env.New(ctx, "kv-set", "weird", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	res, err := inst.Step(ctx, call("weird", nil), nil)
	if err != nil || res.IsTerminated || !strings.HasPrefix(res.State[0].Content, "error: ") || !strings.Contains(res.State[0].Content, "hologram") {
		t.Fatalf("undecodable result: %+v, %v; want an error observation", res, err)
	}
	res, err = inst.Step(ctx, call("set", map[string]any{"key": "sky", "value": "blue"}), nil)
	if err != nil || res.State[0].Content != "ok" {
		t.Fatalf("after the undecodable result: %+v, %v", res, err)
	}
}
