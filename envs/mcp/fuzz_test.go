package mcp_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/mcp"
)

// FuzzParseTasks feeds arbitrary files to the parser: it never panics, and
// every task it accepts has an id, a query and at least one check.
func FuzzParseTasks(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"task_id": "a", "query": "q", "checker": {"type": "answer", "regexp": "a{1000}"}}`))
	f.Add([]byte("{\"task_id\": \"a\"\n\x00\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tasks, err := mcp.ParseTasks(bytes.NewReader(data))
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, task := range tasks {
			if task.TaskID == "" || task.Query == "" || len(task.Checker) == 0 || seen[task.TaskID] || task.Split == "" {
				t.Fatalf("accepted a bad task %+v", task)
			}
			seen[task.TaskID] = true
		}
	})
}

// FuzzParseAction: any action parses or fails without panicking.
func FuzzParseAction(f *testing.F) {
	f.Add("```json\n{\"name\": \"echo\", \"arguments\": {\"message\": \"x\"}}\n```", "", "")
	f.Add("", "echo", `{"message": 1}`)
	f.Add(`{"name": "a", "arguments": "{\"b\": [}"}`, "", "")
	f.Fuzz(func(t *testing.T, content, name, args string) {
		m := agentevolver.Message{Role: agentevolver.RoleAssistant, Content: content}
		if name != "" {
			m.ToolCalls = []agentevolver.ToolCall{{Function: agentevolver.FunctionCall{Name: name, Arguments: args}}}
		}
		calls, err := mcp.ParseAction(m)
		if err == nil && len(calls) == 0 {
			t.Fatal("no calls and no error")
		}
	})
}
