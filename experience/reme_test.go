package experience

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// reMeServer records request bodies and answers each with handler.
type reMeServer struct {
	mu     sync.Mutex
	paths  []string
	bodies [][]byte
	ctypes []string
}

func (s *reMeServer) start(t *testing.T, handler http.HandlerFunc) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.paths = append(s.paths, r.Method+" "+r.URL.Path)
		s.bodies = append(s.bodies, body)
		s.ctypes = append(s.ctypes, r.Header.Get("Content-Type"))
		s.mu.Unlock()
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func answer(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}
}

// goldenInit and goldenTrajectories are the messages of
// testdata/reme/{retrieve,summary}_request.json. Those files were written
// by Python 3 as the reference's client would send them:
//
//	q = json.dumps(messages, ensure_ascii=False)
//	json.dumps({"query": q, "top_k": 3, "workspace_id": "ws-1"}, ensure_ascii=False, separators=(",", ":"))
//	json.dumps({"trajectories": [{"messages": steps, "score": 1}, {"messages": steps2, "score": 0.5}],
//	            "workspace_id": "ws-1"}, ensure_ascii=False, separators=(",", ":"))
//
// (the outer separators compact, the query's as json.dumps's default), so
// the comparison is byte for byte with what Python produces: non-ASCII
// kept, U+2028 raw, <>& unescaped, control characters as \u00XX.
var goldenInit = []agentevolver.Message{
	{Role: agentevolver.RoleSystem, Content: "You are an agent in <toolworld> & friends.\nUse the tools."},
	{Role: agentevolver.RoleUser, Content: "重置路由器 \"now\" — tab\there, ctrl\x01, line sep\u2028end, back\\slash, café"},
}

func goldenTrajectories() []agentevolver.Trajectory {
	steps := append(append([]agentevolver.Message(nil), goldenInit...),
		agentevolver.Message{Role: agentevolver.RoleAssistant, ToolCalls: []agentevolver.ToolCall{{ID: "call_1", Type: "function",
			Function: agentevolver.FunctionCall{Name: "reset", Arguments: `{"device":"router"}`}}}},
		agentevolver.Message{Role: agentevolver.RoleTool, Content: "ok ✓", ToolCallID: "call_1"})
	return []agentevolver.Trajectory{
		{TaskID: "t1", Steps: steps, Reward: agentevolver.NewReward(1, "", 0)},
		{TaskID: "t2", Steps: msgs(agentevolver.RoleUser, "second task", agentevolver.RoleAssistant, "done"), Reward: agentevolver.NewReward(0.5, "", 0)},
	}
}

func readGolden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/reme/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReMeRequestBodiesMatchReference(t *testing.T) {
	var rec reMeServer
	srv := rec.start(t, answer(`{"answer":"Restart it first.","success":true,"metadata":{"memory_list":[]}}`))
	client, err := NewReMe(ReMeConfig{BaseURL: srv.URL + "/", WorkspaceID: "ws-1"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := client.Retrieve(ctx, goldenInit, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Text != "Restart it first." || got[0].Source != ReMeSource {
		t.Fatalf("Retrieve = %+v", got)
	}
	if err := client.Update(ctx, goldenTrajectories()); err != nil {
		t.Fatal(err)
	}
	if want := []string{"POST /retrieve_task_memory", "POST /summary_task_memory"}; strings.Join(rec.paths, ",") != strings.Join(want, ",") {
		t.Fatalf("requests %q, want %q", rec.paths, want)
	}
	for i, name := range []string{"retrieve_request.json", "summary_request.json"} {
		if want := readGolden(t, name); !bytes.Equal(rec.bodies[i], want) {
			t.Errorf("%s:\n got %s\nwant %s", name, rec.bodies[i], want)
		}
		if rec.ctypes[i] != "application/json" {
			t.Errorf("Content-Type %q", rec.ctypes[i])
		}
	}
	// The query is the JSON text of the messages and decodes back to them.
	var body struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(rec.bodies[0], &body); err != nil {
		t.Fatal(err)
	}
	var back []agentevolver.Message
	if err := json.Unmarshal([]byte(body.Query), &back); err != nil || len(back) != 2 || back[1].Content != goldenInit[1].Content || back[0].Content != goldenInit[0].Content {
		t.Errorf("query %q decodes to %+v, %v", body.Query, back, err)
	}
}

func TestReMeAnswers(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
		err  error
	}{
		{"answer", `{"answer":"Use the cable.","success":true}`, []string{"Use the cable."}, nil},
		{"no success field", `{"answer":"Use the cable."}`, []string{"Use the cable."}, nil},
		{"empty answer", `{"answer":"","success":true,"metadata":{"memory_list":[]}}`, nil, nil},
		{"blank answer", `{"answer":" \n\t"}`, nil, nil},
		{"null answer", `{"answer":null}`, nil, nil},
		{"failed flow", `{"answer":"workspace not found","success":false}`, nil, ErrReMeFailed},
		{"no answer", `{"success":true}`, nil, ErrReMeMalformed},
		{"answer not a string", `{"answer":["a","b"]}`, nil, ErrReMeMalformed},
		{"not an object", `["answer"]`, nil, ErrReMeMalformed},
		{"not json", `Internal Server Error`, nil, ErrReMeMalformed},
		{"truncated", `{"answer":"Use the`, nil, ErrReMeMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec reMeServer
			srv := rec.start(t, answer(tt.body))
			client, err := NewReMe(ReMeConfig{BaseURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			got, err := client.Retrieve(context.Background(), goldenInit, 3)
			if tt.err != nil {
				var re *ReMeError
				if !errors.Is(err, tt.err) || !errors.As(err, &re) || re.Endpoint != ReMeRetrievePath || errors.Is(err, llm.ErrUnavailable) {
					t.Fatalf("err = %v, want a *ReMeError matching %v and not an outage", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(texts(got), "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", texts(got), tt.want)
			}
		})
	}
}

func TestReMeFailures(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	slow := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
	status := func(code int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(code)
			_, _ = io.WriteString(w, body)
		}
	}
	tests := []struct {
		name        string
		handler     http.HandlerFunc
		unavailable bool
		is          error
		status      int
	}{
		{"500", status(500, `{"detail":"flow crashed"}`), true, nil, 500},
		{"502", status(502, `<html>bad gateway</html>`), true, nil, 502},
		{"429", status(429, ``), true, nil, 429},
		{"422", status(422, `{"detail":[{"loc":["body","query"],"msg":"field required"}]}`), false, nil, 422},
		{"404", status(404, `{"detail":"Not Found"}`), false, nil, 404},
		{"slow", slow, true, ErrReMeTimeout, 0},
		{"too large", answer(`{"answer":"` + strings.Repeat("x", 3000) + `"}`), false, ErrReMeTooLarge, 200},
		{"dropped", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100")
			_, _ = io.WriteString(w, `{"answer":`)
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		}, true, nil, 200},
	}
	for _, tt := range tests {
		for _, endpoint := range []string{ReMeRetrievePath, ReMeSummaryPath} {
			t.Run(tt.name+"/"+endpoint, func(t *testing.T) {
				var rec reMeServer
				srv := rec.start(t, tt.handler)
				defer srv.CloseClientConnections()
				client, err := NewReMe(ReMeConfig{BaseURL: srv.URL, Timeout: 150 * time.Millisecond, MaxResponseBytes: 2048})
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				if endpoint == ReMeRetrievePath {
					_, err = client.Retrieve(context.Background(), goldenInit, 3)
				} else {
					err = client.Update(context.Background(), goldenTrajectories())
				}
				var re *ReMeError
				if !errors.As(err, &re) || re.Endpoint != endpoint {
					t.Fatalf("err = %v, want a *ReMeError of %s", err, endpoint)
				}
				if errors.Is(err, llm.ErrUnavailable) != tt.unavailable || re.Unavailable() != tt.unavailable {
					t.Errorf("err = %v: outage %v, want %v", err, errors.Is(err, llm.ErrUnavailable), tt.unavailable)
				}
				if tt.is != nil && !errors.Is(err, tt.is) {
					t.Errorf("err = %v, want %v", err, tt.is)
				}
				if re.StatusCode != tt.status {
					t.Errorf("status %d, want %d", re.StatusCode, tt.status)
				}
				if d := time.Since(start); d > 3*time.Second {
					t.Errorf("took %s with a 150ms timeout", d)
				}
				t.Log(err)
			})
		}
	}

	t.Run("refused", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		client, _ := NewReMe(ReMeConfig{BaseURL: url})
		_, err := client.Retrieve(context.Background(), goldenInit, 3)
		if !errors.Is(err, llm.ErrUnavailable) {
			t.Errorf("err = %v, want llm.ErrUnavailable", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		var rec reMeServer
		srv := rec.start(t, slow)
		defer srv.CloseClientConnections()
		client, _ := NewReMe(ReMeConfig{BaseURL: srv.URL})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err := client.Retrieve(ctx, goldenInit, 3)
		var re *ReMeError
		if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &re) {
			t.Errorf("err = %v, want the caller's deadline, not a *ReMeError", err)
		}
	})
}

func TestReMeConfigAndEdgeCases(t *testing.T) {
	client, err := NewReMe(ReMeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if client.base != DefaultReMeBaseURL || client.WorkspaceID() != "default" || client.cfg.Timeout != 1200*time.Second {
		t.Errorf("defaults: %q %q %s", client.base, client.WorkspaceID(), client.cfg.Timeout)
	}
	for _, u := range []string{"127.0.0.1:8001", "ftp://host", "http://", "::"} {
		if _, err := NewReMe(ReMeConfig{BaseURL: u}); err == nil {
			t.Errorf("base URL %q accepted", u)
		}
	}

	var rec reMeServer
	srv := rec.start(t, answer(`{"answer":"x"}`))
	client, _ = NewReMe(ReMeConfig{BaseURL: srv.URL + "/reme/"})
	ctx := context.Background()
	if got, err := client.Retrieve(ctx, goldenInit, 0); got != nil || err != nil {
		t.Errorf("k=0: %v, %v", got, err)
	}
	if err := client.Update(ctx, nil); err != nil {
		t.Errorf("no trajectories: %v", err)
	}
	nan := goldenTrajectories()
	nan[1].Reward.Outcome = math.NaN()
	if err := client.Update(ctx, nan); err == nil {
		t.Error("NaN score accepted")
	}
	if len(rec.paths) != 0 {
		t.Errorf("requests sent: %q", rec.paths)
	}
	if _, err := client.Retrieve(ctx, nil, 1); err != nil {
		t.Fatal(err)
	}
	if rec.paths[0] != "POST /reme/retrieve_task_memory" || string(rec.bodies[0]) != `{"query":"[]","top_k":1,"workspace_id":"default"}` {
		t.Errorf("no messages: %s %s", rec.paths[0], rec.bodies[0])
	}
}

func TestReMeQueryLayout(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{[]agentevolver.Message{{Role: "user", Content: "a, b: c"}}, `[{"role": "user", "content": "a, b: c"}]`},
		{map[string]any{"k": []int{1, 2}}, `{"k": [1, 2]}`},
		{"\u2028\u2029\\u2028", `"` + "\u2028\u2029" + `\\u2028"`},
		{"<&>\"", `"<&>\""`},
	}
	for _, tt := range tests {
		got, err := marshalJSON(tt.in, true)
		if err != nil || string(got) != tt.want {
			t.Errorf("marshalJSON(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}
