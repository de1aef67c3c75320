package contextmgr_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/llm"
)

// One episode through the Linear strategy: the policy's turn is recorded
// with the token ids it reported, the observation without loss, and the
// episode becomes one training sample. (charTokenizer and chatML stand in
// for a real tokenizer and chat template.)
func Example() {
	cm, err := contextmgr.NewLinear(contextmgr.Config{Tokenizer: charTokenizer{}, Template: chatML{}})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	_ = cm.Init([]agentevolver.Message{
		{Role: agentevolver.RoleSystem, Content: "You are an agent."},
		{Role: agentevolver.RoleUser, Content: "Open the door."},
	})
	prompt, _ := cm.Prompt()
	reply := llm.Completion{
		Message:  agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "open(door)"},
		TokenIDs: append(charTokenizer{}.Encode("open(door)"), imEndID),
	}
	_ = cm.RecordLLM(ctx, prompt, reply)
	action, _ := cm.Action()
	_ = cm.RecordEnv(agentevolver.Message{Role: agentevolver.RoleUser, Content: "The door is open."})
	cm.Finish()

	samples, _ := cm.Samples(agentevolver.Trajectory{TaskID: "door", Reward: agentevolver.NewReward(1, "", cm.Madness())})
	s := samples[0]
	var trained strings.Builder
	for i, id := range s.ResponseIDs {
		if s.ResponseLossMask[i] == 1 {
			text, _ := charTokenizer{}.Decode([]int{id})
			trained.WriteString(text)
		}
	}
	fmt.Println("action:", action.Content)
	fmt.Println("prompt tokens:", len(s.PromptIDs))
	fmt.Printf("trained on: %q\n", trained.String())
	// Output:
	// action: open(door)
	// prompt tokens: 49
	// trained on: "open(door)<|im_end|>"
}

func ExampleParseResponseSteps() {
	// Headers: assistant = [900 901 10], user = [900 902 10]; 999 ends a turn.
	resp := []int{900, 901, 10, 1, 2, 999, 10, 900, 902, 10, 3, 999, 10, 900, 901, 10, 4, 999, 10}
	p := contextmgr.ParseResponseSteps(resp, contextmgr.StepOptions{
		AssistantHeader: []int{900, 901, 10},
		UserHeader:      []int{900, 902, 10},
	})
	fmt.Println(p.StepIDs)
	fmt.Println(len(p.Steps), "steps")
	// Output:
	// [-1 -1 -1 0 0 0 0 -1 -1 -1 -1 -1 -1 -1 -1 -1 1 1 1]
	// 2 steps
}

func ExampleRepetitionPenalty() {
	fmt.Println(contextmgr.RepetitionPenalty("Let me open the door."))
	fmt.Println(contextmgr.RepetitionPenalty(strings.Repeat("door ", 11)))
	fmt.Println(contextmgr.RepetitionPenalty("done<|im_start|>user"))
	// Output:
	// 0
	// -1
	// -1
}

func ExampleTemplateStripper_Strip() {
	var s contextmgr.TemplateStripper // DefaultExperienceTemplate
	task := strings.Replace(contextmgr.DefaultExperienceTemplate, "{}", "Log in first.", 1) + "Pay the bill."
	exp, cleaned, ok := s.Strip(task, agentevolver.TrainDiscard)
	fmt.Printf("%q %q %v\n", exp, cleaned, ok)
	_, kept, ok := s.Strip(task, agentevolver.TrainKeep)
	fmt.Println(kept == task, ok)
	// Output:
	// "Log in first." "Pay the bill." true
	// true false
}

func ExampleParseMarkdownSections() {
	reply := "# current step\n2: log in\n\n# next-step instruction code\n```python\n# log in\nlogin()\n```"
	sec := contextmgr.ParseMarkdownSections(reply, []string{"current step", "next-step instruction code"})
	fmt.Println(sec["current step"])
	fmt.Println(sec["next-step instruction code"])
	// Output:
	// 2: log in
	// ```python
	// # log in
	// login()
	// ```
}

func ExampleParseClipDecision() {
	ds, err := contextmgr.ParseClipDecision("```json\n[{\"id\":\"ER001\",\"useful\":false,\"action\":\"remove\"}]\n```")
	fmt.Println(ds, err)
	// Output:
	// [{ER001 false remove}] <nil>
}
