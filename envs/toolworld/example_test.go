package toolworld_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/toolworld"
)

// The expert solver plays one level-3 training task: it reads a value,
// uses it in a later call and finishes with a perfect score.
func ExampleEnv_Solve() {
	ctx := context.Background()
	env, err := toolworld.New(toolworld.Config{Compact: true})
	if err != nil {
		log.Fatal(err)
	}
	const id = "tw-train-0002"
	inst, err := env.New(ctx, id, "example", map[string]any{"sparse": true})
	if err != nil {
		log.Fatal(err)
	}
	defer inst.Close()
	init, err := inst.InitState(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("task:", init.State[1].Content)
	actions, err := env.Solve(id)
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range actions {
		res, err := inst.Step(ctx, a, nil)
		if err != nil {
			log.Fatal(err)
		}
		call, _ := toolworld.ParseAction(a)
		fmt.Printf("%s -> %s\n", call, res.State[0].Content)
		if res.IsTerminated {
			fmt.Println("reward:", res.Reward)
		}
	}
	// Output:
	// task: What is the phone number of the person I meet on Tue?
	// calendar.list day=Tue -> 3: coffee with Sam
	// contacts.find name=Sam -> Sam 555-1457
	// task.finish answer=555-1457 -> task finished
	// reward: 1
}

// Malformed actions are answered with an observation that says how to fix
// them; the episode goes on.
func ExampleParseAction() {
	for _, content := range []string{
		"```tool\nfiles.write name=notes.txt text=\"buy milk\"\n```",
		`<tool_call>{"name": "bank_pay", "arguments": {"to": "Ann", "amount": 5}}</tool_call>`,
		"contacts.find(name='Ann')",
		"```tool\ncontacts.find(name='Ann')\n```",
	} {
		call, err := toolworld.ParseAction(agentevolver.Message{Role: agentevolver.RoleAssistant, Content: content})
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(call)
	}
	// Output:
	// files.write name=notes.txt text="buy milk"
	// bank.pay amount=5 to=Ann
	// error: toolworld: no tool call found; reply with one call in a tool block, e.g.
	// ```tool
	// contacts.find name=Ann
	// ```
	// error: toolworld: write arguments as key=value pairs separated by spaces, without parentheses, e.g. contacts.find name=Ann
}

// JudgeSteps labels each step of an episode: here a detour, a useful call
// and a premature finish.
func ExampleEnv_JudgeSteps() {
	env, err := toolworld.New(toolworld.Config{})
	if err != nil {
		log.Fatal(err)
	}
	const id = "tw-train-0002"
	expert, _ := env.Solve(id)
	tool := func(line string) agentevolver.Message {
		return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "```tool\n" + line + "\n```"}
	}
	verdicts, err := env.JudgeSteps(context.Background(), id, []agentevolver.Message{
		tool("contacts.list"), expert[0], tool("task.finish answer=Sam"),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(verdicts)
	// Output: [false true false]
}

// Self-questioning without an LLM: a walk of the environment's own random
// actions is relabelled in hindsight as a task whose goal is what the walk
// achieved. The task's id is all another process needs to run and score
// it.
func ExampleEnv_SynthesizeTask() {
	ctx := context.Background()
	env, err := toolworld.New(toolworld.Config{})
	if err != nil {
		log.Fatal(err)
	}
	const seedID = "tw-train-0002"
	var walk []agentevolver.Message
	for range 5 {
		a, err := env.RandomAction(ctx, seedID, walk, 3)
		if err != nil {
			log.Fatal(err)
		}
		walk = append(walk, a)
		call, _ := toolworld.ParseAction(a)
		fmt.Println("explore:", call)
	}
	task, err := env.SynthesizeTask(ctx, seedID, walk)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("id:", task.TaskID)
	fmt.Println("query:", task.Query)
	fmt.Printf("ground truth:\n%s\n", task.GroundTruth)

	// Another process, with its own Env, plays the ground truth.
	other, err := toolworld.New(toolworld.Config{})
	if err != nil {
		log.Fatal(err)
	}
	inst, err := other.New(ctx, task.TaskID, "replay", map[string]any{"sparse": true})
	if err != nil {
		log.Fatal(err)
	}
	defer inst.Close()
	for _, line := range strings.Split(task.GroundTruth, "\n") {
		res, err := inst.Step(ctx, agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "```tool\n" + line + "\n```"}, nil)
		if err != nil {
			log.Fatal(err)
		}
		if res.IsTerminated {
			fmt.Println("reward:", res.Reward)
		}
	}
	// Output:
	// explore: calendar.list day=Tue
	// explore: files.write name=old.txt text="pick up keys"
	// explore: files.read name=plan.txt
	// explore: bank.balance
	// explore: bank.balance
	// id: hs1:tw-train-0002:files.write,old.txt,pick%20up%20keys;bank.balance
	// query: Write "pick up keys" to old.txt. What is my bank balance?
	// ground truth:
	// files.write name=old.txt text="pick up keys"
	// bank.balance
	// task.finish answer=220
	// reward: 1
}
