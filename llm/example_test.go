package llm_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// A scripted model that shouts the last message back, used where a real model
// is not needed.
func ExampleChatModelFunc() {
	var model llm.ChatModel = llm.ChatModelFunc(func(ctx context.Context, messages []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
		last := messages[len(messages)-1].Content
		return llm.Completion{
			Message:      agentevolver.Message{Role: agentevolver.RoleAssistant, Content: strings.ToUpper(last)},
			FinishReason: "stop",
		}, nil
	})

	c, err := model.Chat(context.Background(),
		[]agentevolver.Message{{Role: agentevolver.RoleUser, Content: "hello"}},
		llm.ChatOptions{Temperature: llm.Float(0)})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Message.Role, c.Message.Content, c.FinishReason)
	// Output: assistant HELLO stop
}
