package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/mcp"
)

// bigServer is a canned stdio MCP server whose one tool, "big", answers
// with a text of resultBytes bytes and whose description is descBytes
// long. Its answers are encoded once, up front, so that its own
// allocations do not count in what a test measures.
type bigServer struct {
	listLine []byte
	content  []byte // the result of tools/call
}

func newBigServer(resultBytes, descBytes int) *bigServer {
	desc := strings.Repeat("d", descBytes)
	list, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{
		"name": "big", "description": desc, "inputSchema": map[string]any{"type": "object"}}}})
	// "needle" at the start, "tail-marker" at the end.
	text := "needle " + strings.Repeat("x", max(0, resultBytes-len("needle tail-marker"))) + "tail-marker"
	content, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
	return &bigServer{listLine: list, content: content}
}

// Dial starts a session and returns the client's end.
func (s *bigServer) Dial(context.Context) (io.ReadWriteCloser, error) {
	client, server := net.Pipe()
	go s.serve(server)
	return client, nil
}

func (s *bigServer) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReaderSize(c, 1<<16)
	var wmu sync.Mutex
	reply := func(id json.RawMessage, result string) {
		wmu.Lock()
		defer wmu.Unlock()
		_, _ = io.WriteString(c, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":`+result+"}\n")
	}
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &msg) != nil || msg.ID == nil {
			continue // a notification
		}
		switch msg.Method {
		case "initialize":
			reply(msg.ID, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"big","version":"1"}}`)
		case "tools/list":
			reply(msg.ID, string(s.listLine))
		case "tools/call":
			wmu.Lock()
			_, _ = io.WriteString(c, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":`)
			_, _ = c.Write(s.content)
			_, _ = io.WriteString(c, "}\n")
			wmu.Unlock()
		default:
			reply(msg.ID, `{}`)
		}
	}
}

func newBigEnv(t testing.TB, resultBytes, descBytes int) *mcp.Env {
	t.Helper()
	tasks, err := mcp.ParseTasks(strings.NewReader(
		`{"task_id":"t","query":"call big","checker":[{"type":"tool_result","tool":"big","contains":"needle"}]}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	env, err := mcp.New(context.Background(), mcp.Config{Server: mcp.Server{Dial: newBigServer(resultBytes, descBytes).Dial},
		Tasks: tasks})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Close() })
	return env
}

var bigCall = agentevolver.Message{Role: agentevolver.RoleAssistant, Content: `{"name": "big", "arguments": {}}`}

// bigResultBytes is the size of the result the measurements use: 15 MB,
// as in the report of the fault, under the 16 MiB frame bound.
const bigResultBytes = 15 << 20

// stepAlloc returns the bytes allocated by one step that calls big.
func stepAlloc(t testing.TB, env *mcp.Env) (uint64, string) {
	t.Helper()
	ctx := context.Background()
	inst, err := env.New(ctx, "t", "i", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := inst.Step(ctx, bigCall, nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	score, err := inst.Evaluate(ctx, nil)
	if err != nil || score != 1 {
		t.Fatalf("the check on the result's start: %v, %v", score, err)
	}
	return after.TotalAlloc - before.TotalAlloc, res.State[0].Content
}

// TestLargeResultAllocation: what a tool result costs in memory no
// longer grows with its size beyond what is kept (the first megabyte, for
// the checks): a 15 MB result costs about what a 1.5 MB one does, where
// it cost 23 times its size (360 MB) before results were cut as they are
// read. The agent still sees the first MaxObservationBytes and the checks
// the start of the text.
func TestLargeResultAllocation(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a 15 MB result")
	}
	small, _ := stepAlloc(t, newBigEnv(t, bigResultBytes/10, 10))
	alloc, obs := stepAlloc(t, newBigEnv(t, bigResultBytes, 10))
	t.Logf("one step with a %d-byte result allocated %d bytes (%.2fx its size); with a %d-byte result %d bytes",
		bigResultBytes, alloc, float64(alloc)/bigResultBytes, bigResultBytes/10, small)
	if alloc > 2*small || alloc > 4*bigResultBytes {
		t.Errorf("one step with a %d-byte result allocated %d bytes, with a %d-byte one %d: not bounded",
			bigResultBytes, alloc, bigResultBytes/10, small)
	}
	if !strings.HasPrefix(obs, "needle xxx") || !strings.Contains(obs, "[truncated: ") ||
		len(obs) > mcp.DefaultMaxObservationBytes+100 {
		t.Errorf("observation %d bytes: %.80q…%q", len(obs), obs, obs[max(0, len(obs)-80):])
	}
}

// BenchmarkLargeResult measures the allocation of a step whose tool
// answers with 15 MB of text.
func BenchmarkLargeResult(b *testing.B) {
	env := newBigEnv(b, bigResultBytes, 10)
	ctx := context.Background()
	inst, err := env.New(ctx, "t", "i", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer inst.Close()
	b.ReportAllocs()
	b.SetBytes(bigResultBytes)
	for b.Loop() {
		// MaxCalls ends the episode after 32 calls: a fresh instance
		// then, outside the timer.
		res, err := inst.Step(ctx, bigCall, nil)
		if err != nil {
			b.Fatal(err)
		}
		if res.IsTerminated {
			b.StopTimer()
			_ = inst.Close()
			if inst, err = env.New(ctx, "t", "i", nil); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}
}

// TestLongDescriptionCapped: a tool description of 10 MB does not go
// verbatim into every episode's system prompt.
func TestLongDescriptionCapped(t *testing.T) {
	env := newBigEnv(t, 10, 10<<20)
	ctx := context.Background()
	inst, err := env.New(ctx, "t", "i", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	init, err := inst.InitState(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	system := init.State[0].Content
	if len(system) > mcp.MaxDescriptionBytes+2048 {
		t.Errorf("system prompt is %d bytes, want at most the description cap %d and the rest", len(system), mcp.MaxDescriptionBytes)
	}
	if !strings.Contains(system, "- big: ddd") {
		t.Errorf("the description's start is missing: %.200q", system)
	}
	for _, tool := range env.Tools() {
		if len(tool.Description) > mcp.MaxDescriptionBytes+64 {
			t.Errorf("Tools() keeps a description of %d bytes", len(tool.Description))
		}
	}
}

// TestLargeSchemaBounded: a tool whose input schema is a megabyte is kept
// reduced to MaxSchemaBytes, still checking its arguments' types.
func TestLargeSchemaBounded(t *testing.T) {
	s := newBigServer(10, 10)
	list, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{
		"name": "big", "description": "d", "inputSchema": map[string]any{"type": "object",
			"properties": map[string]any{"q": map[string]any{"type": "string", "description": strings.Repeat("long ", 200_000)}}}}}})
	s.listLine = list
	tasks, err := mcp.ParseTasks(strings.NewReader(
		`{"task_id":"t","query":"call big","checker":[{"type":"tool_result","tool":"big","contains":"needle"}]}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	env, err := mcp.New(context.Background(), mcp.Config{Server: mcp.Server{Dial: s.Dial}, Tasks: tasks})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	tools := env.Tools()
	if len(tools) != 1 || len(tools[0].InputSchema) > mcp.MaxSchemaBytes || !strings.Contains(string(tools[0].InputSchema), `"q":{"type":"string"}`) {
		t.Fatalf("tools %+v", tools)
	}
}
