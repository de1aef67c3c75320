package cues_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envs/sqlworld"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/openai"
)

// role names the prompt a request carries, from its text.
func role(msgs []agentevolver.Message) string {
	all := ""
	for _, m := range msgs {
		all += m.Content + "\n"
	}
	switch {
	case strings.Contains(all, "Reply with OK."):
		return "probe"
	case strings.Contains(all, "curious explorer"):
		return "explorer"
	case strings.Contains(all, "exploration memory summarizer"):
		return "memory"
	case strings.Contains(all, "Task Abstraction Expert"):
		return "abstract"
	case strings.Contains(all, "completes a user's task"):
		return "actor"
	case strings.Contains(all, "strict evaluator"):
		return "judge"
	case strings.Contains(all, "query rewriting"):
		return "rewrite"
	case strings.Contains(all, "exploration directive"):
		return "requirement"
	case strings.Contains(all, "noun-extraction"):
		return "concepts"
	}
	return "other"
}

// script is a scripted model: answer returns the reply to a request, by
// role; calls counts the requests per role.
type script struct {
	mu     sync.Mutex
	calls  map[string]int
	answer func(role string, n int, msgs []agentevolver.Message) string
}

func (s *script) reply(msgs []agentevolver.Message) string {
	r := role(msgs)
	s.mu.Lock()
	if s.calls == nil {
		s.calls = map[string]int{}
	}
	n := s.calls[r]
	s.calls[r]++
	s.mu.Unlock()
	if r == "probe" {
		return "OK"
	}
	return s.answer(r, n, msgs)
}

func (s *script) count(r string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[r]
}

// Chat makes script an llm.ChatModel, for tests that need no HTTP.
func (s *script) Chat(ctx context.Context, msgs []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
	if err := ctx.Err(); err != nil {
		return llm.Completion{}, err
	}
	return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: s.reply(msgs)}}, nil
}

// serve starts an OpenAI-compatible chat-completions server answering
// with s, and returns a client of it.
func serve(t *testing.T, s *script) llm.ChatModel {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var body struct {
			Messages []agentevolver.Message `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "c", "object": "chat.completion", "created": 1, "model": "scripted",
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": s.reply(body.Messages)}}},
			"usage": map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
		})
	}))
	t.Cleanup(srv.Close)
	c, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "scripted",
		RetryBaseDelay: time.Millisecond, RetryMaxDelay: 5 * time.Millisecond, RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// manager serves the built-in environment name in process; sqlworld
// skips the test when Debian's iso-codes are missing.
func manager(t *testing.T, name string, cfg builtin.Config) *envservice.Manager {
	t.Helper()
	env, err := builtin.Open(context.Background(), name, cfg, nil)
	if errors.Is(err, sqlworld.ErrNoData) {
		t.Skipf("sqlworld: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	m := envservice.NewManager(envservice.ManagerConfig{})
	t.Cleanup(func() { m.Close() })
	if err := m.Register(name, env); err != nil {
		t.Fatal(err)
	}
	return m
}

func tool(call string) string { return "```tool\n" + call + "\n```" }

// previousActions counts the actor's previous actions in its prompt.
func previousActions(msgs []agentevolver.Message) int {
	p := msgs[len(msgs)-1].Content
	i := strings.Index(p, "## Previous Actions\n")
	if i < 0 {
		return 0
	}
	rest := p[i+len("## Previous Actions\n"):]
	if strings.HasPrefix(rest, "None") {
		return 0
	}
	return strings.Count(rest[:strings.Index(rest, "\n\n## Instructions")], "Action: ")
}

// queryOf returns the task query in an actor's prompt.
func queryOf(msgs []agentevolver.Message) string {
	p := msgs[len(msgs)-1].Content
	i := strings.Index(p, "## Query\n")
	if i < 0 {
		return ""
	}
	rest := p[i+len("## Query\n"):]
	return rest[:strings.Index(rest, "\n")]
}
