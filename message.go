package agentevolver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Message roles used across the SDK.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat message exchanged between an agent, its environment and
// a language model. It is the OpenAI chat message shape: environments send
// observations as user (or tool) messages and receive the agent's turn as an
// assistant message.
type Message struct {
	// Role is one of RoleSystem, RoleUser, RoleAssistant or RoleTool.
	Role string `json:"role"`
	// Content is the message text.
	Content string `json:"content"`
	// ToolCalls are the structured tool calls of an assistant message, if any.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID links a tool message to the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the optional participant or tool name.
	Name string `json:"name,omitempty"`
}

// ToolCall is an OpenAI-style function call requested by a model.
type ToolCall struct {
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names a function and carries its arguments as a JSON text, as
// the OpenAI wire format does.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// UnmarshalJSON accepts the arguments either as a JSON string (the OpenAI wire
// format) or as a JSON object, which several servers and models emit; an
// object is kept as its compact JSON text.
func (f *FunctionCall) UnmarshalJSON(data []byte) error {
	var raw struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	f.Name = raw.Name
	f.Arguments = ""
	args := bytes.TrimSpace(raw.Arguments)
	switch {
	case len(args) == 0 || bytes.Equal(args, []byte("null")):
	case args[0] == '"':
		if err := json.Unmarshal(args, &f.Arguments); err != nil {
			return fmt.Errorf("function call arguments: %w", err)
		}
	default:
		var buf bytes.Buffer
		if err := json.Compact(&buf, args); err != nil {
			return fmt.Errorf("function call arguments: %w", err)
		}
		f.Arguments = buf.String()
	}
	return nil
}

// UnmarshalJSON decodes a message. Besides a plain string, Content may be
// null or a list of OpenAI content parts; the text parts are concatenated.
func (m *Message) UnmarshalJSON(data []byte) error {
	type plain Message
	var raw struct {
		plain
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*m = Message(raw.plain)
	content, err := decodeContent(raw.Content)
	if err != nil {
		return fmt.Errorf("message content: %w", err)
	}
	m.Content = content
	return nil
}

func decodeContent(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", err
		}
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "" || p.Type == "text" {
				b.WriteString(p.Text)
			}
		}
		return b.String(), nil
	default:
		return "", fmt.Errorf("want a string or a list of content parts, got %.40s", raw)
	}
}
