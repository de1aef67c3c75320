package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/internal/jsonscan"
)

// FinalAnswerTool is the name of the pseudo-tool that ends an episode with
// a final answer: {"name": "final_answer", "arguments": {"answer": "..."}}.
// The system prompt lists it with the server's tools; a server tool of the
// same name is refused by New.
const FinalAnswerTool = "final_answer"

// MaxActionBytes bounds an action (content plus structured tool calls);
// larger actions are answered with an error observation unparsed.
const MaxActionBytes = 64 << 10

// MaxCallsPerAction bounds the structured tool calls of one action.
const MaxCallsPerAction = 8

// maxJSONAttempts bounds how many '{' of one action are tried as the start
// of a JSON call.
const maxJSONAttempts = 32

// ParsedCall is one tool call read from an action. Err, when set, says for
// the agent what was wrong with it (unreadable arguments); the call is then
// not run.
type ParsedCall struct {
	// ID is the OpenAI tool call id, "" for a call written in the content.
	ID        string
	Name      string
	Arguments map[string]any
	Err       error
}

// ErrNoCall reports an action without any tool call.
var ErrNoCall = errors.New("no tool call found")

// ParseAction reads the tool calls of an assistant message: its structured
// Message.ToolCalls when it has any (the content is then ignored, as it is
// the model's commentary), else exactly one JSON object
// {"name": ..., "arguments": {...}} in the content, bare, in a fenced
// ```json block or in <tool_call> tags ("parameters" is accepted for
// "arguments", and arguments may be a JSON string holding the object). The
// error, an observation for the agent, reports an action that is too long,
// has no call or several calls in its content, or a call that is not
// valid JSON; a structured call with unreadable arguments is returned with
// its own Err so that the other calls of the action still run.
func ParseAction(action agentevolver.Message) ([]ParsedCall, error) {
	size := len(action.Content)
	for _, tc := range action.ToolCalls {
		size += len(tc.Function.Name) + len(tc.Function.Arguments)
	}
	if size > MaxActionBytes {
		return nil, fmt.Errorf("the action is longer than %d bytes", MaxActionBytes)
	}
	if len(action.ToolCalls) > 0 {
		if len(action.ToolCalls) > MaxCallsPerAction {
			return nil, fmt.Errorf("%d tool calls in one action; send at most %d", len(action.ToolCalls), MaxCallsPerAction)
		}
		calls := make([]ParsedCall, len(action.ToolCalls))
		for i, tc := range action.ToolCalls {
			args, err := parseArguments([]byte(tc.Function.Arguments))
			calls[i] = ParsedCall{ID: tc.ID, Name: strings.TrimSpace(tc.Function.Name), Arguments: args, Err: err}
		}
		return calls, nil
	}
	call, err := findJSONCall(action.Content)
	if err != nil {
		return nil, err
	}
	return []ParsedCall{call}, nil
}

// parseArguments decodes arguments: a JSON object, a JSON string holding
// one, or nothing (no arguments).
func parseArguments(raw []byte) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var inner string
		if err := json.Unmarshal(raw, &inner); err != nil {
			return nil, fmt.Errorf("the arguments are not valid JSON: %v", err)
		}
		raw = bytes.TrimSpace([]byte(inner))
	}
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil {
		return nil, fmt.Errorf("the arguments must be a JSON object: %v", err)
	}
	if dec.More() {
		return nil, errors.New("the arguments must be a single JSON object")
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, nil
}

// findJSONCall looks for exactly one JSON call object in free text.
func findJSONCall(s string) (ParsedCall, error) {
	var calls []ParsedCall
	badJSON := jsonscan.Objects(s, maxJSONAttempts, func(obj map[string]json.RawMessage) {
		rawName, ok := obj["name"]
		var name string
		if !ok || json.Unmarshal(rawName, &name) != nil {
			return
		}
		args, ok := obj["arguments"]
		if !ok {
			args = obj["parameters"]
		}
		parsed, err := parseArguments(args)
		calls = append(calls, ParsedCall{Name: strings.TrimSpace(name), Arguments: parsed, Err: err})
	})
	switch {
	case len(calls) > 1:
		return ParsedCall{}, fmt.Errorf("%d tool calls found in the text; write exactly one JSON call per message, or use structured tool calls", len(calls))
	case len(calls) == 1:
		if calls[0].Err != nil {
			return ParsedCall{}, calls[0].Err
		}
		return calls[0], nil
	case badJSON != "":
		return ParsedCall{}, fmt.Errorf("the tool call is not valid JSON (%s); write {\"name\": \"tool\", \"arguments\": {...}}", badJSON)
	}
	return ParsedCall{}, fmt.Errorf("%w; write {\"name\": \"tool\", \"arguments\": {...}} in a ```json block, or call %s to answer", ErrNoCall, FinalAnswerTool)
}

// CallMessage renders a call as the assistant message the Expert
// demonstrates: one fenced JSON block.
func CallMessage(name string, args map[string]any) agentevolver.Message {
	if args == nil {
		args = map[string]any{}
	}
	n, _ := json.Marshal(name)
	a, _ := json.Marshal(args)
	return agentevolver.Message{Role: agentevolver.RoleAssistant,
		Content: "```json\n{\"name\": " + string(n) + ", \"arguments\": " + string(a) + "}\n```"}
}
