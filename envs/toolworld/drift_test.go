package toolworld

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/org/agentevolver"
)

// TestDriftWorlds: drifted worlds keep the classic prompt and values,
// rename about the configured share of APIs (never task.finish), the
// expert calls the new names and scores 1, and a call by an old name
// fails with an error that names the new one.
func TestDriftWorlds(t *testing.T) {
	ctx := context.Background()
	base := Config{Seed: 3, Worlds: 40, WorldSeed: 5, ValuesOnly: true, TrainSize: 90, ValSize: 6, TestSize: 3, SystemPrompt: OneLinePrompt}
	plain := newEnv(t, base)
	cfg := base
	cfg.Drift = 0.5
	e := newEnv(t, cfg)
	renamed, apis := 0, 0
	sawOldNameError := false
	for _, id := range splitIDs(t, e, SplitTrain) {
		task, plainTask := e.tasks[id], plain.tasks[id]
		if p := e.systemPrompt(task); p != OneLinePrompt {
			t.Fatalf("%s: prompt %q, want the classic one", id, p)
		}
		if !slices.Equal(e.shown(task).pools.people, plain.shown(plainTask).pools.people) {
			t.Fatalf("%s: drift changed the world's people", id)
		}
		if task.info.Instruction != plainTask.info.Instruction {
			t.Fatalf("%s: drift changed the instruction %q -> %q", id, plainTask.info.Instruction, task.info.Instruction)
		}
		drifted, err := e.Drifted(id)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := drifted["task.finish"]; ok {
			t.Fatalf("%s: task.finish drifted", id)
		}
		renamed += len(drifted)
		apis += len(e.cat.byID) - 1
		actions, err := e.Solve(id)
		if err != nil {
			t.Fatal(err)
		}
		in := started(t, e, id, "x")
		for _, a := range actions {
			c, err := ParseAction(a)
			if err != nil {
				t.Fatal(err)
			}
			classic := ""
			for old, shown := range drifted {
				if shown == c.App+"."+c.API {
					classic = old
				}
			}
			if classic != "" && !sawOldNameError {
				// The old name first: an error naming the new one.
				oldCall := agentevolver.Message{Role: agentevolver.RoleAssistant, Content: strings.Replace(a.Content, c.App+"."+c.API, classic, 1)}
				res, err := in.Step(ctx, oldCall, nil)
				if err != nil {
					t.Fatal(err)
				}
				obs := res.State[0].Content
				if !strings.HasPrefix(obs, "error") || !strings.Contains(obs, c.API) {
					t.Fatalf("%s: old name %s -> %q, want an error naming %s", id, classic, obs, c.API)
				}
				sawOldNameError = true
				continue // this instance has spent a turn; the expert replays below
			}
		}
		in2 := started(t, e, id, "y")
		for _, a := range actions {
			stepExpert(t, in2, id, a)
		}
	}
	if share := float64(renamed) / float64(apis); share < 0.35 || share > 0.65 {
		t.Errorf("renamed %d of %d APIs (%.2f), want about 0.5", renamed, apis, share)
	}
	if !sawOldNameError {
		t.Error("no expert call used a renamed API")
	}
	for _, bad := range []Config{
		{Drift: 0.5},
		{Drift: 0.5, Worlds: 4},
		{Drift: 1.5, Worlds: 4, ValuesOnly: true},
	} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%+v): no error", bad)
		}
	}
}
