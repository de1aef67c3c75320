package experience

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envs/toolworld"
)

// summaryToolworld returns a small compact toolworld, the environment of the
// in-process policy.
func summaryToolworld(t testing.TB) *toolworld.Env {
	t.Helper()
	env, err := toolworld.New(toolworld.Config{Compact: true, TrainSize: 60, ValSize: 6, TestSize: 6})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// play runs actions on a fresh instance of taskID and records the episode
// as the agent flow would: the initial messages, each action followed by
// its observation, the sparse outcome and the task's instruction as Query.
func playEpisode(t testing.TB, env *toolworld.Env, taskID string, actions []agentevolver.Message) agentevolver.Trajectory {
	t.Helper()
	ctx := context.Background()
	inst, err := env.New(ctx, taskID, "test", map[string]any{"sparse": true})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	init, err := inst.InitState(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	traj := agentevolver.Trajectory{TaskID: taskID, Query: init.State[1].Content, Steps: append([]agentevolver.Message(nil), init.State...)}
	for _, a := range actions {
		res, err := inst.Step(ctx, a, nil)
		if err != nil {
			t.Fatal(err)
		}
		traj.Steps = append(traj.Steps, a)
		traj.Steps = append(traj.Steps, res.State...)
		if res.IsTerminated {
			traj.IsTerminated = true
			break
		}
	}
	score, err := inst.Evaluate(ctx, map[string]any{"sparse": true})
	if err != nil {
		t.Fatal(err)
	}
	traj.Reward = agentevolver.NewReward(score, "", 0)
	return traj
}

// demo plays the expert's demonstration of taskID.
func demoEpisode(t testing.TB, env *toolworld.Env, taskID string) agentevolver.Trajectory {
	t.Helper()
	actions, err := env.Demonstrate(context.Background(), taskID)
	if err != nil {
		t.Fatal(err)
	}
	return playEpisode(t, env, taskID, actions)
}

// tool is an action in toolworld's tool block syntax.
func toolAction(line string) agentevolver.Message {
	return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "```tool\n" + line + "\n```"}
}

func TestSummarizeEpisodeView(t *testing.T) {
	const query = "What is the phone number of Ann?"
	injected := strings.Replace(contextmgr.DefaultExperienceTemplate, "{}", "Task: x\nSolved with:\ncontacts.find name=Bob", 1)
	sys := agentevolver.Message{Role: agentevolver.RoleSystem, Content: "system"}
	user := func(s string) agentevolver.Message {
		return agentevolver.Message{Role: agentevolver.RoleUser, Content: s}
	}
	base := func() agentevolver.Trajectory {
		return agentevolver.Trajectory{
			TaskID: "t1",
			Steps: []agentevolver.Message{
				sys, user(query),
				{Role: agentevolver.RoleAssistant, Content: "<think>look her up</think>\n" + toolAction("contacts.find name=Ann").Content},
				user("Ann 555-0142"),
				{Role: agentevolver.RoleAssistant, ToolCalls: []agentevolver.ToolCall{{Function: agentevolver.FunctionCall{Name: "task_finish", Arguments: `{"answer": "555-0142"}`}}}},
				{Role: agentevolver.RoleTool, Content: "task finished"},
				user("  "),
			},
			Reward: agentevolver.NewReward(1, "", 0),
		}
	}
	tests := []struct {
		name    string
		edit    func(*agentevolver.Trajectory)
		ok      bool
		key     string
		task    string
		actions []string
		obs     []string
	}{
		{name: "plain", edit: func(*agentevolver.Trajectory) {}, ok: true, key: query, task: query,
			actions: []string{"```tool\ncontacts.find name=Ann\n```", `{"name":"task_finish","arguments":{"answer":"555-0142"}}`},
			obs:     []string{"Ann 555-0142", "task finished"}},
		{name: "query field names the task", edit: func(tr *agentevolver.Trajectory) { tr.Query = "Ann's number?" },
			ok: true, key: query, task: "Ann's number?"},
		{name: "default template stripped", edit: func(tr *agentevolver.Trajectory) { tr.Steps[1].Content = injected + query },
			ok: true, key: query, task: query},
		{name: "reported injection stripped", edit: func(tr *agentevolver.Trajectory) {
			tr.Steps[1].Content = "<<EXPERIENCE>> " + query
			tr.Experience.Injected = []string{"<<EXPERIENCE>>"}
		}, ok: true, key: query, task: query},
		{name: "no user message: the query", edit: func(tr *agentevolver.Trajectory) {
			tr.Steps = append([]agentevolver.Message{sys}, tr.Steps[2:]...)
			tr.Query = "q"
		}, ok: true, key: "q", task: "q"},
		{name: "no task text", edit: func(tr *agentevolver.Trajectory) { tr.Steps[1].Content = injected }},
		{name: "no action", edit: func(tr *agentevolver.Trajectory) { tr.Steps = tr.Steps[:2] }},
		{name: "environment error", edit: func(tr *agentevolver.Trajectory) { tr.Error = "step failed" }},
		{name: "discarded", edit: func(tr *agentevolver.Trajectory) { tr.Discarded = true }},
		{name: "NaN outcome", edit: func(tr *agentevolver.Trajectory) { tr.Reward.Outcome = math.NaN() }},
		{name: "infinite outcome", edit: func(tr *agentevolver.Trajectory) { tr.Reward.Outcome = math.Inf(1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := base()
			tt.edit(&tr)
			ep, ok := viewEpisode(tr)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if ep.key != tt.key || ep.task != tt.task {
				t.Errorf("key, task = %q, %q; want %q, %q", ep.key, ep.task, tt.key, tt.task)
			}
			if tt.actions == nil {
				return
			}
			if len(ep.steps) != len(tt.actions) {
				t.Fatalf("%d steps, want %d", len(ep.steps), len(tt.actions))
			}
			for i, st := range ep.steps {
				if st.action != tt.actions[i] || st.observation != tt.obs[i] {
					t.Errorf("step %d = %q / %q, want %q / %q", i, st.action, st.observation, tt.actions[i], tt.obs[i])
				}
			}
		})
	}
}

func TestSummarizeClipCodePoints(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello world", 7, "hello…"},
		{"héllo wörld", 4, "hél…"},
		{"abc", 0, "abc"},
		{"abc", 1, "…"},
	}
	for _, tt := range tests {
		if got := clipCodePoints(tt.in, tt.max); got != tt.want {
			t.Errorf("clipCodePoints(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}
