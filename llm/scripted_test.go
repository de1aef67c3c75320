package llm_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// A scripted model replays a demonstration, one message per call.
func ExampleScripted() {
	m := llm.NewScripted([]agentevolver.Message{{Role: "assistant", Content: "first"}, {Role: "assistant", Content: "second"}})
	for range 3 {
		c, err := m.Chat(context.Background(), nil, llm.ChatOptions{})
		if errors.Is(err, llm.ErrScriptExhausted) {
			fmt.Println("exhausted")
			continue
		}
		fmt.Println(c.Message.Content, c.FinishReason)
	}
	// Output:
	// first stop
	// second stop
	// exhausted
}
