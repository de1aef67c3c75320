package envclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
)

// A tiny env service speaking the protocol: one task, whose instance ends
// the episode when the agent answers "42".
func exampleService() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			InstanceID *string              `json:"instance_id"`
			Messages   agentevolver.Message `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		var answer any
		switch r.URL.Path {
		case envclient.RouteCreate:
			answer = map[string]any{"success": true, "data": map[string]any{
				"state": []map[string]string{
					{"role": "system", "content": "You are a helpful agent."},
					{"role": "user", "content": "What is six times seven?"},
				},
				"info": map[string]any{"instance_id": "exp_1_cafe0001", "task_id": "t1"},
			}}
		case envclient.RouteStep:
			done := req.Messages.Content == "42"
			answer = map[string]any{"success": true, "data": map[string]any{
				"state":         []map[string]string{{"role": "user", "content": fmt.Sprintf("correct: %v", done)}},
				"reward":        0,
				"is_terminated": done,
				"info":          map[string]any{},
			}}
		case envclient.RouteEvaluate:
			answer = map[string]any{"success": true, "data": 1.0}
		case envclient.RouteRelease:
			answer = map[string]any{"success": true, "data": nil}
		default:
			w.WriteHeader(http.StatusBadRequest)
			answer = map[string]any{"detail": "unknown route"}
		}
		_ = json.NewEncoder(w).Encode(answer)
	}))
}

func Example() {
	srv := exampleService()
	defer srv.Close()

	env, err := envclient.New(envclient.Config{BaseURL: srv.URL + "/"})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	init, err := env.Create(ctx, "math", "t1", "", nil)
	if err != nil {
		log.Fatal(err)
	}
	id := init.InstanceID()
	defer func() { _, _ = env.Release(ctx, id) }() // always free the instance
	fmt.Println("instance:", id)
	fmt.Println("task:", init.State[1].Content)

	res, err := env.Step(ctx, id, agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "42"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("observation:", res.State[0].Content, "terminated:", res.IsTerminated)

	score, err := env.Evaluate(ctx, id, map[string]any{"sparse": true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("score:", score)
	// Output:
	// instance: exp_1_cafe0001
	// task: What is six times seven?
	// observation: correct: true terminated: true
	// score: 1
}
