package agentflow_test

import (
	"context"
	"fmt"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envclient"
)

// One episode: the policy raises an in-memory counter until the
// environment declares the task done. (counterEnv, alwaysInc,
// charTokenizer and chatML stand in for a real environment, policy,
// tokenizer and chat template.)
func Example() {
	flow := &agentflow.Flow{
		Env:     newCounterEnv(2),
		Policy:  alwaysInc,
		Context: contextmgr.Config{Tokenizer: charTokenizer{}, Template: chatML{}},
		EnvType: "counter",
	}
	res, err := flow.Run(context.Background(), agentflow.Rollout{Task: agentevolver.Task{TaskID: "t0"}, DataID: "0", RolloutID: "0"})
	if err != nil {
		panic(err)
	}
	traj := res.Trajectory
	fmt.Println("terminated:", traj.IsTerminated, "outcome:", traj.Reward.Outcome)
	for _, m := range traj.Steps {
		fmt.Printf("%s: %s\n", m.Role, m.Content)
	}
	fmt.Println("samples:", len(res.Samples))
	// Output:
	// terminated: true outcome: 1
	// system: You control a counter.
	// user: Raise the counter to 2.
	// assistant: inc
	// user: count is 1
	// assistant: inc
	// samples: 1
}

// A group of rollouts per task, run in parallel and returned in order.
func ExampleRunner() {
	runner := &agentflow.Runner{
		Flow: &agentflow.Flow{
			Env:     newCounterEnv(1),
			Policy:  alwaysInc,
			Context: contextmgr.Config{Tokenizer: charTokenizer{}, Template: chatML{}},
			EnvType: "counter",
		},
		Concurrency: 4,
	}
	tasks := []agentevolver.Task{{TaskID: "a"}, {TaskID: "b"}}
	results, err := runner.Run(context.Background(), agentflow.Expand(tasks, 2))
	if err != nil {
		panic(err)
	}
	for _, r := range results {
		fmt.Println(r.Trajectory.TaskID, r.Trajectory.DataID, r.Trajectory.RolloutID, r.Trajectory.Reward.Outcome)
	}
	// Output:
	// a 0 0 1
	// a 0 1 1
	// b 1 0 1
	// b 1 1 1
}

func ExampleObservation() {
	res := envclient.StepResult{State: []agentevolver.Message{{Role: agentevolver.RoleTool, Content: `{"balance": 12}`, ToolCallID: "call_7"}}}
	obs := agentflow.Observation(res, 0)
	fmt.Println(obs.Role, obs.Content)
	// Output:
	// user {"balance": 12}
}
