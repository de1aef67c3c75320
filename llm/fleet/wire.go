package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/llm/openai"
)

// chatRequest is the body of POST /chat/completions. Log-probabilities
// and token ids are always asked for: training needs the exact tokens.
type chatRequest struct {
	Model       string                 `json:"model"`
	Messages    []agentevolver.Message `json:"messages"`
	Temperature *float64               `json:"temperature,omitempty"`
	TopP        float64                `json:"top_p,omitempty"`
	TopK        int                    `json:"top_k,omitempty"`
	MaxTokens   int                    `json:"max_tokens,omitempty"`
	Stop        []string               `json:"stop,omitempty"`
	Seed        *int64                 `json:"seed,omitempty"`
	LogProbs    bool                   `json:"logprobs"`
	TopLogProbs int                    `json:"top_logprobs"`
	// ReturnTokensAsTokenIDs is vLLM's switch that writes each token of
	// the log-probs as "token_id:<id>".
	ReturnTokensAsTokenIDs bool `json:"return_tokens_as_token_ids"`
}

// requestBody encodes a chat request naming model.
func (f *Fleet) requestBody(messages []agentevolver.Message, opts llm.ChatOptions, model string) ([]byte, error) {
	req := chatRequest{
		Model: model, Messages: messages, Temperature: opts.Temperature, TopP: opts.TopP, TopK: opts.TopK,
		MaxTokens: opts.MaxTokens, Stop: opts.Stop, Seed: opts.Seed,
		LogProbs: true, TopLogProbs: 0, ReturnTokensAsTokenIDs: true,
	}
	raw, err := json.Marshal(req)
	if err != nil || len(f.cfg.ExtraBody) == 0 {
		return raw, err
	}
	var all map[string]any
	if err := json.Unmarshal(raw, &all); err != nil {
		return nil, err
	}
	for k, v := range f.cfg.ExtraBody {
		all[k] = v
	}
	return json.Marshal(all)
}

// chatResponse is the part of a chat completion this package reads.
type chatResponse struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Message      json.RawMessage `json:"message"`
		FinishReason string          `json:"finish_reason"`
		LogProbs     *struct {
			Content []struct {
				Token   string   `json:"token"`
				LogProb *float64 `json:"logprob"`
			} `json:"content"`
		} `json:"logprobs"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// send posts a chat request to s and returns the completion and the model
// its reply names.
func (f *Fleet) send(ctx context.Context, s *server, body []byte) (llm.Completion, string, error) {
	ctx, cancel := context.WithTimeout(ctx, f.cfg.RequestTimeout)
	defer cancel()
	data, err := f.do(ctx, s, "POST", "/chat/completions", bytes.NewReader(body))
	if err != nil {
		return llm.Completion{}, "", err
	}
	comp, model, err := decodeCompletion(data, f.cfg.VocabSize)
	if err != nil {
		return llm.Completion{}, "", fmt.Errorf("%s: %w", s.base, err)
	}
	return comp, model, nil
}

// maxLogProb is the largest log-probability accepted: 0, with room for
// rounding.
const maxLogProb = 1e-4

// decodeCompletion reads a chat completion body: the first choice's
// message, and its tokens as ids ("token_id:<id>", each below vocab when
// vocab > 0) with finite log-probabilities. Anything else is
// ErrMalformedResponse.
func decodeCompletion(data []byte, vocab int) (llm.Completion, string, error) {
	var resp chatResponse
	if err := json.Unmarshal(data, &resp); err != nil {
		return llm.Completion{}, "", fmt.Errorf("%w: %w", ErrMalformedResponse, err)
	}
	if resp.Model == "" {
		return llm.Completion{}, "", fmt.Errorf("%w: the reply names no model", ErrMalformedResponse)
	}
	if len(resp.Choices) == 0 {
		return llm.Completion{}, "", fmt.Errorf("%w: no choices", ErrMalformedResponse)
	}
	ch := resp.Choices[0]
	var msg agentevolver.Message
	if len(bytes.TrimSpace(ch.Message)) == 0 || json.Unmarshal(ch.Message, &msg) != nil {
		return llm.Completion{}, "", fmt.Errorf("%w: the choice has no message", ErrMalformedResponse)
	}
	if msg.Role == "" {
		msg.Role = agentevolver.RoleAssistant
	}
	if len(msg.ToolCalls) == 0 {
		msg.ToolCalls = nil
	}
	if ch.LogProbs == nil {
		return llm.Completion{}, "", fmt.Errorf("%w: no log-probabilities (the server must return logprobs with return_tokens_as_token_ids)", ErrMalformedResponse)
	}
	comp := llm.Completion{Message: msg, FinishReason: ch.FinishReason, RequestID: resp.ID}
	if resp.Usage != nil {
		comp.PromptTokens, comp.CompletionTokens = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	}
	n := len(ch.LogProbs.Content)
	comp.TokenIDs, comp.LogProbs = make([]int, n), make([]float64, n)
	for i, e := range ch.LogProbs.Content {
		id, ok := openai.ParseTokenID(e.Token)
		if !ok {
			return llm.Completion{}, "", fmt.Errorf("%w: token %d is %q, not token_id:<id> (set return_tokens_as_token_ids)", ErrMalformedResponse, i, truncate(e.Token, 32))
		}
		if vocab > 0 && id >= vocab {
			return llm.Completion{}, "", fmt.Errorf("%w: token %d has id %d, outside the vocabulary of %d", ErrMalformedResponse, i, id, vocab)
		}
		if e.LogProb == nil || math.IsNaN(*e.LogProb) || math.IsInf(*e.LogProb, 0) || *e.LogProb > maxLogProb {
			return llm.Completion{}, "", fmt.Errorf("%w: token %d has no valid log-probability", ErrMalformedResponse, i)
		}
		comp.TokenIDs[i], comp.LogProbs[i] = id, min(*e.LogProb, 0)
	}
	return comp, resp.Model, nil
}
