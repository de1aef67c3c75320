package toolworld

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
)

// findTask returns the first default train task whose instruction starts
// with prefix and whose solution has n calls (n == 0: any), with a fresh
// instance on it.
func findTask(t *testing.T, e *Env, prefix string, n int) (*task, *Instance) {
	t.Helper()
	for _, id := range splitIDs(t, e, SplitTrain) {
		tk := e.tasks[id]
		if strings.HasPrefix(tk.info.Instruction, prefix) && (n == 0 || len(tk.solution) == n) {
			in, err := e.newInstance(context.Background(), id, "x", nil)
			if err != nil {
				t.Fatal(err)
			}
			return tk, in
		}
	}
	t.Fatalf("no task %q with %d calls", prefix, n)
	return nil, nil
}

func step(t *testing.T, in *Instance, content string, params map[string]any) envclient.StepResult {
	t.Helper()
	res, err := in.Step(context.Background(), assistant(content), params)
	if err != nil {
		t.Fatalf("Step(%q): %v", content, err)
	}
	checkStepShape(t, res)
	return res
}

func tool(line string) string { return "```tool\n" + line + "\n```" }

func evaluate(t *testing.T, in *Instance, sparse bool) float64 {
	t.Helper()
	s, err := in.Evaluate(context.Background(), map[string]any{"sparse": sparse})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMalformedActionObservations(t *testing.T) {
	e := newEnv(t, Config{})
	_, in := findTask(t, e, "", 0)
	ann := in.world.contacts[0].name
	tests := []struct{ action, want string }{
		{"I would pay Ann.", "error: no tool call found; reply with one call in a tool block"},
		{tool("mail.send to=Ann"), `error: unknown app "mail"; the apps are contacts, calendar, files, bank, task`},
		{tool("contacts.delete name=Ann"), `error: contacts has no API "delete"; its APIs are find, add, list`},
		{tool("contacts.find who=Ann"), `error: contacts.find has no argument "who"; usage: contacts.find name=NAME`},
		{tool("contacts.add name=Zed"), "error: contacts.add needs phone; usage: contacts.add name=NAME phone=PHONE"},
		{tool("contacts.add name=Zed phone=abc"), "error: phone must be a phone number like 555-0142"},
		{tool("contacts.add name=Z3d phone=555-1234"), "error: name must be a person's name"},
		{tool("bank.pay to=" + ann + " amount=lots"), "error: amount must be a whole number from 1 to 1000000; usage: bank.pay to=NAME amount=N"},
		{tool("bank.pay to=" + ann + " amount=-5"), "error: amount must be a whole number"},
		{tool("bank.pay to=" + ann + " amount=1000000"), "error: insufficient funds: the balance is"},
		{tool("bank.pay to=Nobody amount=5"), "error: no contact named Nobody; contacts.list shows all names (payments go to contacts)"},
		{tool("calendar.list day=Funday"), "error: day must be a day: Mon, Tue, Wed, Thu, Fri, Sat or Sun"},
		{tool("calendar.cancel id=99"), "error: no event with id 99; calendar.list day=DAY shows ids"},
		{tool("files.read name=../etc/passwd"), "error: name must be a file name like notes.txt"},
		{tool("files.read name=nothere.txt"), "error: no file named nothere.txt; files.list shows all files"},
		{tool("files.write name=a.txt text=\"\""), "error: files.write needs text"},
		{tool("contacts.find name=Nobody"), "error: no contact named Nobody"},
		{tool("bank.balance\ncontacts.list"), "error: the tool block has 2 lines; send exactly one call per turn"},
		{tool(`{"name": "bank.balance",}`), "error: the JSON tool call is not valid JSON"},
		{strings.Repeat("x", MaxActionBytes+1), "error: the action is 32769 bytes, the limit is 32768"},
	}
	for _, tt := range tests {
		res := step(t, in, tt.action, nil)
		if got := res.State[0].Content; !strings.HasPrefix(got, tt.want) {
			t.Errorf("action %.40q:\n got %q\nwant %q...", tt.action, got, tt.want)
		}
		if res.IsTerminated || res.Reward != 0 {
			t.Errorf("action %.40q terminated the episode: %+v", tt.action, res)
		}
	}
	if !reflect.DeepEqual(in.world.state(), in.task.base) {
		t.Error("malformed actions changed the world")
	}
}

func TestObservations(t *testing.T) {
	e := newEnv(t, Config{})
	_, in := findTask(t, e, "", 0)
	c := in.world.contacts[0]
	ev := in.world.events[0]
	fullDay := map[string]string{"Mon": "MONDAY", "Tue": "Tuesday", "Wed": "wednesday", "Thu": "Thursday",
		"Fri": "Friday", "Sat": "Saturday", "Sun": "Sunday"}
	tests := []struct{ action, want string }{
		{tool("contacts.find name=" + strings.ToUpper(c.name)), c.name + " " + c.phone},
		{tool("contacts.add name=Zed phone=555-0000"), "added Zed"},
		{tool("contacts.add name=zed phone=555-0001"), "error: zed is already a contact"},
		{tool("calendar.list day=" + fullDay[ev.day]), ""}, // full day names are accepted
		{tool("calendar.add title=\"team sync\" day=Sun with=Zed"), "added event"},
		{tool("files.write name=New.TXT text=hello"), "wrote new.txt"},
		{tool("files.read name=new.txt"), "hello"},
		{tool("files.delete name=new.txt"), "deleted new.txt"},
		{tool("bank.pay to=zed amount=$5"), "paid Zed 5, balance"},
		{`{"name": "bank_balance"}`, "balance "},
	}
	for _, tt := range tests {
		res := step(t, in, tt.action, nil)
		if got := res.State[0].Content; !strings.HasPrefix(got, tt.want) || tt.want == "" && strings.HasPrefix(got, "error") {
			t.Errorf("action %q: got %q, want prefix %q", tt.action, got, tt.want)
		}
	}
	// The calendar list of a day with events names its first event.
	res := step(t, in, tool("calendar.list day="+ev.day), nil)
	if !strings.Contains(res.State[0].Content, ev.title+" with "+ev.with) {
		t.Errorf("calendar.list: %q", res.State[0].Content)
	}
	res = step(t, in, tool("calendar.cancel id=1"), nil)
	if res.State[0].Content != "cancelled event 1" {
		t.Errorf("calendar.cancel: %q", res.State[0].Content)
	}
}

func TestPartialAndWrongSolutions(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()

	// Level 2, three independent actions: doing one of them scores 1/3.
	tk, in := findTask(t, e, "", 4)
	if tk.info.Level != 2 || tk.answer != "" {
		t.Fatalf("want a level-2 task without a question, got %+v", tk.info)
	}
	first := tk.solution[0].Message().Content
	step(t, in, first, nil)
	res := step(t, in, tool("task.finish"), nil)
	if !res.IsTerminated || res.Reward != 1.0/3 {
		t.Fatalf("one of three goals: %+v, want reward 1/3", res)
	}
	if s := evaluate(t, in, true); s != 0 {
		t.Fatalf("sparse score of a partial solution = %v", s)
	}
	verdicts, err := e.JudgeSteps(ctx, tk.info.ID, []agentevolver.Message{assistant(first), assistant(tool("task.finish"))})
	if err != nil || len(verdicts) != 2 || !verdicts[0] || verdicts[1] {
		t.Fatalf("JudgeSteps(partial) = %v, %v; want [true false]", verdicts, err)
	}

	// The full solution plus an unrequested payment: 3 of 4 checks.
	_, in = findTask(t, e, tk.info.Instruction, 4)
	for _, c := range tk.solution[:3] {
		step(t, in, c.Message().Content, nil)
	}
	if s := evaluate(t, in, false); s != 1 {
		t.Fatalf("goals reached without task.finish: dense %v, want 1", s)
	}
	step(t, in, tool("bank.pay to="+in.world.contacts[0].name+" amount=1"), nil)
	res = step(t, in, tool("task.finish"), map[string]any{"sparse": false})
	if res.Reward != 0.75 {
		t.Fatalf("side effect: reward %v, want 0.75", res.Reward)
	}

	// A chained task: the bill paid with the wrong amount fails its check
	// and is a side effect; skipping the read but paying right is fine.
	tk, in = findTask(t, e, "Pay the bill in", 0)
	pay := tk.solution[1]
	to, _ := pay.Arg("to")
	step(t, in, tool("bank.pay to="+to+" amount=1"), nil)
	if s := evaluate(t, in, false); s != 0 {
		t.Fatalf("wrong amount: dense %v, want 0", s)
	}
	verdicts, err = e.JudgeSteps(ctx, tk.info.ID, []agentevolver.Message{
		assistant(tool("contacts.list")), pay.Message(), pay.Message(), assistant(tool("task.finish")), assistant(tool("task.finish")),
	})
	if err != nil || !equalBools(verdicts, []bool{false, true, false, false, false}) {
		t.Fatalf("JudgeSteps(detour, pay, repeat, finish, finish) = %v, %v", verdicts, err)
	}
	verdicts, _ = e.JudgeSteps(ctx, tk.info.ID, []agentevolver.Message{pay.Message(), assistant(tool("task.finish"))})
	if !equalBools(verdicts, []bool{true, true}) {
		t.Fatalf("JudgeSteps(pay, finish) = %v", verdicts)
	}

	// A question: the answer counts only when given to task.finish, and
	// phone punctuation does not matter.
	tk, in = findTask(t, e, "What is", 0)
	if !isPhone(tk.answer) {
		t.Fatalf("want a phone question, got %q", tk.info.Instruction)
	}
	step(t, in, tk.solution[0].Message().Content, nil)
	if s := evaluate(t, in, false); s != 0 {
		t.Fatalf("unanswered question: %v", s)
	}
	res = step(t, in, tool("task.finish answer="+digits(tk.answer)), map[string]any{"sparse": true})
	if res.Reward != 1 {
		t.Fatalf("answer %q for %q: reward %v", digits(tk.answer), tk.answer, res.Reward)
	}
	_, in = findTask(t, e, tk.info.Instruction, 0)
	res = step(t, in, tool("task.finish answer=555-0000"), nil)
	if !res.IsTerminated || res.Reward != 0 {
		t.Fatalf("wrong answer: %+v", res)
	}
	res = step(t, in, tool("bank.balance"), nil)
	if !res.IsTerminated || !strings.Contains(res.State[0].Content, "already finished") {
		t.Fatalf("step after finish: %+v", res)
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSparseParams: the create params set the default scoring of step
// rewards; step params override it.
func TestSparseParams(t *testing.T) {
	e := newEnv(t, Config{})
	tk, _ := findTask(t, e, "", 4)
	for _, tt := range []struct {
		create, step map[string]any
		want         float64
	}{
		{nil, nil, 1.0 / 3},
		{map[string]any{"sparse": true}, nil, 0},
		{map[string]any{"sparse": "true"}, map[string]any{"sparse": false}, 1.0 / 3},
		{nil, map[string]any{"sparse": true}, 0},
	} {
		inst, err := e.New(context.Background(), tk.info.ID, "x", tt.create)
		if err != nil {
			t.Fatal(err)
		}
		in := inst.(*Instance)
		step(t, in, tk.solution[0].Message().Content, nil)
		if res := step(t, in, tool("task.finish"), tt.step); res.Reward != tt.want {
			t.Errorf("create %v, step %v: reward %v, want %v", tt.create, tt.step, res.Reward, tt.want)
		}
	}
}

func TestInfo(t *testing.T) {
	e := newEnv(t, Config{TrainSize: 3, ValSize: 1, TestSize: 1})
	ctx := context.Background()
	inst, err := e.New(ctx, "tw-train-0000", "x", nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := inst.Info(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := doc.(string); !ok || !strings.Contains(s, "- bank.pay to=NAME amount=N: pay a contact") {
		t.Fatalf("Info text = %v", doc)
	}
	tools, err := inst.Info(ctx, map[string]any{"format": "openai"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	var decoded []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string `json:"name"`
			Parameters struct {
				Properties map[string]struct{ Type string } `json:"properties"`
				Required   []string                         `json:"required"`
			} `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	if len(decoded) != 13 {
		t.Fatalf("%d tools, want 13", len(decoded))
	}
	// Every advertised function name is accepted as a structured call.
	for _, d := range decoded {
		c, err := ParseAction(agentevolver.Message{ToolCalls: []agentevolver.ToolCall{toolCall(d.Function.Name, "{}")}})
		if err != nil || c.App+"_"+c.API != d.Function.Name || d.Type != "function" {
			t.Errorf("tool %q: %+v, %v", d.Function.Name, c, err)
		}
	}
	res, err := inst.Step(ctx, agentevolver.Message{Role: "assistant", ToolCalls: []agentevolver.ToolCall{toolCall("bank_balance", "{}")}}, nil)
	if err != nil || !strings.HasPrefix(res.State[0].Content, "balance ") {
		t.Fatalf("structured call: %+v, %v", res, err)
	}
}

func FuzzStep(f *testing.F) {
	e, err := New(Config{TrainSize: 9, ValSize: 1, TestSize: 1})
	if err != nil {
		f.Fatal(err)
	}
	ids := e.splits[SplitTrain]
	f.Add(uint8(0), "```tool\ncontacts.find name=Ann\n```", "", "")
	f.Add(uint8(1), "```tool\nbank.pay to=Ann amount=5\n```", "", "")
	f.Add(uint8(2), "```tool\ntask.finish answer=x\n```", "", "")
	f.Add(uint8(3), "", "files_write", `{"name": "a.txt", "text": "hi"}`)
	f.Add(uint8(4), "```tool\ncalendar.cancel id=1\n```", "", "")
	f.Add(uint8(5), `{"name": "calendar.add", "arguments": {"title": "x", "day": "Mon", "with": "Bo"}}`, "", "")
	f.Fuzz(func(t *testing.T, task uint8, content, toolName, toolArgs string) {
		ctx := context.Background()
		inst, err := e.New(ctx, ids[int(task)%len(ids)], "fuzz", nil)
		if err != nil {
			t.Fatal(err)
		}
		msg := assistant(content)
		if toolName != "" || toolArgs != "" {
			msg.ToolCalls = []agentevolver.ToolCall{toolCall(toolName, toolArgs)}
		}
		for range 2 {
			res, err := inst.Step(ctx, msg, nil)
			if err != nil {
				t.Fatalf("Step: %v", err)
			}
			if len(res.State) != 1 || res.State[0].Role != agentevolver.RoleUser || res.State[0].Content == "" {
				t.Fatalf("bad step result: %+v", res)
			}
			if res.Reward < 0 || res.Reward > 1 {
				t.Fatalf("reward %v", res.Reward)
			}
		}
		for _, sparse := range []bool{true, false} {
			if s, err := inst.Evaluate(ctx, map[string]any{"sparse": sparse}); err != nil || s < 0 || s > 1 {
				t.Fatalf("Evaluate: %v, %v", s, err)
			}
		}
	})
}
