package agentevolver_test

import (
	"encoding/json"
	"fmt"

	"github.com/org/agentevolver"
)

// Messages decode from the OpenAI wire format, including tool calls whose
// arguments arrive as an object instead of a string.
func ExampleMessage() {
	var m agentevolver.Message
	_ = json.Unmarshal([]byte(`{"role":"assistant","content":null,
		"tool_calls":[{"type":"function","function":{"name":"contacts.find","arguments":{"name":"Ann"}}}]}`), &m)
	fmt.Println(m.Role, m.ToolCalls[0].Function.Name, m.ToolCalls[0].Function.Arguments)
	// Output: assistant contacts.find {"name":"Ann"}
}

// NewReward packages an episode score as the reference agent flow does.
func ExampleNewReward() {
	r := agentevolver.NewReward(1, "", 0)
	fmt.Println(r.Outcome, r.SuccessRate, r.Success(), r.Description)
	// Output: 1 1 true Outcome 1 = success, 0 = failure.
}
