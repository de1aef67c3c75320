package toolworld

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envservice"
)

func variedEnv(t *testing.T, worldSeed int64) *Env {
	t.Helper()
	return newEnv(t, Config{Seed: 3, Worlds: 4, WorldSeed: worldSeed, TrainSize: 60, ValSize: 12, TestSize: 6, SystemPrompt: "Help the user."})
}

// TestVariedWorldsSolve: in varied worlds every expert solution, written
// in its world's names, scores 1; the prompt lists exactly those names.
func TestVariedWorldsSolve(t *testing.T) {
	ctx := context.Background()
	e := variedEnv(t, 11)
	prompts := map[int]string{}
	for _, split := range []string{SplitTrain, SplitVal, SplitTest} {
		for i, id := range splitIDs(t, e, split) {
			info, err := e.Task(id)
			if err != nil {
				t.Fatal(err)
			}
			if info.World != i%4 || info.Family == "" {
				t.Fatalf("%s: world %d family %q, want world %d and a family", id, info.World, info.Family, i%4)
			}
			in, err := e.New(ctx, id, "x", nil)
			if err != nil {
				t.Fatal(err)
			}
			st, err := in.InitState(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			system := st.State[0].Content
			if p, ok := prompts[info.World]; ok && p != system {
				t.Fatalf("%s: two prompts in world %d", id, info.World)
			}
			prompts[info.World] = system
			if !strings.HasPrefix(system, "Help the user.\n") {
				t.Fatalf("prompt does not start with the configured line: %q", system)
			}
			actions, err := e.Solve(id)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range actions {
				c, err := ParseAction(a)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(system, "\n"+c.App+"."+c.API) {
					t.Fatalf("%s: the expert calls %s.%s, which the prompt does not list:\n%s", id, c.App, c.API, system)
				}
				for _, arg := range c.Args {
					if !strings.Contains(system, " "+arg.Name+"=") && !strings.Contains(system, "["+arg.Name+"=") {
						t.Fatalf("%s: argument %s not in the prompt", id, arg.Name)
					}
				}
				stepExpert(t, in, id, a)
			}
		}
	}
	if len(prompts) != 4 {
		t.Fatalf("%d distinct world prompts, want 4", len(prompts))
	}
	// Another world seed gives other worlds; the same one the same.
	other := variedEnv(t, 12)
	same := variedEnv(t, 11)
	if p := other.systemPrompt(other.tasks["tw-train-0000"]); p == prompts[0] {
		t.Error("world seeds 11 and 12 give the same world 0")
	}
	if p := same.systemPrompt(same.tasks["tw-train-0000"]); p != prompts[0] {
		t.Error("the same world seed gives another world 0")
	}
}

// TestVariedWorldErrors: a call in another world's names is an error that
// lists this world's names, and the hints of malformed actions use them.
func TestVariedWorldErrors(t *testing.T) {
	ctx := context.Background()
	e := variedEnv(t, 5)
	id := "tw-train-0000"
	s := e.shown(e.tasks[id])
	find := e.cat.byID["contacts.find"]
	in, err := e.New(ctx, id, "x", nil)
	if err != nil {
		t.Fatal(err)
	}
	step := func(content string) string {
		t.Helper()
		res, err := in.Step(ctx, assistant(content), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.State[0].Content
	}
	if s.app["contacts"] != "contacts" {
		if obs := step(tool("contacts.find name=Ann")); !strings.Contains(obs, "unknown app") || !strings.Contains(obs, s.app["contacts"]) {
			t.Errorf("canonical app in a varied world: %q", obs)
		}
	}
	if obs := step("no call here"); !strings.Contains(obs, s.full(find)+" "+s.param[find]["name"]+"=Ann") || strings.Contains(obs, "contacts.find") && s.full(find) != "contacts.find" {
		t.Errorf("hint not in the world's names: %q", obs)
	}
	if obs := step(tool(s.full(find) + " bogus=1")); !strings.Contains(obs, "usage: "+s.usage(find)) {
		t.Errorf("unknown argument: %q", obs)
	}
	if obs := step(tool(s.full(find) + " " + s.param[find]["name"] + "=Nobody")); !strings.Contains(obs, s.fullID(e.cat, "contacts.list")+" shows all names") {
		t.Errorf("missing contact: %q", obs)
	}
	// OpenAI tools carry the world's names and parse back.
	info, err := in.Info(ctx, map[string]any{"format": "openai"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(info)
	if !strings.Contains(string(data), `"`+s.app["contacts"]+`_`+s.apiName[find]+`"`) {
		t.Errorf("openai tools lack %s_%s: %s", s.app["contacts"], s.apiName[find], data)
	}
	call := agentevolver.Message{Role: agentevolver.RoleAssistant, ToolCalls: []agentevolver.ToolCall{toolCall(s.app["contacts"]+"_"+s.apiName[find], `{"`+s.param[find]["name"]+`": "Nobody"}`)}}
	res, err := in.Step(ctx, call, nil)
	if err != nil {
		t.Fatal(err)
	}
	if obs := res.State[0].Content; !strings.Contains(obs, "no contact named Nobody") {
		t.Errorf("JSON call in world names: %q", obs)
	}
}

// TestVariedWorldHindsight: random walks, hindsight tasks and the step
// oracle work in a world's names.
func TestVariedWorldHindsight(t *testing.T) {
	ctx := context.Background()
	e := variedEnv(t, 9)
	for i, id := range splitIDs(t, e, SplitTrain)[:12] {
		var history []agentevolver.Message
		for range 3 {
			a, err := e.RandomAction(ctx, id, history, int64(i))
			if err != nil {
				t.Fatal(err)
			}
			history = append(history, a)
		}
		task, err := e.SynthesizeTask(ctx, id, history)
		if err != nil {
			continue // a walk that achieved nothing
		}
		info, err := e.Task(task.TaskID)
		if err != nil {
			t.Fatal(err)
		}
		root, _ := e.Task(id)
		if info.Family != HindsightFamily || info.World != root.World {
			t.Fatalf("hindsight info %+v, seed world %d", info, root.World)
		}
		if sparse, _ := scoreActions(t, e, task.TaskID, gtActions(task.GroundTruth)); sparse != 1 {
			t.Fatalf("ground truth %q scores %v", task.GroundTruth, sparse)
		}
		actions, err := e.Solve(task.TaskID)
		if err != nil {
			t.Fatal(err)
		}
		verdicts, err := e.JudgeSteps(ctx, task.TaskID, actions)
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range verdicts {
			if !v {
				t.Fatalf("expert step %d of %s judged BAD", j, task.TaskID)
			}
		}
	}
}

// TestSurfaceWordsDistinct: no word names two things, and descriptions
// use none of the names, so a name in a tool list identifies its API or
// argument by itself.
func TestSurfaceWordsDistinct(t *testing.T) {
	owner := map[string]string{}
	for key, words := range surfaceChoices() {
		for _, w := range words {
			if prev, ok := owner[w]; ok {
				t.Errorf("%q names both %s and %s", w, prev, key)
			}
			owner[w] = key
			if !isIdent(w) || strings.ToLower(w) != w || strings.Contains(w, "_") {
				t.Errorf("%q is not a lower-case identifier without _", w)
			}
		}
	}
	for id, docs := range docChoices() {
		for _, d := range docs {
			for _, w := range strings.FieldsFunc(strings.ToLower(d), func(r rune) bool { return r < 'a' || r > 'z' }) {
				if key, ok := owner[w]; ok && !strings.Contains(d, "{"+w+"}") {
					t.Errorf("description %q of %s uses %q, a name of %s", d, id, w, key)
				}
			}
		}
	}
}

// stepExpert applies one of the expert's actions to in: it must be
// accepted (no error observation) and, when it ends the episode, score 1.
func stepExpert(t *testing.T, in envservice.Instance, id string, a agentevolver.Message) {
	t.Helper()
	res, err := in.Step(context.Background(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	if obs := res.State[0].Content; strings.HasPrefix(obs, "error") {
		t.Fatalf("%s: %s -> %s", id, a.Content, obs)
	}
	if res.IsTerminated && res.Reward != 1 {
		t.Fatalf("%s: expert scored %v", id, res.Reward)
	}
}
