package experience_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/experience"
)

// lastStepLessons is a stand-in summariser: one lesson per successful
// episode, keyed by the task's query.
type lastStepLessons struct{}

func (lastStepLessons) Summarize(_ context.Context, trajs []agentevolver.Trajectory) ([]experience.Experience, error) {
	var out []experience.Experience
	for _, t := range trajs {
		if t.Reward.Success() {
			out = append(out, experience.Experience{
				Text:   "What worked: " + t.Steps[len(t.Steps)-1].Content,
				Key:    t.Query,
				TaskID: t.TaskID,
				Score:  t.Reward.Outcome,
			})
		}
	}
	return out, nil
}

// A pool in process: a workspace of a bbolt file searched with the local
// embedder, filled by a summariser from finished episodes, then queried
// for a new task. The file outlives the process; opening it again serves
// the same experiences.
func ExampleLocalPool() {
	dir, err := os.MkdirTemp("", "experience")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	file, err := experience.OpenStoreFile(filepath.Join(dir, "experience.db"), experience.StoreOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer file.Close()
	workspace, err := file.Workspace("default", experience.NewLocalEmbedder(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	pool := experience.NewLocalPool(workspace, lastStepLessons{})

	ctx := context.Background()
	episodes := []agentevolver.Trajectory{
		{TaskID: "router-1", Query: "The wifi router keeps dropping the connection.",
			Steps:  []agentevolver.Message{{Role: agentevolver.RoleAssistant, Content: "restart the router, then update its firmware"}},
			Reward: agentevolver.NewReward(1, "", 0)},
		{TaskID: "flight-1", Query: "Book a flight to Paris for Monday.",
			Steps:  []agentevolver.Message{{Role: agentevolver.RoleAssistant, Content: "search flights, then check baggage rules"}},
			Reward: agentevolver.NewReward(1, "", 0)},
		{TaskID: "flight-2", Query: "Book a hotel in Rome.",
			Steps:  []agentevolver.Message{{Role: agentevolver.RoleAssistant, Content: "gave up"}},
			Reward: agentevolver.NewReward(0, "", 0)},
	}
	if err := pool.Update(ctx, episodes); err != nil {
		fmt.Println(err)
		return
	}

	init := []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: "You are a helpful agent with tools."},
		{Role: agentevolver.RoleUser, Content: "My router dropped the wifi connection again."},
	}
	exps, err := pool.Retrieve(ctx, init, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stored:", workspace.Len())
	for _, e := range exps {
		fmt.Printf("%s (from %s)\n", e.Text, e.TaskID)
	}
	// Output:
	// stored: 2
	// What worked: restart the router, then update its firmware (from router-1)
}
