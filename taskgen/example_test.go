package taskgen_test

import (
	"fmt"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/taskgen"
)

// A summariser's answer becomes independent synthetic objectives; the
// realtime filter then keeps the most confident of near-duplicate queries.
func Example() {
	seed := agentevolver.Task{TaskID: "contacts-3", EnvType: "toolworld"}
	answer := `Two tasks:
<task>
{"query": "What is Ann's  phone number", "confidence": 0.7, "action_sequence": "contacts.search name=Ann"}
</task>
<task>
{"query": "what is ann's phone number", "confidence": 0.9, "action_sequence": "contacts.search name=Ann"}
</task>
<task>
{"query": "Move Bob's meeting to Friday", "confidence": 0.8, "action_sequence": "calendar.find who=Bob; calendar.move day=fri"}
</task>`
	objs := taskgen.ParseTaskBlocks(answer, seed)
	for _, o := range taskgen.FilterRealtime(objs) {
		fmt.Printf("%.1f %s %q (%s)\n", *o.Confidence, o.Task.TaskID, o.Task.Query, o.Task.Evaluator)
	}
	// Output:
	// 0.9 contacts-3 "what is ann's phone number" (synthetic)
	// 0.8 contacts-3 "Move Bob's meeting to Friday" (synthetic)
}

// The summarisation request lists the objectives already accepted for the
// seed task and never shows the exploration prompt or the explorer's first
// turn.
func ExampleSummaryMessages() {
	var memory taskgen.ObjectiveMemory
	memory.Add(agentevolver.TaskObjective{Task: agentevolver.Task{TaskID: "t1", Query: "Pay Bob $5"}})
	steps := []agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: "You operate a bank."},
		{Role: agentevolver.RoleUser, Content: taskgen.ExplorationSystemPrompt(nil, "How much money do I have?")},
		{Role: agentevolver.RoleAssistant, Content: "I will check how much money the user has: bank.balance"},
		{Role: agentevolver.RoleUser, Content: "balance: 42"},
		{Role: agentevolver.RoleAssistant, Content: "bank.history"},
		{Role: agentevolver.RoleUser, Content: "paid Bob 5"},
	}
	msgs := taskgen.SummaryMessages(taskgen.SummaryInput{Steps: steps, OldObjectives: memory.Queries("t1")})
	user := msgs[1].Content
	record := user[strings.Index(user, "## Record 0"):strings.Index(user, "# Old Objectives")]
	fmt.Println(strings.TrimSpace(record))
	fmt.Println(strings.Contains(user, "How much money"), strings.Contains(user, "['Pay Bob $5']"))
	// Output:
	// ## Record 0
	// ### History
	// >>> STEP 0 <<<
	// <|ACTION|>
	// [MASKED]
	// <|END|>
	//
	// <|OBSERVATION|>
	// balance: 42
	// <|END|>
	// >>> STEP 1 <<<
	// <|ACTION|>
	// bank.history
	// <|END|>
	//
	// <|OBSERVATION|>
	// paid Bob 5
	// <|END|>
	// false true
}

// A seeded mixture is the same on every call: here all the original tasks
// plus half as many synthetic ones, shuffled.
func ExampleUnifiedMixtureStrategy() {
	original := []agentevolver.Task{{TaskID: "o1"}, {TaskID: "o2"}, {TaskID: "o3"}, {TaskID: "o4"}}
	synthetic := []agentevolver.Task{{TaskID: "s1"}, {TaskID: "s2"}, {TaskID: "s3"}}
	seed := int64(42)
	mix := taskgen.UnifiedMixtureStrategy{UseOriginal: true, SyntheticRatio: 0.5, Shuffle: true, Seed: &seed}
	a, err := mix.Mix(synthetic, original)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := mix.Mix(synthetic, original)
	fmt.Println(len(a), mix.NeedSynthetic(), fmt.Sprint(a) == fmt.Sprint(b))
	// Output: 6 true true
}

// A profile renders as the markdown the prompts embed.
func ExampleInstruction() {
	p, err := taskgen.ParseProfile([]byte(`{
	  "name": "Ann", "background": "Keeps a small address book.",
	  "entities": [{"name": "contacts", "description": "People and their numbers.",
	                "attrs": {"phone": "A phone number.", "name": "A full name."},
	                "opts": [{"name": "search", "description": "Find a contact by name."}]}],
	  "task_preference": {"num_entities": 1, "num_opts": 2, "relation_difficulty": 2}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(taskgen.Instruction(p))
	// Output:
	// ### Environment Overview
	// - **User Name**: Ann
	// - **User Background**: Keeps a small address book.
	//
	// ### Entities in the Environment
	// #### Entity: contacts
	// - Description: People and their numbers.
	// - Attributes:
	//   - **name**: A full name.
	//   - **phone**: A phone number.
	// - Available Operations:
	//   - **search**: Find a contact by name.
	//
	// ### Task Preferences
	// The task should involve the following characteristics:
	// - **Average number of entities involved**: 1
	// - **Average number of operations involved**: 2
	// - **Relation difficulty**: Medium: Involves multiple entities or attributes, but operations are independent of each other. No prerequisite conditions or sequential dependencies.
}
