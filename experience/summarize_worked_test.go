package experience

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envs/toolworld"
)

// solvedWith returns the action lines of a worked example.
func solvedWith(t *testing.T, text string) []string {
	t.Helper()
	_, sol, ok := strings.Cut(text, workedSolvedWith)
	if !ok {
		t.Fatalf("no %q in %q", workedSolvedWith, text)
	}
	return strings.Split(sol, "\n")
}

// The expert's demonstrations of every level become worked examples whose
// action lines, put back in tool blocks, solve the task again: the
// structure a policy copies is the solution.
func TestWorkedExampleSummarizerToolworldDemonstrations(t *testing.T) {
	ctx := context.Background()
	env := summaryToolworld(t)
	ids, err := env.TaskIDs(ctx, toolworld.SplitTrain, nil)
	if err != nil {
		t.Fatal(err)
	}
	var trajs []agentevolver.Trajectory
	for _, id := range ids {
		trajs = append(trajs, demoEpisode(t, env, id))
	}
	var s WorkedExampleSummarizer
	exps, err := s.Summarize(ctx, trajs)
	if err != nil {
		t.Fatal(err)
	}
	if len(exps) != len(ids) {
		t.Fatalf("%d worked examples from %d demonstrations, want one each", len(exps), len(ids))
	}
	longest := 0
	for i, e := range exps {
		if e.TaskID != ids[i] { // the ids sort in split order
			t.Errorf("experience %d has task %s, want %s", i, e.TaskID, ids[i])
		}
		info, _ := env.Task(e.TaskID)
		if e.Key != info.Instruction || e.Score != 1 || e.Source != SourceWorkedExample || e.ID != "" {
			t.Errorf("%s: key %q score %v source %q id %q", e.TaskID, e.Key, e.Score, e.Source, e.ID)
		}
		if want := workedTaskPrefix + info.Instruction + workedSolvedWith; !strings.HasPrefix(e.Text, want) {
			t.Errorf("%s: text %q does not start with %q", e.TaskID, e.Text, want)
		}
		longest = max(longest, utf8.RuneCountInString(e.Text))
		var replay []agentevolver.Message
		for _, line := range solvedWith(t, e.Text) {
			replay = append(replay, toolAction(line))
		}
		if got := playEpisode(t, env, e.TaskID, replay); got.Reward.Outcome != 1 {
			t.Errorf("%s: replaying the worked example scores %v, want 1:\n%s", e.TaskID, got.Reward.Outcome, e.Text)
		}
	}
	t.Logf("longest worked example: %d code points (bound %d)", longest, DefaultWorkedExampleChars)

	const id = "tw-train-0002"
	want := "Task: What is the phone number of the person I meet on Tue?\n" +
		"Solved with:\ncalendar.list day=Tue\ncontacts.find name=Sam\ntask.finish answer=555-1457"
	if exps[2].TaskID != id || exps[2].Text != want {
		t.Errorf("%s: got %q\nwant %q", exps[2].TaskID, exps[2].Text, want)
	}
}

func TestWorkedExampleSummarizerSelection(t *testing.T) {
	ctx := context.Background()
	env := summaryToolworld(t)
	const id = "tw-train-0002"
	expert, err := env.Demonstrate(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	good := demoEpisode(t, env, id)
	clean, err := (&WorkedExampleSummarizer{}).Summarize(ctx, []agentevolver.Trajectory{good})
	if err != nil || len(clean) != 1 {
		t.Fatalf("demonstration: %v, %v", clean, err)
	}
	// A malformed call and a detour before the expert's calls: the
	// episode still succeeds.
	detour := playEpisode(t, env, id, append([]agentevolver.Message{
		{Role: agentevolver.RoleAssistant, Content: "calendar.list(day='Tue')"},
		toolAction("contacts.list"),
	}, expert...))
	if detour.Reward.Outcome != 1 {
		t.Fatalf("detour scores %v", detour.Reward.Outcome)
	}
	premature := playEpisode(t, env, id, []agentevolver.Message{toolAction("task.finish answer=Sam")})
	if premature.Reward.Outcome != 0 {
		t.Fatalf("premature finish scores %v", premature.Reward.Outcome)
	}
	injected := good
	injected.Steps = append([]agentevolver.Message(nil), good.Steps...)
	exp := strings.Replace(contextmgr.DefaultExperienceTemplate, "{}", clean[0].Text, 1)
	injected.Steps[1].Content = exp + injected.Steps[1].Content
	injected.Experience = agentevolver.ExperienceUse{Requested: true, Injected: []string{exp}}
	thinking := good
	thinking.Steps = append([]agentevolver.Message(nil), good.Steps...)
	thinking.Steps[2].Content = "<think>Tuesday first.</think>\nI will list Tuesday.\n" + thinking.Steps[2].Content
	partial := good
	partial.Reward = agentevolver.NewReward(0.5, "", 0)
	failed := good
	failed.Error = "instance lost"

	tests := []struct {
		name  string
		s     WorkedExampleSummarizer
		trajs []agentevolver.Trajectory
		want  []string // texts
	}{
		{name: "failure gives none", trajs: []agentevolver.Trajectory{premature}},
		{name: "errors left out, detours kept", trajs: []agentevolver.Trajectory{detour}, want: []string{
			"Task: What is the phone number of the person I meet on Tue?\nSolved with:\ncontacts.list\ncalendar.list day=Tue\ncontacts.find name=Sam\ntask.finish answer=555-1457"}},
		{name: "errors kept on request", s: WorkedExampleSummarizer{KeepErrors: true}, trajs: []agentevolver.Trajectory{detour}, want: []string{
			"Task: What is the phone number of the person I meet on Tue?\nSolved with:\ncalendar.list(day='Tue')\ncontacts.list\ncalendar.list day=Tue\ncontacts.find name=Sam\ntask.finish answer=555-1457"}},
		{name: "duplicates dropped", trajs: []agentevolver.Trajectory{good, good, injected, thinking}, want: []string{clean[0].Text}},
		{name: "partial success kept at threshold 0", trajs: []agentevolver.Trajectory{partial}, want: []string{clean[0].Text}},
		{name: "partial success dropped at threshold 0.5", s: WorkedExampleSummarizer{Threshold: 0.5}, trajs: []agentevolver.Trajectory{partial}},
		{name: "failed episode skipped", trajs: []agentevolver.Trajectory{failed}},
		{name: "actions too long for the bound", s: WorkedExampleSummarizer{MaxChars: 60}, trajs: []agentevolver.Trajectory{good}},
		{name: "long task cut", s: WorkedExampleSummarizer{MaxChars: 110}, trajs: []agentevolver.Trajectory{good}, want: []string{
			"Task: What is the phone…\nSolved with:\ncalendar.list day=Tue\ncontacts.find name=Sam\ntask.finish answer=555-1457"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exps, err := tt.s.Summarize(ctx, tt.trajs)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range exps {
				got = append(got, e.Text)
				if max := tt.s.maxChars(); utf8.RuneCountInString(e.Text) > max {
					t.Errorf("text of %d code points, bound %d", utf8.RuneCountInString(e.Text), max)
				}
				if e.Key != good.Query {
					t.Errorf("key %q, want %q", e.Key, good.Query)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
	// A duplicate keeps the best outcome.
	exps, _ := (&WorkedExampleSummarizer{}).Summarize(ctx, []agentevolver.Trajectory{partial, good})
	if len(exps) != 1 || exps[0].Score != 1 {
		t.Errorf("duplicates of outcomes 0.5 and 1 give %+v, want one of score 1", exps)
	}
}

// The output does not depend on the order of the trajectories.
func TestWorkedExampleSummarizerDeterministic(t *testing.T) {
	ctx := context.Background()
	env := summaryToolworld(t)
	var trajs []agentevolver.Trajectory
	for _, id := range []string{"tw-train-0007", "tw-train-0001", "tw-train-0005", "tw-train-0003", "tw-train-0001"} {
		trajs = append(trajs, demoEpisode(t, env, id))
	}
	var s WorkedExampleSummarizer
	want, err := s.Summarize(ctx, trajs)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 4 {
		t.Fatalf("%d experiences, want 4", len(want))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		rng.Shuffle(len(trajs), func(i, j int) { trajs[i], trajs[j] = trajs[j], trajs[i] })
		got, err := s.Summarize(ctx, trajs)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("order-dependent output:\n%+v\nwant\n%+v", got, want)
		}
	}
}

func TestWorkedExampleSummarizerActions(t *testing.T) {
	tests := []struct {
		name string
		msg  agentevolver.Message
		want string
	}{
		{"tool block", toolAction("bank.pay to=Ann amount=5"), "bank.pay to=Ann amount=5"},
		{"prose and block", agentevolver.Message{Content: "Paying Ann.\n```tool\nbank.pay to=Ann amount=5\n```"}, "bank.pay to=Ann amount=5"},
		{"bare text", agentevolver.Message{Content: "  contacts.list \n"}, "contacts.list"},
		{"two blocks kept whole", agentevolver.Message{Content: "```a\nx\n```\n```b\ny\n```"}, "```a\nx\n```\n```b\ny\n```"},
		{"one-line block", agentevolver.Message{Content: "```contacts.list```"}, "contacts.list"},
		{"thinking", agentevolver.Message{Content: "<think>hmm</think>" + toolAction("contacts.list").Content}, "contacts.list"},
		{"structured call", agentevolver.Message{ToolCalls: []agentevolver.ToolCall{{Function: agentevolver.FunctionCall{Name: "bank_pay", Arguments: `{"to":"Ann","amount":5}`}}}},
			`{"name":"bank_pay","arguments":{"to":"Ann","amount":5}}`},
		{"structured call, bad arguments", agentevolver.Message{ToolCalls: []agentevolver.ToolCall{{Function: agentevolver.FunctionCall{Name: "f", Arguments: "to=Ann"}}}},
			`{"name":"f","arguments":"to=Ann"}`},
		{"empty block", agentevolver.Message{Content: "```tool\n```"}, "```tool\n```"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.msg.Role = agentevolver.RoleAssistant
			if got := workedAction(tt.msg); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	for obs, want := range map[string]bool{"error: no tool call": true, "Error": true, "ERROR 3": true, "errors: 0": false, "paid Ann 5": false, "": false} {
		if got := isErrorObservation(obs); got != want {
			t.Errorf("isErrorObservation(%q) = %v", obs, got)
		}
	}
}

func TestWorkedExampleSummarizerCancelled(t *testing.T) {
	env := summaryToolworld(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var s WorkedExampleSummarizer
	exps, err := s.Summarize(ctx, []agentevolver.Trajectory{demoEpisode(t, env, "tw-train-0000")})
	if !errors.Is(err, context.Canceled) || exps != nil {
		t.Errorf("got %v, %v; want nil, context.Canceled", exps, err)
	}
}
