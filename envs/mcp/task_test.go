package mcp_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/mcp"
)

func TestParseShippedTaskFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	if len(files) < 4 {
		t.Fatalf("task files %v", files)
	}
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		tasks, err := mcp.ParseTasks(r)
		r.Close()
		if err != nil || len(tasks) < 2 {
			t.Errorf("%s: %d tasks, %v", f, len(tasks), err)
		}
		for _, task := range tasks {
			if task.Split == "" || task.Solution == nil {
				t.Errorf("%s: %s has split %q, solution %v", f, task.TaskID, task.Split, task.Solution)
			}
		}
	}
}

func TestParseTasks(t *testing.T) {
	const ok = `{"task_id": "a", "query": "q", "checker": {"type": "answer", "exact": "x"}}`
	cases := []struct {
		name, file string
		tasks      int
		err        string // "" for success
	}{
		{"one", ok, 1, ""},
		{"comments and blanks", "# c\n\n" + ok + "\n\n", 1, ""},
		{"no final newline", ok + "\n" + strings.Replace(ok, `"a"`, `"b"`, 1), 2, ""},
		{"check list", `{"task_id": "a", "query": "q", "checker": [{"type": "verify", "call": {"name": "t"}, "regexp": "^x"}, {"type": "tool_result", "contains": "y"}]}`, 1, ""},
		{"empty", "", 0, ""},
		{"not JSON", "{", 0, "line 1"},
		{"unknown field", `{"task_id": "a", "query": "q", "checker": {"type": "answer", "exact": "x"}, "extra": 1}`, 0, "unknown field"},
		{"misspelt pattern", `{"task_id": "a", "query": "q", "checker": {"type": "answer", "contain": "x"}}`, 0, "unknown field"},
		{"no id", `{"query": "q", "checker": {"type": "answer", "exact": "x"}}`, 0, "task_id is required"},
		{"no query", `{"task_id": "a", "checker": {"type": "answer", "exact": "x"}}`, 0, "query is required"},
		{"no checks", `{"task_id": "a", "query": "q", "checker": []}`, 0, "at least one check"},
		{"two patterns", `{"task_id": "a", "query": "q", "checker": {"type": "answer", "exact": "x", "contains": "y"}}`, 0, "exactly one of"},
		{"no pattern", `{"task_id": "a", "query": "q", "checker": {"type": "answer"}}`, 0, "exactly one of"},
		{"bad regexp", `{"task_id": "a", "query": "q", "checker": {"type": "answer", "regexp": "("}}`, 0, "regexp"},
		{"bad type", `{"task_id": "a", "query": "q", "checker": {"type": "vibes", "exact": "x"}}`, 0, "type \"vibes\""},
		{"verify without call", `{"task_id": "a", "query": "q", "checker": {"type": "verify", "exact": "x"}}`, 0, "needs a call"},
		{"answer with tool", `{"task_id": "a", "query": "q", "checker": {"type": "answer", "tool": "t", "exact": "x"}}`, 0, "no tool"},
		{"repeated id", ok + "\n" + ok, 0, "line 2: task id \"a\" repeated"},
		{"final answer in solution", `{"task_id": "a", "query": "q", "checker": {"type": "answer", "exact": "x"}, "solution": {"calls": [{"name": "final_answer"}]}}`, 0, "not a final_answer call"},
		{"nameless call", `{"task_id": "a", "query": "q", "setup": [{"arguments": {}}], "checker": {"type": "answer", "exact": "x"}}`, 0, "name is required"},
		{"long line", `{"task_id": "a", "query": "` + strings.Repeat("q", mcp.MaxTaskLineBytes) + `"}`, 0, "longer than"},
	}
	for _, c := range cases {
		tasks, err := mcp.ParseTasks(strings.NewReader(c.file))
		switch {
		case c.err == "" && (err != nil || len(tasks) != c.tasks):
			t.Errorf("%s: %d tasks, %v; want %d", c.name, len(tasks), err, c.tasks)
		case c.err != "" && (err == nil || !errors.Is(err, mcp.ErrBadTaskFile) || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, want ErrBadTaskFile with %q", c.name, err, c.err)
		}
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"  Hello\n  World. ": "hello world",
		`"42"`:               "42",
		"Done!":              "done",
		"":                   "",
	} {
		if got := mcp.Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseAction(t *testing.T) {
	msg := func(s string) agentevolver.Message {
		return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: s}
	}
	cases := []struct {
		name   string
		action agentevolver.Message
		tool   string
		args   string // a key that must be present, "" for none
		err    string
	}{
		{"fenced", msg("I will write it.\n```json\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"a\"}}\n```"), "write_file", "path", ""},
		{"bare", msg(`{"name": "read_graph", "arguments": {}}`), "read_graph", "", ""},
		{"tool_call tags", msg(`<tool_call>{"name": "echo", "parameters": {"message": "x"}}</tool_call>`), "echo", "message", ""},
		{"string arguments", msg(`{"name": "echo", "arguments": "{\"message\": \"x\"}"}`), "echo", "message", ""},
		{"no arguments", msg(`{"name": "read_graph"}`), "read_graph", "", ""},
		{"other JSON first", msg(`{"note": 1} then {"name": "echo", "arguments": {"message": "x"}}`), "echo", "message", ""},
		{"structured", agentevolver.Message{ToolCalls: []agentevolver.ToolCall{{ID: "1", Function: agentevolver.FunctionCall{Name: "echo", Arguments: `{"message":"x"}`}}}}, "echo", "message", ""},
		{"nothing", msg("hello"), "", "", "no tool call found"},
		{"broken", msg(`{"name": "echo", "arguments": {`), "", "", "not valid JSON"},
		{"array arguments", msg(`{"name": "echo", "arguments": [1]}`), "", "", "must be a JSON object"},
		{"two", msg(`{"name": "a"} {"name": "b"}`), "", "", "2 tool calls"},
	}
	for _, c := range cases {
		calls, err := mcp.ParseAction(c.action)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || len(calls) != 1 || calls[0].Name != c.tool || calls[0].Err != nil {
			t.Errorf("%s: %+v, %v", c.name, calls, err)
			continue
		}
		if _, ok := calls[0].Arguments[c.args]; c.args != "" && !ok {
			t.Errorf("%s: arguments %v lack %q", c.name, calls[0].Arguments, c.args)
		}
	}
}
