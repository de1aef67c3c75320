package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/mcp"
)

// npmServer returns the path of an npm MCP server binary
// (<repo root>/node_modules/.bin/mcp-server-NAME), skipping the test with a
// clear message when node or the binary is missing.
func npmServer(t testing.TB, name string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed; install Node.js and run `npm ci` in the repository root to run the MCP server tests")
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "mcp-server-"+name)
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("%s is missing; run `npm ci` in the repository root to install the MCP servers", bin)
	}
	return bin
}

// serverConfig returns the Server of an npm MCP server with its state kept
// in the instance directory.
func serverConfig(t testing.TB, name string) mcp.Server {
	bin := npmServer(t, name)
	switch name {
	case "memory":
		return mcp.Server{Command: bin, Env: []string{"MEMORY_FILE_PATH=" + mcp.InstanceDirPlaceholder + "/memory.jsonl"}}
	case "filesystem":
		return mcp.Server{Command: bin, Args: []string{mcp.InstanceDirPlaceholder}, Dir: mcp.InstanceDirPlaceholder}
	default:
		return mcp.Server{Command: bin}
	}
}

// newNPMEnv builds an Env on an npm server and its task file, closed when
// the test ends.
func newNPMEnv(t testing.TB, name string, mod func(*mcp.Config)) *mcp.Env {
	t.Helper()
	cfg := mcp.Config{Server: serverConfig(t, name), TaskFile: filepath.Join("testdata", name+".jsonl")}
	if mod != nil {
		mod(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	env, err := mcp.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Close() })
	return env
}

// children returns the ids of this process's child processes.
func children(t testing.TB) []int {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("counting child processes needs /proc (Linux)")
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	me := os.Getpid()
	var kids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[0] != "Z" {
			if ppid, _ := strconv.Atoi(fields[1]); ppid == me {
				kids = append(kids, pid)
			}
		}
	}
	return kids
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}

// waitNoChildren waits until the children are those of before.
func waitChildren(t testing.TB, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := len(children(t))
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d child processes, want %d: a server outlived its instance", got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// call is an assistant message with one fenced JSON call.
func call(name string, args map[string]any) agentevolver.Message {
	return mcp.CallMessage(name, args)
}

// kvServer is a tiny in-process MCP server speaking newline-delimited
// JSON-RPC: tools set(key, value) and get(key) over a per-session map, and
// boom, which closes the session as a crashing server would. With stray
// set it writes lines that are not JSON-RPC before every answer, as some
// servers do; with weird it also offers weird, whose result has a content
// type no MCP client knows.
type kvServer struct {
	stray, weird bool

	mu       sync.Mutex
	sessions int
}

// Dial starts a session of the server and returns the client's end.
func (s *kvServer) Dial(context.Context) (io.ReadWriteCloser, error) {
	client, server := net.Pipe()
	s.mu.Lock()
	s.sessions++
	s.mu.Unlock()
	go s.serve(server)
	return client, nil
}

// Sessions returns how many sessions are open.
func (s *kvServer) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions
}

var kvTools = json.RawMessage(`[
 {"name": "set", "description": "Store a value under a key.", "inputSchema": {"type": "object", "properties": {"key": {"type": "string"}, "value": {"type": "string"}}, "required": ["key", "value"], "additionalProperties": false}},
 {"name": "get", "description": "Read the value of a key.", "inputSchema": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}},
 {"name": "boom", "description": "Crash the server.", "inputSchema": {"type": "object"}}
]`)

func (s *kvServer) serve(conn net.Conn) {
	defer func() {
		conn.Close()
		s.mu.Lock()
		s.sessions--
		s.mu.Unlock()
	}()
	store := map[string]string{}
	r := bufio.NewReader(conn)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string            `json:"name"`
				Arguments map[string]string `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &req) != nil || len(req.ID) == 0 {
			continue // notifications
		}
		var result any
		text := func(s string, isErr bool) any {
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}, "isError": isErr}
		}
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "kv", "version": "1"}}
		case "tools/list":
			tools := kvTools
			if s.weird {
				tools = json.RawMessage(strings.Replace(string(kvTools), "[", `[{"name": "weird", "inputSchema": {"type": "object"}},`, 1))
			}
			result = map[string]any{"tools": tools}
		case "tools/call":
			a := req.Params.Arguments
			switch req.Params.Name {
			case "set":
				store[a["key"]] = a["value"]
				result = text("ok", false)
			case "get":
				v, ok := store[a["key"]]
				if !ok {
					result = text("no such key: "+a["key"], true)
				} else {
					result = text(v, false)
				}
			case "boom":
				return
			case "weird":
				result = map[string]any{"content": []any{map[string]any{"type": "hologram"}}}
			default:
				result = text("unknown tool", true)
			}
		default:
			result = map[string]any{}
		}
		out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
		if s.stray {
			out = append([]byte("kv server: answering\n{\"log\": \"not JSON-RPC\"}\n\n"), out...)
		}
		if _, err := conn.Write(append(out, '\n')); err != nil {
			return
		}
	}
}

func sleep() { time.Sleep(10 * time.Millisecond) }

// playExpert plays the expert's demonstration of taskID on a fresh
// instance and returns the final reward and both evaluations.
func playExpert(t *testing.T, env *mcp.Env, taskID string) (reward, sparse, dense float64) {
	t.Helper()
	ctx := t.Context()
	inst, err := env.New(ctx, taskID, "test-"+taskID, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	init, err := inst.InitState(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(init.State) != 2 || init.State[0].Role != agentevolver.RoleSystem || init.State[1].Role != agentevolver.RoleUser {
		t.Fatalf("init state %+v", init.State)
	}
	actions, err := env.Demonstrate(ctx, taskID)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range actions {
		res, err := inst.Step(ctx, a, nil)
		if err != nil {
			t.Fatalf("%s step %d: %v", taskID, i, err)
		}
		if last := i == len(actions)-1; res.IsTerminated != last {
			t.Fatalf("%s step %d: terminated %v, observation %q", taskID, i, res.IsTerminated, res.State)
		}
		if strings.HasPrefix(res.State[0].Content, "error:") {
			t.Fatalf("%s step %d: %s", taskID, i, res.State[0].Content)
		}
		reward = res.Reward
	}
	if sparse, err = inst.Evaluate(ctx, map[string]any{"sparse": true}); err != nil {
		t.Fatal(err)
	}
	if dense, err = inst.Evaluate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return reward, sparse, dense
}
