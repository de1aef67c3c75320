package main

import (
	"context"
	"errors"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
)

// renamingEnv chooses its own instance ids, as an env service may, and
// fails steps whose action says "fail".
type renamingEnv struct {
	envclient.Env // nil: only Create and Step are used
}

func (renamingEnv) Create(_ context.Context, _, taskID, _ string, _ map[string]any) (envclient.InitState, error) {
	if taskID == "missing" {
		return envclient.InitState{}, envclient.ErrBadRequest
	}
	return envclient.InitState{
		State: []agentevolver.Message{{Role: agentevolver.RoleSystem, Content: "sys"}, {Role: agentevolver.RoleUser, Content: "task"}},
		Info:  map[string]any{"instance_id": "server-" + taskID},
	}, nil
}

func (renamingEnv) Step(_ context.Context, _ string, action agentevolver.Message, _ map[string]any) (envclient.StepResult, error) {
	if action.Content == "fail" {
		return envclient.StepResult{}, envclient.ErrUnavailable
	}
	return envclient.StepResult{State: []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "obs of " + action.Content}}}, nil
}

func TestRecorder(t *testing.T) {
	ctx := context.Background()
	rec := newRecorder(renamingEnv{})
	if _, err := rec.Create(ctx, "", "missing", "mine-0", nil); err == nil {
		t.Fatal("create of a missing task succeeded")
	}
	if _, err := rec.Create(ctx, "", "t1", "mine-1", nil); err != nil {
		t.Fatal(err)
	}
	// The flow steps under the id the environment chose.
	for _, a := range []string{"a", "fail", "b"} {
		_, _ = rec.Step(ctx, "server-t1", agentevolver.Message{Role: agentevolver.RoleAssistant, Content: a}, nil)
	}
	_, _ = rec.Step(ctx, "unknown", agentevolver.Message{Content: "x"}, nil)

	x := rec.take("server-t1")
	if x == nil {
		t.Fatal("no exchange under the environment's id")
	}
	if len(x.initial) != 2 || len(x.turns) != 3 {
		t.Fatalf("%d initial messages, %d turns", len(x.initial), len(x.turns))
	}
	if x.turns[0].result.State[0].Content != "obs of a" || !errors.Is(x.turns[1].err, envclient.ErrUnavailable) || x.turns[2].action.Content != "b" {
		t.Errorf("turns %+v", x.turns)
	}
	if rec.take("mine-1") != nil || rec.take("mine-0") != nil || len(rec.exchanges) != 0 {
		t.Error("exchange kept after take")
	}
}
