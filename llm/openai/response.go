package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// Finish reasons with a meaning for this package.
const (
	finishContentFilter = "content_filter"
)

// decodeCompletion turns a non-streaming chat-completions response body into
// a Completion. The first choice is used.
func decodeCompletion(body []byte) (llm.Completion, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return llm.Completion{}, fmt.Errorf("%w: empty body", ErrMalformedResponse)
	}
	var resp oai.ChatCompletion
	if err := json.Unmarshal(body, &resp); err != nil {
		return llm.Completion{}, fmt.Errorf("%w: %w", ErrMalformedResponse, err)
	}
	if len(resp.Choices) == 0 || !resp.JSON.Choices.Valid() {
		// Some servers answer an error with status 200.
		if apiErr := errorInBody(body); apiErr != nil {
			return llm.Completion{}, apiErr
		}
		return llm.Completion{}, fmt.Errorf("%w: no choices", ErrMalformedResponse)
	}
	choice := resp.Choices[0]
	msg, err := decodeMessage(choice.Message.RawJSON())
	if err != nil {
		return llm.Completion{}, err
	}
	c := llm.Completion{
		Message:          msg,
		FinishReason:     choice.FinishReason,
		PromptTokens:     int(resp.Usage.PromptTokens),
		CompletionTokens: int(resp.Usage.CompletionTokens),
		RequestID:        resp.ID,
	}
	if choice.JSON.Logprobs.Valid() {
		c.TokenIDs, c.LogProbs, err = tokenLogProbs(choice.Logprobs.Content)
		if err != nil {
			return llm.Completion{}, err
		}
	}
	return c, refusal(c, choice.Message.Refusal)
}

// errorInBody returns the error a 200 body or stream chunk carries instead
// of choices ({"error": {...}} or vLLM's {"object": "error", ...}), or nil.
func errorInBody(body []byte) *APIError {
	var probe struct {
		Object string          `json:"object"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &probe) != nil {
		return nil
	}
	if probe.Object != "error" && (len(probe.Error) == 0 || bytes.Equal(probe.Error, []byte("null"))) {
		return nil
	}
	return inBodyError(body)
}

// decodeMessage decodes a response message with agentevolver.Message's
// lenient decoder: content may be null or a list of parts, tool-call
// arguments a string or an object.
func decodeMessage(raw string) (agentevolver.Message, error) {
	var msg agentevolver.Message
	if strings.TrimSpace(raw) == "" {
		return msg, fmt.Errorf("%w: choice without a message", ErrMalformedResponse)
	}
	if err := json.Unmarshal([]byte(raw), &msg); err != nil {
		return msg, fmt.Errorf("%w: message: %w", ErrMalformedResponse, err)
	}
	if msg.Role == "" {
		msg.Role = agentevolver.RoleAssistant
	}
	if len(msg.ToolCalls) == 0 {
		msg.ToolCalls = nil // vLLM sends "tool_calls": []
	}
	return msg, nil
}

// refusal returns the RefusalError c stands for, or nil.
func refusal(c llm.Completion, refusalText string) error {
	switch {
	case c.FinishReason == finishContentFilter:
		return &RefusalError{Reason: ErrContentFiltered, Refusal: refusalText, Completion: c}
	case refusalText != "":
		return &RefusalError{Reason: ErrRefused, Refusal: refusalText, Completion: c}
	}
	return nil
}

// tokenLogProbs extracts the sampled tokens' log-probabilities and, when
// every token is written as "token_id:<id>" (vLLM with
// return_tokens_as_token_ids), their ids. Otherwise ids is nil. A missing or
// non-numeric log-probability is an error: silently zero values would corrupt
// training.
func tokenLogProbs(entries []oai.ChatCompletionTokenLogprob) (ids []int, logProbs []float64, err error) {
	if len(entries) == 0 {
		return nil, nil, nil
	}
	logProbs = make([]float64, len(entries))
	ids = make([]int, len(entries))
	for i, e := range entries {
		lp, err := logProbValue(e.Logprob, e.JSON.Logprob)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: token %d: %w", ErrMalformedResponse, i, err)
		}
		logProbs[i] = lp
		if ids != nil {
			id, ok := ParseTokenID(e.Token)
			if ok {
				ids[i] = id
			} else {
				ids = nil
			}
		}
	}
	return ids, logProbs, nil
}

// logProbValue validates one log-probability. Values are kept as sent:
// servers write -inf as a large negative number (vLLM: -9999.0).
func logProbValue(v float64, field respjson.Field) (float64, error) {
	if !field.Valid() {
		return 0, fmt.Errorf("log-probability %q is not a number", truncate(field.Raw(), 32))
	}
	if math.IsNaN(v) {
		return 0, fmt.Errorf("log-probability is NaN")
	}
	return v, nil
}

// TokenIDPrefix starts a token written as its id, which vLLM does when a
// request sets return_tokens_as_token_ids.
const TokenIDPrefix = "token_id:"

// ParseTokenID parses a token written as "token_id:<id>" and reports whether
// s had that form with a non-negative id that fits in 32 bits.
func ParseTokenID(s string) (int, bool) {
	digits, ok := strings.CutPrefix(s, TokenIDPrefix)
	if !ok || digits == "" || len(digits) > 10 {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	id, err := strconv.ParseUint(digits, 10, 31)
	if err != nil {
		return 0, false
	}
	return int(id), true
}
