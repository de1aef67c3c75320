package llm

import (
	"context"
	"errors"
	"sync"

	"github.com/org/agentevolver"
)

// ErrScriptExhausted reports a call to a Scripted model past its last
// message.
var ErrScriptExhausted = errors.New("llm: the script has no more messages")

// Scripted is a ChatModel that replays fixed assistant messages, one per
// call, whatever the conversation: an expert's demonstration played
// through the same episode code a policy uses (warm starts, pretraining
// corpora). It is safe for concurrent use.
type Scripted struct {
	mu       sync.Mutex
	messages []agentevolver.Message
	next     int
}

// NewScripted returns a Scripted model replaying messages in order.
func NewScripted(messages []agentevolver.Message) *Scripted {
	return &Scripted{messages: messages}
}

// Chat returns the next message, or ErrScriptExhausted after the last.
func (s *Scripted) Chat(context.Context, []agentevolver.Message, ChatOptions) (Completion, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next >= len(s.messages) {
		return Completion{}, ErrScriptExhausted
	}
	m := s.messages[s.next]
	s.next++
	return Completion{Message: m, FinishReason: "stop"}, nil
}
