package envtest_test

import (
	"context"
	"fmt"
	"strconv"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/envservice/envtest"
)

// guessEnv is a tiny environment: task guess-N is solved by answering N.
type guessEnv struct{}

func (guessEnv) TaskIDs(_ context.Context, split string, _ map[string]any) ([]string, error) {
	switch split {
	case "train":
		return []string{"guess-1", "guess-2", "guess-3"}, nil
	case "val":
		return []string{"guess-4"}, nil
	}
	return nil, fmt.Errorf("%w: unknown split %q", envclient.ErrBadRequest, split)
}

func (guessEnv) New(_ context.Context, taskID, _ string, _ map[string]any) (envservice.Instance, error) {
	for n := 1; n <= 4; n++ {
		if taskID == "guess-"+strconv.Itoa(n) {
			return &guess{secret: strconv.Itoa(n)}, nil
		}
	}
	return nil, fmt.Errorf("%w: unknown task", envclient.ErrBadRequest)
}

type guess struct {
	secret string
	solved bool
}

func (g *guess) InitState(context.Context, map[string]any) (envclient.InitState, error) {
	return envclient.InitState{State: []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: "Guess the number from 1 to 4."},
		{Role: agentevolver.RoleUser, Content: "Your guess?"},
	}}, nil
}

func (g *guess) Step(_ context.Context, a agentevolver.Message, _ map[string]any) (envclient.StepResult, error) {
	g.solved = g.solved || a.Content == g.secret
	obs := "wrong"
	if g.solved {
		obs = "right"
	}
	return envclient.StepResult{State: []agentevolver.Message{{Role: agentevolver.RoleUser, Content: obs}}, IsTerminated: g.solved}, nil
}

func (g *guess) Evaluate(context.Context, map[string]any) (float64, error) {
	if g.solved {
		return 1, nil
	}
	return 0, nil
}

func (g *guess) Info(context.Context, map[string]any) (any, error) { return map[string]any{}, nil }
func (g *guess) Close() error                                      { return nil }

// TestEnv checks a tiny environment against the contract. In a test, call
// envtest.Run(t, env, opts) instead: each check is then a subtest.
func ExampleTestEnv() {
	err := envtest.TestEnv(context.Background(), guessEnv{}, envtest.Options{
		Deterministic: true,
		// guessEnv has no expert: say how to solve a task.
		Actions: func(taskID string, _ envclient.InitState) []agentevolver.Message {
			return []agentevolver.Message{{Role: agentevolver.RoleAssistant, Content: taskID[len("guess-"):]}}
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ok")
	// Output: ok
}
