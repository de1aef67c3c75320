package attribution_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/attribution"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/llm"
)

// An LLMJudge sends one request per episode and reads one label per step
// from the answer. Any llm.ChatModel will do; this one is a stand-in for an
// OpenAI-compatible endpoint (llm/openai) that thinks before it answers.
func ExampleLLMJudge() {
	model := llm.ChatModelFunc(func(_ context.Context, msgs []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
		answer := "<think>The lookup was used; the listing was not.</think>\n" +
			"Step 0 Analysis: lists every contact, unused.\nStep 0 Judgment: BAD\n\n" +
			"Step 1 Analysis: finds the number asked for.\nStep 1 Judgment: GOOD\n\n" +
			"Step 2 Analysis: reports it.\nStep 2 Judgment: GOOD"
		return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: answer}, PromptTokens: 900, CompletionTokens: 60}, nil
	})
	judge, err := attribution.NewLLMJudge(model, attribution.LLMJudgeConfig{Skip: attribution.SkipAllNegative})
	if err != nil {
		log.Fatal(err)
	}
	steps := []agentevolver.SampleStep{
		{Action: "```tool\ncontacts.list\n```", Observation: "Ann, Bob, Sam"},
		{Action: "```tool\ncontacts.find name=Sam\n```", Observation: "Sam: 555-0142"},
		{Action: "```tool\ntask.finish answer=555-0142\n```", Observation: "task finished"},
	}
	episodes := []attribution.Episode{
		{TaskID: "won", Query: "What is Sam's number?", Steps: steps, Outcome: 1},
		{TaskID: "lost", Query: "What is Sam's number?", Steps: steps[:2], Outcome: 0},
	}
	judgments, err := judge.Judge(context.Background(), episodes)
	if err != nil {
		log.Fatal(err)
	}
	for i, j := range judgments {
		fmt.Println(episodes[i].TaskID, j.Source, j.Good, j.Calls)
	}
	m := attribution.JudgeMetrics(episodes, judgments)
	fmt.Println(m["prm/parse_success_rate"], m["prm/pos_traj_bad_rate"], m["prm/judge_prompt_tokens"])
	// Output:
	// won judged [false true true] 1
	// lost skipped [false false] 0
	// 1 0.3333333333333333 900
}

// An OracleJudge labels steps with an environment's StepOracle instead of
// a model: here toolworld's, which replays the actions and calls a step
// GOOD when it performs a call of the expert solution not yet done, or the
// finish that completes the task.
func ExampleOracleJudge() {
	env, err := toolworld.New(toolworld.Config{TrainSize: 3, ValSize: 1, TestSize: 1})
	if err != nil {
		log.Fatal(err)
	}
	const id = "tw-train-0002"
	expert, err := env.Demonstrate(context.Background(), id)
	if err != nil {
		log.Fatal(err)
	}
	info, err := env.Task(id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(info.Instruction)
	// A detour, the expert's three calls with a repeat and a chat turn in
	// between.
	actions := []string{"```tool\ncontacts.list\n```", expert[0].Content, expert[0].Content, expert[1].Content, "I am done.", expert[2].Content}
	var steps []agentevolver.SampleStep
	for _, a := range actions {
		steps = append(steps, agentevolver.SampleStep{Action: a})
	}
	judge := &attribution.OracleJudge{Oracle: env}
	judgments, err := judge.Judge(context.Background(), []attribution.Episode{{TaskID: id, Steps: steps, Outcome: 1}})
	if err != nil {
		log.Fatal(err)
	}
	for i, a := range actions {
		fmt.Printf("%-5v %s\n", judgments[0].Good[i], strings.ReplaceAll(strings.Trim(a, "`\n"), "tool\n", ""))
	}
	// Output:
	// What is the phone number of the person I meet on Tue?
	// false contacts.list
	// true  calendar.list day=Tue
	// false calendar.list day=Tue
	// true  contacts.find name=Sam
	// false I am done.
	// true  task.finish answer=555-1457
}

// ParseJudgments reads the labels as the reference does: numbered
// judgments when every step has one, else the first whole words GOOD or
// BAD.
func ExampleParseJudgments() {
	fmt.Println(attribution.ParseJudgments("Step 0 Judgment: GOOD\nStep 1 Judgment: bad", 2))
	fmt.Println(attribution.ParseJudgments("Step 0 Judgment: **GOOD**\nStep 1 Judgment: **BAD**", 2))
	_, err := attribution.ParseJudgments("Step 1 Judgment: GOOD\nStep 2 Judgment: BAD", 2)
	fmt.Println(err)
	// Output:
	// [true false] <nil>
	// [true false] <nil>
	// attribution: cannot parse step judgments: judged steps are not numbered 0 to K-1 (no judgment of step 0)
}
