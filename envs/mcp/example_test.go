package mcp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/mcp"
)

// An in-process MCP server (a key-value store, reached through
// Server.Dial) becomes an environment with one task; the expert's
// demonstration scores 1. With an npm server, set Server.Command instead,
// as in the package doc.
func Example() {
	ctx := context.Background()
	kv := &kvServer{}
	env, err := mcp.New(ctx, mcp.Config{
		Server: mcp.Server{Dial: kv.Dial},
		Tasks: []mcp.Task{{
			TaskID: "kv-color",
			Query:  "Remember that my favourite colour is teal.",
			Checker: mcp.Checks{
				{Type: mcp.CheckVerify, Call: &mcp.Call{Name: "get", Arguments: map[string]any{"key": "colour"}}, Exact: ptr("teal")},
			},
			Solution: &mcp.Solution{
				Calls:  []mcp.Call{{Name: "set", Arguments: map[string]any{"key": "colour", "value": "teal"}}},
				Answer: "Noted.",
			},
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer env.Close()

	inst, err := env.New(ctx, "kv-color", "example", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer inst.Close()
	init, _ := inst.InitState(ctx, nil)
	fmt.Println("task:", init.State[1].Content)

	// A bad call is an observation, not a failure.
	res, _ := inst.Step(ctx, agentevolver.Message{Role: agentevolver.RoleAssistant, Content: `{"name": "put", "arguments": {}}`}, nil)
	fmt.Println(res.State[0].Content)

	actions, _ := env.Demonstrate(ctx, "kv-color")
	for _, a := range actions {
		res, err := inst.Step(ctx, a, nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.State[0].Content)
		if res.IsTerminated {
			fmt.Println("reward:", res.Reward)
		}
	}
	// Output:
	// task: Remember that my favourite colour is teal.
	// error: unknown tool "put"; the tools are boom, get, set, final_answer
	// ok
	// final answer recorded; the episode is over
	// reward: 1
}

func ptr(s string) *string { return &s }
