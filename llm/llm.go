package llm

import (
	"context"

	"github.com/org/agentevolver"
)

// ChatModel is a chat-completion language model: a remote OpenAI-compatible
// endpoint or the in-process policy. Implementations are safe for concurrent
// use.
type ChatModel interface {
	Chat(ctx context.Context, messages []agentevolver.Message, opts ChatOptions) (Completion, error)
}

// ChatOptions are the sampling settings of one request. Zero values mean the
// model's defaults, except where a field says otherwise.
type ChatOptions struct {
	// Temperature; nil means the model's default, 0 means greedy decoding.
	Temperature *float64
	// TopP nucleus mass; 0 means 1 (disabled).
	TopP float64
	// TopK keeps the k most likely tokens; 0 means disabled.
	TopK int
	// MaxTokens bounds the completion length; 0 means the model's default.
	MaxTokens int
	// Stop strings end the completion.
	Stop []string
	// Seed makes sampling reproducible where the model supports it; nil
	// means unseeded.
	Seed *int64
	// LogProbs asks for per-token log-probabilities and token ids where the
	// model can return them.
	LogProbs bool
}

// Completion is a model's answer.
type Completion struct {
	// Message is the assistant message.
	Message agentevolver.Message
	// TokenIDs are the ids of the generated tokens, when known. A policy that
	// reports them lets the trainer use them exactly, without re-tokenising.
	TokenIDs []int
	// LogProbs are the log-probabilities of TokenIDs under the sampling
	// distribution, when known.
	LogProbs []float64
	// FinishReason is "stop", "length", "tool_calls" or model specific.
	FinishReason string
	// PromptTokens and CompletionTokens are usage counts, when known.
	PromptTokens, CompletionTokens int
	// RequestID identifies the request at the server, when known.
	RequestID string
}

// Float returns a pointer to v, for ChatOptions.Temperature.
func Float(v float64) *float64 { return &v }
