package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/org/agentevolver/envs/mcp"
)

// bigHTTPServer is a canned streamable-HTTP MCP server with bigServer's
// tool, answering tools/call as one application/json body or, with sse,
// as an event stream.
func bigHTTPServer(t testing.TB, resultBytes int, sse bool) *httptest.Server {
	s := newBigServer(resultBytes, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusOK) // the DELETE that ends a session
			return
		}
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &msg) != nil || msg.ID == nil {
			w.WriteHeader(http.StatusAccepted) // a notification
			return
		}
		var result []byte
		switch msg.Method {
		case "initialize":
			result = []byte(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"big","version":"1"}}`)
			w.Header().Set("Mcp-Session-Id", "s1")
		case "tools/list":
			result = s.listLine
		case "tools/call":
			result = s.content
		default:
			result = []byte(`{}`)
		}
		head, tail := `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":`, "}"
		if sse && msg.Method == "tools/call" {
			w.Header().Set("Content-Type", "text/event-stream")
			head, tail = "event: message\ndata: "+head, tail+"\n\n"
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		_, _ = io.WriteString(w, head)
		_, _ = w.Write(result)
		_, _ = io.WriteString(w, tail)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newBigHTTPEnv(t testing.TB, resultBytes int, sse bool) *mcp.Env {
	t.Helper()
	tasks, err := mcp.ParseTasks(strings.NewReader(
		`{"task_id":"t","query":"call big","checker":[{"type":"tool_result","tool":"big","contains":"needle"}]}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	env, err := mcp.New(context.Background(), mcp.Config{Server: mcp.Server{URL: bigHTTPServer(t, resultBytes, sse).URL},
		Tasks: tasks})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Close() })
	return env
}

// TestLargeHTTPResultAllocation: over streamable HTTP, as over stdio
// (TestLargeResultAllocation), a tool result is cut as it arrives, in an
// application/json body and in an event stream alike: a 15 MB result
// costs about what a 1.5 MB one does. Before, the SDK read the whole body
// (a JSON body with io.ReadAll, without a bound) and decoded copies of it.
func TestLargeHTTPResultAllocation(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a 15 MB result")
	}
	for _, sse := range []bool{false, true} {
		name := "json"
		if sse {
			name = "sse"
		}
		t.Run(name, func(t *testing.T) {
			small, _ := stepAlloc(t, newBigHTTPEnv(t, bigResultBytes/10, sse))
			alloc, obs := stepAlloc(t, newBigHTTPEnv(t, bigResultBytes, sse))
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
		})
	}
}
