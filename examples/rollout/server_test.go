package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/toolworld"
)

// testModel is the model name the test servers serve.
const testModel = "test-model"

// replyFunc answers a conversation with the assistant's next message text.
type replyFunc func(ctx context.Context, msgs []agentevolver.Message) (string, error)

// chatServer is an httptest server speaking the OpenAI wire format: GET
// /v1/models and POST /v1/chat/completions, as vLLM and ollama do.
type chatServer struct {
	*httptest.Server
	reply    replyFunc
	requests atomic.Int64
}

// newChatServer starts a server; Close stops it.
func newChatServer(reply replyFunc) *chatServer {
	s := &chatServer{reply: reply}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// startChatServer starts a server that stops with the test.
func startChatServer(tb testing.TB, reply replyFunc) *chatServer {
	tb.Helper()
	s := newChatServer(reply)
	tb.Cleanup(s.Close)
	return s
}

// baseURL is the API root to pass as --base-url.
func (s *chatServer) baseURL() string { return s.URL + "/v1" }

func (s *chatServer) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		writeJSON(w, http.StatusOK, map[string]any{
			"object": "list",
			"data":   []map[string]any{{"id": testModel, "object": "model", "created": 0, "owned_by": "test"}},
		})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		s.complete(w, r)
	default:
		writeError(w, http.StatusNotFound, "not found: "+r.URL.Path)
	}
}

func (s *chatServer) complete(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	var req struct {
		Model    string                 `json:"model"`
		Messages []agentevolver.Message `json:"messages"`
		Stream   bool                   `json:"stream"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	switch {
	case err != nil:
		writeError(w, http.StatusBadRequest, "bad request: "+err.Error())
		return
	case req.Model != testModel:
		writeError(w, http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist.", req.Model))
		return
	case req.Stream:
		writeError(w, http.StatusBadRequest, "this test server does not stream")
		return
	}
	text, err := s.reply(r.Context(), req.Messages)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id":      fmt.Sprintf("chatcmpl-%d", s.requests.Load()),
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   testModel,
		"choices": []map[string]any{{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": text},
			"finish_reason": "stop",
			"logprobs":      nil,
		}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": status}})
}

// expert plays toolworld's expert solver over the wire: it finds the task
// by the conversation's first user message, replays the conversation's
// actions on a fresh instance to tell apart tasks with the same
// instruction, and answers with the expert's next action.
type expert struct {
	env     *toolworld.Env
	byQuery map[string][]string // instruction -> task ids
}

// newExpert plays the tasks of a toolworld made with cfg, which must be
// the configuration of the environment the episodes run in.
func newExpert(cfg toolworld.Config) (*expert, error) {
	env, err := toolworld.New(cfg)
	if err != nil {
		return nil, err
	}
	x := &expert{env: env, byQuery: map[string][]string{}}
	for _, split := range []string{toolworld.SplitTrain, toolworld.SplitVal, toolworld.SplitTest} {
		ids, err := env.TaskIDs(context.Background(), split, nil)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			info, err := env.Task(id)
			if err != nil {
				return nil, err
			}
			x.byQuery[info.Instruction] = append(x.byQuery[info.Instruction], id)
		}
	}
	return x, nil
}

// mustExpert is newExpert for tests.
func mustExpert(tb testing.TB, cfg toolworld.Config) *expert {
	tb.Helper()
	x, err := newExpert(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return x
}

// reply implements replyFunc.
func (x *expert) reply(ctx context.Context, msgs []agentevolver.Message) (string, error) {
	first := -1
	for i, m := range msgs {
		if m.Role == agentevolver.RoleUser {
			first = i
			break
		}
	}
	if first < 0 {
		return "", errors.New("expert: no user message")
	}
	// Context strategies may append hints to the task and observations.
	query, _, _ := strings.Cut(msgs[first].Content, "\n\n")
	for _, id := range x.byQuery[query] {
		if action, ok, err := x.next(ctx, id, msgs[first+1:]); err != nil || ok {
			return action, err
		}
	}
	return "", fmt.Errorf("expert: no task fits the conversation about %q", msgs[first].Content)
}

// next replays the turns after the task message on a fresh instance of
// taskID and returns the expert's next action, or ok false when the
// observations differ from the conversation's.
func (x *expert) next(ctx context.Context, taskID string, turns []agentevolver.Message) (action string, ok bool, err error) {
	in, err := x.env.New(ctx, taskID, "expert", nil)
	if err != nil {
		return "", false, err
	}
	defer in.Close()
	for i, m := range turns {
		if m.Role != agentevolver.RoleAssistant {
			continue
		}
		res, err := in.Step(ctx, m, nil)
		if err != nil {
			return "", false, err
		}
		if i+1 < len(turns) && !strings.HasPrefix(turns[i+1].Content, res.State[0].Content) {
			return "", false, nil
		}
	}
	next, ok := in.(*toolworld.Instance).Expected()
	return next.Content, ok, nil
}
