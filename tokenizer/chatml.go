package tokenizer

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/org/agentevolver"
)

// Qwen25SystemPrompt is the system prompt the Qwen2.5 chat template renders
// when the messages do not start with a system message.
const Qwen25SystemPrompt = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."

// ChatML renders messages in the ChatML format of the Qwen family,
// reproducing the Jinja chat templates of tokenizer_config.json:
//
//	<|im_start|>system
//	You are a helpful assistant.<|im_end|>
//	<|im_start|>user
//	Hello<|im_end|>
//	<|im_start|>assistant
//
// With Reasoning unset it is the Qwen2.5 template, with Reasoning set the
// Qwen3 one. Use Qwen25ChatML and Qwen3ChatML for the released settings.
//
// Tool-call arguments are rendered as the dict a Hugging Face template
// expects (the JSON re-encoded as Python's json.dumps writes it), which is
// what vLLM passes after parsing the OpenAI string form; arguments that are
// not JSON are rendered as the templates render a string (raw by Qwen3,
// quoted by Qwen2.5).
type ChatML struct {
	// DefaultSystemPrompt is rendered as the system message when the first
	// message is not one (Qwen2.5). Empty: none is invented (Qwen3).
	DefaultSystemPrompt string
	// Reasoning enables the Qwen3 handling of <think> blocks: assistant
	// turns after the last user query keep their reasoning inside
	// "<think>\n...\n</think>\n\n" (the last turn always gets the block),
	// earlier ones are rendered without it, and
	// TemplateOptions.DisableThinking appends an empty block to the
	// generation prompt.
	Reasoning bool
}

// Qwen25ChatML returns the chat template of the Qwen2.5 instruct models.
func Qwen25ChatML() ChatML { return ChatML{DefaultSystemPrompt: Qwen25SystemPrompt} }

// Qwen3ChatML returns the chat template of the Qwen3 (hybrid thinking)
// models.
func Qwen3ChatML() ChatML { return ChatML{Reasoning: true} }

const (
	toolsPreamble = "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
		"You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
	toolsPostamble = "\n</tools>\n\nFor each function call, return a json object with function name and " +
		"arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n" +
		"{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n"
)

// Apply renders messages. It fails with ErrUnknownRole on a role other than
// system, user, assistant and tool (the Jinja templates silently drop such
// messages), and on tools or arguments that are not valid JSON where JSON is
// needed.
func (c ChatML) Apply(messages []agentevolver.Message, opts TemplateOptions) (string, error) {
	for i, m := range messages {
		switch m.Role {
		case agentevolver.RoleSystem, agentevolver.RoleUser, agentevolver.RoleAssistant, agentevolver.RoleTool:
		default:
			return "", fmt.Errorf("%w: message %d has role %q", ErrUnknownRole, i, m.Role)
		}
	}
	var b strings.Builder
	firstIsSystem := len(messages) > 0 && messages[0].Role == agentevolver.RoleSystem
	if err := c.writeHeader(&b, messages, firstIsSystem, opts.Tools); err != nil {
		return "", err
	}
	lastQuery := c.lastQueryIndex(messages)
	for i, m := range messages {
		switch {
		case m.Role == agentevolver.RoleUser || (m.Role == agentevolver.RoleSystem && i > 0):
			b.WriteString(IMStart + m.Role + "\n" + m.Content + IMEnd + "\n")
		case m.Role == agentevolver.RoleAssistant:
			if err := c.writeAssistant(&b, m, i > lastQuery, i == len(messages)-1); err != nil {
				return "", fmt.Errorf("message %d: %w", i, err)
			}
		case m.Role == agentevolver.RoleTool:
			if i == 0 || messages[i-1].Role != agentevolver.RoleTool {
				b.WriteString(IMStart + "user")
			}
			b.WriteString("\n" + ToolRespStart + "\n" + m.Content + "\n" + ToolRespEnd)
			if i == len(messages)-1 || messages[i+1].Role != agentevolver.RoleTool {
				b.WriteString(IMEnd + "\n")
			}
		}
	}
	if opts.AddGenerationPrompt {
		b.WriteString(IMStart + "assistant\n")
		if c.Reasoning && opts.DisableThinking {
			b.WriteString(ThinkStart + "\n\n" + ThinkEnd + "\n\n")
		}
	}
	return b.String(), nil
}

func (c ChatML) writeHeader(b *strings.Builder, messages []agentevolver.Message, firstIsSystem bool, tools []json.RawMessage) error {
	if len(tools) == 0 {
		switch {
		case firstIsSystem:
			b.WriteString(IMStart + "system\n" + messages[0].Content + IMEnd + "\n")
		case c.DefaultSystemPrompt != "":
			b.WriteString(IMStart + "system\n" + c.DefaultSystemPrompt + IMEnd + "\n")
		}
		return nil
	}
	b.WriteString(IMStart + "system\n")
	switch {
	case firstIsSystem:
		b.WriteString(messages[0].Content + "\n\n")
	case c.DefaultSystemPrompt != "":
		b.WriteString(c.DefaultSystemPrompt + "\n\n")
	}
	b.WriteString(toolsPreamble)
	for i, t := range tools {
		s, err := pythonJSON(string(t))
		if err != nil {
			return fmt.Errorf("tool %d: %w", i, err)
		}
		b.WriteString("\n" + s)
	}
	b.WriteString(toolsPostamble)
	return nil
}

// lastQueryIndex is the index of the last user message that is not a
// wrapped tool response; Qwen3 keeps the reasoning of the assistant turns
// after it. Without such a message it is the last index, as in the template.
func (c ChatML) lastQueryIndex(messages []agentevolver.Message) int {
	if !c.Reasoning {
		return len(messages) // no assistant turn is after it
	}
	for i := len(messages) - 1; i >= 0; i-- {
		m := messages[i]
		if m.Role == agentevolver.RoleUser &&
			!(strings.HasPrefix(m.Content, ToolRespStart) && strings.HasSuffix(m.Content, ToolRespEnd)) {
			return i
		}
	}
	return len(messages) - 1
}

func (c ChatML) writeAssistant(b *strings.Builder, m agentevolver.Message, afterLastQuery, last bool) error {
	if !c.Reasoning {
		// Qwen2.5.
		if len(m.ToolCalls) == 0 {
			b.WriteString(IMStart + m.Role + "\n" + m.Content + IMEnd + "\n")
			return nil
		}
		b.WriteString(IMStart + m.Role)
		if m.Content != "" {
			b.WriteString("\n" + m.Content)
		}
		for _, tc := range m.ToolCalls {
			args, err := argumentsJSON(tc.Function.Arguments, false)
			if err != nil {
				return err
			}
			b.WriteString("\n" + ToolCallStart + "\n{\"name\": \"" + tc.Function.Name + "\", \"arguments\": " + args + "}\n" + ToolCallEnd)
		}
		b.WriteString(IMEnd + "\n")
		return nil
	}
	// Qwen3.
	content, reasoning := SplitReasoning(m.Content)
	if afterLastQuery && (last || reasoning != "") {
		b.WriteString(IMStart + m.Role + "\n" + ThinkStart + "\n" + strings.Trim(reasoning, "\n") + "\n" + ThinkEnd + "\n\n" + strings.TrimLeft(content, "\n"))
	} else {
		b.WriteString(IMStart + m.Role + "\n" + content)
	}
	for i, tc := range m.ToolCalls {
		if i > 0 || content != "" {
			b.WriteString("\n")
		}
		args, err := argumentsJSON(tc.Function.Arguments, true)
		if err != nil {
			return err
		}
		b.WriteString(ToolCallStart + "\n{\"name\": \"" + tc.Function.Name + "\", \"arguments\": " + args + "}\n" + ToolCallEnd)
	}
	b.WriteString(IMEnd + "\n")
	return nil
}

// SplitReasoning separates an assistant message into its answer and its
// reasoning the way the Qwen3 template does: when content holds "</think>",
// the answer is what follows the last "</think>" (leading newlines removed)
// and the reasoning is what precedes the first one, after any "<think>"
// (surrounding newlines removed). Otherwise the content is all answer.
func SplitReasoning(content string) (answer, reasoning string) {
	if !strings.Contains(content, ThinkEnd) {
		return content, ""
	}
	answer = strings.TrimLeft(content[strings.LastIndex(content, ThinkEnd)+len(ThinkEnd):], "\n")
	before := strings.TrimRight(content[:strings.Index(content, ThinkEnd)], "\n")
	if i := strings.LastIndex(before, ThinkStart); i >= 0 {
		before = before[i+len(ThinkStart):]
	}
	return answer, strings.TrimLeft(before, "\n")
}

// argumentsJSON renders tool-call arguments: JSON is re-encoded as the
// template's tojson filter writes a parsed value; other text is written raw
// (rawStrings, Qwen3: "arguments is string") or quoted (Qwen2.5, which
// applies tojson to whatever it gets).
func argumentsJSON(args string, rawStrings bool) (string, error) {
	if jsonValid(args) {
		return pythonJSON(args)
	}
	if rawStrings {
		return args, nil
	}
	var b strings.Builder
	writePyString(&b, args)
	return b.String(), nil
}

// ChatMLFromJinja recognises the Jinja source of a Qwen2.5 or Qwen3 chat
// template (as found in tokenizer_config.json) and returns the ChatML that
// renders the same text, with the default system prompt read from the
// template. Other templates fail with ErrUnsupported.
func ChatMLFromJinja(source string) (ChatML, error) {
	if source == "" {
		return ChatML{}, fmt.Errorf("%w: no chat template", ErrUnsupported)
	}
	// Fingerprints of the supported templates.
	qwen25 := []string{
		`(message.role == "assistant" and not message.tool_calls)`,
		`tool_call.arguments | tojson`,
		`<|im_start|>`,
	}
	qwen3 := []string{
		`ns.last_query_index`,
		`reasoning_content`,
		`enable_thinking is defined and enable_thinking is false`,
		`<|im_start|>`,
	}
	hasAll := func(marks []string) bool {
		for _, m := range marks {
			if !strings.Contains(source, m) {
				return false
			}
		}
		return true
	}
	switch {
	case hasAll(qwen3):
		return ChatML{Reasoning: true, DefaultSystemPrompt: defaultSystemPrompt(source)}, nil
	case hasAll(qwen25):
		return ChatML{DefaultSystemPrompt: defaultSystemPrompt(source)}, nil
	}
	return ChatML{}, fmt.Errorf("%w: chat template is neither the Qwen2.5 nor the Qwen3 one", ErrUnsupported)
}

// defaultSystemPrompt reads the literal default system message of a
// Qwen2.5-style template: '<|im_start|>system\n...<|im_end|>\n' inside one
// quoted string.
func defaultSystemPrompt(source string) string {
	re := regexp.MustCompile(`'<\|im_start\|>system\\n((?:[^'\\]|\\.)*)<\|im_end\|>\\n'`)
	m := re.FindStringSubmatch(source)
	if m == nil {
		return ""
	}
	r := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\'`, "'", `\"`, `"`, `\\`, `\`)
	return r.Replace(m[1])
}
