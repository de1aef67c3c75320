package grader_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/taskgen/grader"
)

// A banded judge with reference grades a synthetic task's episode. The
// judge model here is scripted; in training it is an llm/openai client.
func ExampleNew() {
	judge := llm.ChatModelFunc(func(ctx context.Context, msgs []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
		prompt := msgs[0].Content
		verdict := "The agent never sent the message.\n<reward>30</reward>"
		if strings.Contains(prompt, "messages.send") {
			verdict = "Both steps match the reference.\n<reward>90</reward>"
		}
		return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: verdict}}, nil
	})
	g, err := grader.New(grader.NameLLMBinaryGTNoConstraint, grader.Config{Model: judge})
	if err != nil {
		fmt.Println(err)
		return
	}
	in := agentflow.RewardInput{
		Task: agentevolver.Task{TaskID: "7", Query: "Tell Alice my order total.", GroundTruth: "orders.total(); messages.send(to=alice)",
			Evaluator: grader.NameLLMBinaryGTNoConstraint},
		Trajectory: agentevolver.Trajectory{Steps: []agentevolver.Message{
			{Role: agentevolver.RoleSystem, Content: "You are a shop assistant."},
			{Role: agentevolver.RoleUser, Content: "Tell Alice my order total."},
			{Role: agentevolver.RoleAssistant, Content: "orders.total()"},
			{Role: agentevolver.RoleUser, Content: "42.0"},
			{Role: agentevolver.RoleAssistant, Content: "messages.send(to='alice', text='42.0')"},
			{Role: agentevolver.RoleUser, Content: "sent"},
		}},
	}
	score, reason, err := g.CalculateReward(context.Background(), in)
	fmt.Println(score, err)
	fmt.Println(strings.SplitN(reason, "\n", 2)[0])
	// Output:
	// 0.9 <nil>
	// Both steps match the reference.
}

// ParseScore reads the first <reward> tag, clamped to [0, 100] and scaled
// to [0, 1].
func ExampleParseScore() {
	fmt.Println(grader.ParseScore("Solid work.\n<reward>75</reward>"))
	fmt.Println(grader.ParseScore("<reward>120</reward>"))
	fmt.Println(grader.ParseScore("e.g. <reward>75</reward> ... final: <reward>20</reward>"))
	fmt.Println(grader.ParseScore("Score: 80"))
	// Output:
	// 0.75
	// 1
	// 0.75
	// 0
}

// ParseVerdict reads the post-filter's validation reply, keyword traps
// included.
func ExampleParseVerdict() {
	fmt.Println(grader.ParseVerdict("Success: true\nReason: the right API was called."))
	fmt.Println(grader.ParseVerdict("The task was completed."))
	fmt.Println(grader.ParseVerdict("The attempt was unsuccessful.")) // "success" and "unsuccessful" tie
	// Output:
	// true
	// true
	// false
}
