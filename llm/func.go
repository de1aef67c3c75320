package llm

import (
	"context"

	"github.com/org/agentevolver"
)

// ChatModelFunc adapts a function to the ChatModel interface. It is safe for
// concurrent use when the function is.
type ChatModelFunc func(ctx context.Context, messages []agentevolver.Message, opts ChatOptions) (Completion, error)

// Chat calls f.
func (f ChatModelFunc) Chat(ctx context.Context, messages []agentevolver.Message, opts ChatOptions) (Completion, error) {
	return f(ctx, messages, opts)
}
