package experience_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/experience"
	"github.com/org/agentevolver/llm"
)

// A ReMe service (here a stand-in) answers retrieval with one merged
// text; a failure is an error the caller classifies, not an empty answer.
func ExampleReMe() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/retrieve_task_memory" {
			http.Error(w, `{"detail":"overloaded"}`, http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"answer":"Restart the router before anything else.","success":true,"metadata":{"memory_list":[]}}`)
	}))
	defer srv.Close()

	pool, err := experience.NewReMe(experience.ReMeConfig{BaseURL: srv.URL, WorkspaceID: "toolworld", Timeout: 30 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	init := []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: "You are an agent."},
		{Role: agentevolver.RoleUser, Content: "The router is down."},
	}
	exps, err := pool.Retrieve(ctx, init, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(exps[0].Text)

	err = pool.Update(ctx, []agentevolver.Trajectory{{Steps: init, Reward: agentevolver.NewReward(1, "", 0)}})
	fmt.Println("outage:", errors.Is(err, llm.ErrUnavailable))
	fmt.Println(err)
	// Output:
	// Restart the router before anything else.
	// outage: true
	// experience: ReMe summary_task_memory: HTTP 503 Service Unavailable: overloaded
}
