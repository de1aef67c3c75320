package taskgen_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/openai"
	"github.com/org/agentevolver/taskgen"
)

const testModel = "test-model"

// chatRequest is what the scripted server reads of a request.
type chatRequest struct {
	Model       string                 `json:"model"`
	Messages    []agentevolver.Message `json:"messages"`
	Temperature *float64               `json:"temperature"`
	TopP        *float64               `json:"top_p"`
	TopK        *int                   `json:"top_k"`
	MaxTokens   int                    `json:"max_tokens"`
	Seed        *int64                 `json:"seed"`
}

// scriptedLLM is an OpenAI-compatible server that plays every role of
// the LLM path: it explores (three actions), summarises (one task block
// per summary, with a query unique to the call), solves a task (its
// ground truth, then task.finish), validates (failing the queries that
// say "reject") and abstracts the solution. It records the requests by
// role.
type scriptedLLM struct {
	mu        sync.Mutex
	byRole    map[string][]chatRequest
	summaries int
}

func (s *scriptedLLM) role(msgs []agentevolver.Message) string {
	all := ""
	for _, m := range msgs {
		all += m.Content + "\n"
	}
	switch {
	case strings.Contains(all, "Real-World Task Discovery Expert"):
		return "summarise"
	case strings.Contains(all, "Solution Abstraction Expert"):
		return "abstract"
	case strings.Contains(all, "strict task evaluation expert"):
		return "validate"
	case strings.Contains(all, "curious environment explorer"):
		return "explore"
	case strings.Contains(all, "Your Query:"):
		return "solve"
	}
	return "unknown"
}

func turns(msgs []agentevolver.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Role == agentevolver.RoleAssistant {
			n++
		}
	}
	return n
}

func tool(line string) string { return "**Observation**: ...\n```tool\n" + line + "\n```" }

func (s *scriptedLLM) reply(req chatRequest) string {
	role := s.role(req.Messages)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byRole[role] = append(s.byRole[role], req)
	switch role {
	case "explore":
		return tool([]string{"contacts.list", "bank.balance", "task.finish"}[min(turns(req.Messages), 2)])
	case "summarise":
		s.summaries++
		n := s.summaries
		query := fmt.Sprintf("s%d-alpha s%d-beta", n, n)
		if n%3 == 0 {
			query += " reject"
		}
		return fmt.Sprintf("Here:\n<task>\n{\"query\": %q, \"confidence\": 0.%d, \"action_sequence\": \"bank.balance\"}\n</task>", query, n%10)
	case "solve":
		if turns(req.Messages) == 0 {
			return tool("bank.balance")
		}
		return tool("task.finish")
	case "validate":
		if strings.Contains(req.Messages[0].Content, "reject") {
			return "Success: false\nReason: no."
		}
		return "Success: true\nReason: the balance was read."
	case "abstract":
		return "<task>{\"query\": \"q\", \"confidence\": 1, \"action_sequence\": \"bank.balance\\ntask.finish\"}</task>"
	}
	return "?"
}

func (s *scriptedLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil || r.URL.Path != "/v1/chat/completions" || req.Model != testModel {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": testModel,
		"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": s.reply(req)}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

// TestGenerateLLM runs the LLM path end to end against a scripted
// OpenAI-compatible server on toolworld: exploration with the profile and
// the seed query in the prompt and the reference's sampling settings,
// summaries that list earlier objectives of the same seed and never see
// the seed query, and the post filter that drops what fails validation
// and rewrites the ground truth of the rest.
func TestGenerateLLM(t *testing.T) {
	script := &scriptedLLM{byRole: map[string][]chatRequest{}}
	srv := httptest.NewServer(script)
	defer srv.Close()
	model, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: testModel, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	m, env := newToolworld(t)
	profile := env.Profile()
	g := &taskgen.Generator{
		Explorer:    &taskgen.LLMExplorer{Env: m, Model: model, MaxSteps: 5},
		Summarizer:  &taskgen.LLMSummarizer{Model: model, Profile: &profile},
		PostFilter:  &taskgen.LLMPostFilter{Env: m, Model: model, MaxSteps: 4},
		N:           2,
		Concurrency: 2,
	}
	seeds := toolworldSeeds(t, env, 3)
	objs, rep, err := g.Generate(context.Background(), seeds)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Explored != 6 || rep.Objectives != 6 || rep.AfterRealtime != 6 || rep.PostRejected != 2 || rep.AfterPostFilter != 4 || len(objs) != 4 {
		t.Fatalf("%d objectives, report %+v", len(objs), rep)
	}
	for _, o := range objs {
		if strings.Contains(o.Task.Query, "reject") || o.Task.GroundTruth != "bank.balance\ntask.finish" ||
			o.Task.Evaluator != agentevolver.EvaluatorSynthetic || !o.Task.OpenQuery || o.Task.EnvType != toolworld.Name {
			t.Errorf("objective %+v", o.Task)
		}
	}

	instructions := map[string]string{}
	for _, s := range seeds {
		info, _ := env.Task(s.TaskID)
		instructions[s.TaskID] = info.Instruction
	}
	explore := script.byRole["explore"]
	if len(explore) != 6*3 {
		t.Errorf("%d exploration turns, want 3 per exploration", len(explore))
	}
	for _, req := range explore {
		if req.Temperature == nil || *req.Temperature != 1 || req.TopP == nil || *req.TopP != 1 || req.TopK == nil || *req.TopK != 100 || req.Seed == nil {
			t.Fatalf("exploration sampling: temperature %v top_p %v top_k %v seed %v", req.Temperature, req.TopP, req.TopK, req.Seed)
		}
		sys, prompt := req.Messages[0].Content, req.Messages[1].Content
		if !strings.Contains(sys, "```tool") || !strings.Contains(prompt, profile.Background) {
			t.Fatalf("exploration prompt lacks the action format or the profile:\n%s\n%s", sys, prompt)
		}
		found := false
		for _, q := range instructions {
			found = found || strings.Contains(prompt, "Users may ask questions like `"+q+"`")
		}
		if !found {
			t.Fatalf("exploration prompt lacks the seed query:\n%s", prompt)
		}
	}
	sums := script.byRole["summarise"]
	if len(sums) != 6 {
		t.Fatalf("%d summaries", len(sums))
	}
	withOld := 0
	for _, req := range sums {
		user := req.Messages[1].Content
		for _, q := range instructions {
			if strings.Contains(user, q) {
				t.Errorf("the summary request shows the seed query %q", q)
			}
		}
		if !strings.Contains(user, "[MASKED]") || !strings.Contains(user, "bank.balance") || req.MaxTokens != taskgen.DefaultSummaryMaxTokens {
			t.Errorf("summary request (max_tokens %d):\n%s", req.MaxTokens, user)
		}
		if strings.Contains(user, "['s") {
			withOld++
		}
	}
	// Batches of 2 over 3 seeds: [0 1] [2 0] [1 2]; the second
	// exploration of seeds 0, 1 and 2 sees the first one's objective.
	if withOld != 3 {
		t.Errorf("%d summaries listed old objectives, want 3", withOld)
	}
	if n := len(script.byRole["validate"]); n != 6 {
		t.Errorf("%d validations", n)
	}
	if n := len(script.byRole["abstract"]); n != 4 {
		t.Errorf("%d abstractions", n)
	}
	solve := script.byRole["solve"]
	if len(solve) == 0 || !strings.Contains(solve[0].Messages[1].Content, "Tips:\nbank.balance") {
		t.Errorf("solve prompt: %+v", solve)
	}
}

// TestLLMPostFilterSteps checks each step of the LLM post filter with a
// scripted model: a validation that fails drops, an error drops, an
// abstraction without a usable block keeps the old ground truth.
func TestLLMPostFilterSteps(t *testing.T) {
	m, env := newToolworld(t)
	seed := toolworldSeeds(t, env, 1)[0]
	obj := agentevolver.TaskObjective{Task: seed}
	obj.Task.Query, obj.Task.GroundTruth, obj.Task.Evaluator = "Check my balance", "bank.balance", agentevolver.EvaluatorSynthetic
	script := func(verdict, abstract string, fail string) llm.ChatModel {
		return llm.ChatModelFunc(func(_ context.Context, msgs []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
			role := (&scriptedLLM{}).role(msgs)
			if role == fail {
				return llm.Completion{}, errors.New("model down")
			}
			text := "```tool\ntask.finish\n```"
			switch role {
			case "validate":
				text = verdict
			case "abstract":
				text = abstract
			}
			return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: text}}, nil
		})
	}
	for _, tc := range []struct {
		name                    string
		verdict, abstract, fail string
		keep, wantErr           bool
		groundTruth             string
	}{
		{"rewritten", "Success: true", `<task>{"query": "q", "confidence": 0.9, "action_sequence": "new"}</task>`, "", true, false, "new"},
		{"first block with a confidence", "success: true", `<task>{"query": "q", "confidence": null, "action_sequence": "a"}</task><task>{"query": "q", "confidence": 1, "action_sequence": "b"}</task>`, "", true, false, "b"},
		{"no block keeps the old one", "Success: true", "I cannot.", "", true, false, "bank.balance"},
		{"blank sequence keeps the old one", "Success: true", `<task>{"query": "q", "confidence": 1, "action_sequence": " "}</task>`, "", true, false, "bank.balance"},
		{"invalid", "Success: false\nReason: wrong API", "", "", false, false, ""},
		{"solve fails", "", "", "solve", false, true, ""},
		{"validation fails", "", "", "validate", false, true, ""},
		{"abstraction fails", "Success: true", "", "abstract", false, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &taskgen.LLMPostFilter{Env: m, Model: script(tc.verdict, tc.abstract, tc.fail), MaxSteps: 3}
			out, keep, err := f.Filter(context.Background(), obj)
			if keep != tc.keep || (err != nil) != tc.wantErr {
				t.Fatalf("keep %v, err %v", keep, err)
			}
			if keep && (out.Task.GroundTruth != tc.groundTruth || out.Task.Query != obj.Task.Query) {
				t.Errorf("kept %+v", out.Task)
			}
		})
	}
}
