package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/arena/avalon"
	"github.com/org/agentevolver/llm"
)

func TestArenaCommandBuiltins(t *testing.T) {
	db := filepath.Join(t.TempDir(), "a.db")
	args := []string{"arena", "run", "--db", db, "--matches", "6", "--workers", "2",
		"--model", "r1=random:1", "--model", "sab=saboteur:2", "--model", "cau=cautious"}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "6 matches played, 0 already recorded") || !strings.Contains(out.String(), "Merlin") {
		t.Fatalf("output:\n%s", out.String())
	}
	first := out.String()[strings.Index(out.String(), "\n")+1:]
	// A second run resumes: nothing is played again.
	out.Reset()
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 {
		t.Fatalf("rerun exit %d\n%s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "0 matches played, 6 already recorded") || !strings.HasSuffix(out.String(), first) {
		t.Fatalf("rerun output:\n%s\nfirst:\n%s", out.String(), first)
	}
	out.Reset()
	if code := run(context.Background(), []string{"arena", "show", "--db", db}, nil, &out, &errOut); code != 0 || out.String() != first {
		t.Fatalf("show exit %d:\n%s\nwant\n%s", code, out.String(), first)
	}
	for _, bad := range [][]string{
		{"arena", "run", "--db", db},
		{"arena", "run", "--db", db, "--model", "x"},
		{"arena", "run", "--db", db, "--model", "x=alien"},
		{"arena", "run", "--db", db, "--model", "x=random", "--players", "4"},
		{"arena", "run", "--db", db, "--model", "x=random", "--roles", "jester"},
		{"arena", "run", "--db", db, "--model", "x=random", "--roles", "morgana,mordred"},
		{"arena", "fly"},
	} {
		errOut.Reset()
		if code := run(context.Background(), bad, nil, &out, &errOut); code == 0 {
			t.Errorf("%v succeeded", bad)
		}
	}
}

// TestArenaCommandEndpoint plays against an OpenAI-compatible server whose
// answers come from avalon.Random.
func TestArenaCommandEndpoint(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string                 `json:"model"`
			Messages []agentevolver.Message `json:"messages"`
			Seed     *int64                 `json:"seed"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		calls.Add(1)
		c, _ := avalon.Random{Seed: 5}.Chat(r.Context(), req.Messages, llm.ChatOptions{Seed: req.Seed})
		content, _ := json.Marshal(c.Message.Content)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"c","object":"chat.completion","created":1,"model":"` + req.Model + `","choices":[{"index":0,"message":{"role":"assistant","content":` +
			string(content) + `},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`))
	}))
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "e.db")
	args := []string{"arena", "run", "--db", db, "--matches", "2", "--players", "6", "--roles", "percival,morgana",
		"--model", "served=openai:qwen@" + srv.URL + "/v1", "--model", "base=random"}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if calls.Load() == 0 || !strings.Contains(out.String(), "served") || !strings.Contains(out.String(), "Percival") {
		t.Fatalf("%d calls; output:\n%s", calls.Load(), out.String())
	}
}
