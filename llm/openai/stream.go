package openai

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// maxStreamToolCalls bounds the tool-call index a stream may use, so a
// hostile index cannot make the assembler allocate without limit.
const maxStreamToolCalls = 256

// sseMaxLine is the longest line the SDK's server-sent-events decoder
// accepts (its bufio.Scanner buffer, openai-go v3); a longer one fails with
// bufio.ErrTooLong, reported as ErrResponseTooLarge.
const sseMaxLine = bufio.MaxScanTokenSize << 9

// errIncompleteStream is the cause of a stream that ended, without an error,
// before any choice finished: the connection was most likely cut at an event
// boundary, so incompleteStream reports it as a transport failure, which is
// retried. It matches ErrMalformedResponse too.
var errIncompleteStream = fmt.Errorf("%w: stream ended before a finish reason", ErrMalformedResponse)

// incompleteStream returns a fresh *TransportError for errIncompleteStream.
func incompleteStream() error { return &TransportError{Err: errIncompleteStream} }

// chunkStream is what readStream consumes: *ssestream.Stream of chunks.
type chunkStream interface {
	Next() bool
	Current() oai.ChatCompletionChunk
	Err() error
	Close() error
}

// readStream drains a chat-completion stream and assembles its completion.
func readStream(s chunkStream) (llm.Completion, error) {
	defer s.Close()
	var a assembler
	for s.Next() {
		if err := a.add(s.Current()); err != nil {
			return llm.Completion{}, err
		}
	}
	if err := s.Err(); err != nil {
		return llm.Completion{}, streamError(err)
	}
	return a.completion()
}

// streamError classifies an error that ended a stream: an error event
// becomes an in-body APIError, undecodable chunk JSON a malformed response,
// an over-long line ErrResponseTooLarge; transport errors pass through for
// the attempt to type (see transportError).
func streamError(err error) error {
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		return inBodyError(se.Event.Data)
	}
	if errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("%w: a stream line longer than %d bytes (%w)", ErrResponseTooLarge, sseMaxLine, err)
	}
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) {
		return fmt.Errorf("%w: stream chunk: %w", ErrMalformedResponse, err)
	}
	return err
}

// assembler accumulates the chunks of choice 0.
type assembler struct {
	id           string
	role         string
	content      strings.Builder
	refusal      strings.Builder
	toolCalls    []agentevolver.ToolCall
	logProbs     []oai.ChatCompletionTokenLogprob
	sawLogProbs  bool
	finishReason string
	usage        oai.CompletionUsage
	chunks       int
}

// add folds one chunk into the completion.
func (a *assembler) add(chunk oai.ChatCompletionChunk) error {
	a.chunks++
	if a.id == "" {
		a.id = chunk.ID
	}
	if chunk.JSON.Usage.Valid() {
		a.usage = chunk.Usage
	}
	if len(chunk.Choices) == 0 {
		// vLLM sends errors as {"object": "error", ...} chunks.
		if apiErr := errorInBody([]byte(chunk.RawJSON())); apiErr != nil {
			return apiErr
		}
		return nil
	}
	for _, choice := range chunk.Choices {
		if choice.Index != 0 {
			continue
		}
		d := choice.Delta
		if d.Role != "" {
			a.role = d.Role
		}
		a.content.WriteString(d.Content)
		a.refusal.WriteString(d.Refusal)
		for _, tc := range d.ToolCalls {
			if err := a.addToolCall(tc); err != nil {
				return err
			}
		}
		if choice.JSON.Logprobs.Valid() {
			a.sawLogProbs = true
			a.logProbs = append(a.logProbs, choice.Logprobs.Content...)
		}
		if choice.FinishReason != "" {
			a.finishReason = choice.FinishReason
		}
	}
	return nil
}

// addToolCall merges a tool-call delta: the first chunk of a call brings its
// id, type and name, later ones append argument text.
func (a *assembler) addToolCall(d oai.ChatCompletionChunkChoiceDeltaToolCall) error {
	if d.Index < 0 || d.Index >= maxStreamToolCalls {
		return fmt.Errorf("%w: tool call index %d", ErrMalformedResponse, d.Index)
	}
	if n := int(d.Index) + 1; n > len(a.toolCalls) {
		a.toolCalls = slices.Grow(a.toolCalls, n-len(a.toolCalls))[:n]
	}
	tc := &a.toolCalls[d.Index]
	if tc.ID == "" {
		tc.ID = d.ID
	}
	if tc.Type == "" {
		tc.Type = d.Type
	}
	if tc.Function.Name == "" {
		tc.Function.Name = d.Function.Name
	}
	tc.Function.Arguments += argumentsText(d.Function.Arguments, d.Function.JSON.Arguments)
	return nil
}

// argumentsText returns tool-call arguments as text, also when a server sent
// them as a JSON object rather than a string.
func argumentsText(s string, field respjson.Field) string {
	if field.Valid() || field.Raw() == "" || field.Raw() == "null" {
		return s
	}
	var f agentevolver.FunctionCall
	if json.Unmarshal([]byte(`{"arguments":`+field.Raw()+`}`), &f) == nil {
		return f.Arguments
	}
	return s
}

// completion returns the assembled completion, or why there is none.
func (a *assembler) completion() (llm.Completion, error) {
	if a.chunks == 0 {
		return llm.Completion{}, fmt.Errorf("%w: stream had no chunks", ErrMalformedResponse)
	}
	if a.finishReason == "" {
		return llm.Completion{}, incompleteStream()
	}
	role := a.role
	if role == "" {
		role = agentevolver.RoleAssistant
	}
	c := llm.Completion{
		Message: agentevolver.Message{
			Role:    role,
			Content: a.content.String(),
			// A gap in the tool-call indices leaves an empty entry behind.
			ToolCalls: slices.DeleteFunc(a.toolCalls, isEmptyToolCall),
		},
		FinishReason:     a.finishReason,
		PromptTokens:     int(a.usage.PromptTokens),
		CompletionTokens: int(a.usage.CompletionTokens),
		RequestID:        a.id,
	}
	if len(c.Message.ToolCalls) == 0 {
		c.Message.ToolCalls = nil
	}
	if a.sawLogProbs {
		var err error
		c.TokenIDs, c.LogProbs, err = tokenLogProbs(a.logProbs)
		if err != nil {
			return llm.Completion{}, err
		}
	}
	return c, refusal(c, a.refusal.String())
}

func isEmptyToolCall(tc agentevolver.ToolCall) bool {
	return tc.ID == "" && tc.Function.Name == "" && tc.Function.Arguments == ""
}
