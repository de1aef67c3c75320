package tokenizer

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/org/agentevolver"
)

func TestSplitReasoning(t *testing.T) {
	tests := []struct{ in, answer, reasoning string }{
		{"plain", "plain", ""},
		{"<think>\nr\n</think>\n\na", "a", "r"},
		{"r</think>a", "a", "r"},
		{"<think>a</think>b<think>\n\nc\n\n</think>\n\nd", "d", "a"},
		{"x<think>y<think>z</think>w", "w", "z"},
		{"</think>", "", ""},
		{"<think>only think", "<think>only think", ""},
	}
	for _, tt := range tests {
		a, r := SplitReasoning(tt.in)
		if a != tt.answer || r != tt.reasoning {
			t.Errorf("SplitReasoning(%q) = %q, %q; want %q, %q", tt.in, a, r, tt.answer, tt.reasoning)
		}
	}
}

func TestChatMLApply(t *testing.T) {
	user := agentevolver.Message{Role: agentevolver.RoleUser, Content: "hi"}
	call := func(args string) agentevolver.Message {
		return agentevolver.Message{Role: agentevolver.RoleAssistant, ToolCalls: []agentevolver.ToolCall{
			{Function: agentevolver.FunctionCall{Name: "f", Arguments: args}},
		}}
	}
	tests := []struct {
		name string
		tpl  ChatML
		msgs []agentevolver.Message
		opts TemplateOptions
		want string
	}{
		{"empty qwen3", Qwen3ChatML(), nil, TemplateOptions{}, ""},
		{"empty qwen2.5 gets the default system", Qwen25ChatML(), nil, TemplateOptions{},
			"<|im_start|>system\n" + Qwen25SystemPrompt + "<|im_end|>\n"},
		{"no think only with Reasoning", Qwen25ChatML(), []agentevolver.Message{user}, TemplateOptions{AddGenerationPrompt: true, DisableThinking: true},
			"<|im_start|>system\n" + Qwen25SystemPrompt + "<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"},
		{"qwen3 no think", Qwen3ChatML(), []agentevolver.Message{user}, TemplateOptions{AddGenerationPrompt: true, DisableThinking: true},
			"<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"},
		{"qwen3 string arguments stay raw", Qwen3ChatML(), []agentevolver.Message{user, call("not json")}, TemplateOptions{},
			"<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n<tool_call>\n{\"name\": \"f\", \"arguments\": not json}\n</tool_call><|im_end|>\n"},
		{"qwen3 JSON arguments as a dict", Qwen3ChatML(), []agentevolver.Message{user, call(`{"a":[1,"é"]}`)}, TemplateOptions{},
			"<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": [1, \"é\"]}}\n</tool_call><|im_end|>\n"},
		{"qwen2.5 string arguments are quoted", Qwen25ChatML(), []agentevolver.Message{call("not \"json\"")}, TemplateOptions{},
			"<|im_start|>system\n" + Qwen25SystemPrompt + "<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{\"name\": \"f\", \"arguments\": \"not \\\"json\\\"\"}\n</tool_call><|im_end|>\n"},
		{"custom default system with tools", ChatML{DefaultSystemPrompt: "Be brief."}, []agentevolver.Message{user},
			TemplateOptions{Tools: []json.RawMessage{json.RawMessage(`{"name":"f"}`)}},
			"<|im_start|>system\nBe brief.\n\n" + toolsPreamble + "\n{\"name\": \"f\"}" + toolsPostamble + "<|im_start|>user\nhi<|im_end|>\n"},
	}
	for _, tt := range tests {
		got, err := tt.tpl.Apply(tt.msgs, tt.opts)
		if err != nil || got != tt.want {
			t.Errorf("%s:\n got  %q, %v\n want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestChatMLErrors(t *testing.T) {
	_, err := Qwen3ChatML().Apply([]agentevolver.Message{{Role: "memory", Content: "x"}}, TemplateOptions{})
	if !errors.Is(err, ErrUnknownRole) {
		t.Errorf("unknown role: %v", err)
	}
	_, err = Qwen3ChatML().Apply(nil, TemplateOptions{Tools: []json.RawMessage{json.RawMessage(`{`)}})
	if err == nil {
		t.Error("invalid tool JSON accepted")
	}
}

func TestChatMLFromJinja(t *testing.T) {
	tests := []struct {
		name, src string
		want      ChatML
		err       error
	}{
		{"empty", "", ChatML{}, ErrUnsupported},
		{"llama", "{{ bos_token }}{% for m in messages %}[INST]{% endfor %}", ChatML{}, ErrUnsupported},
		{"qwen2.5 math style", `{%- if (message.role == "assistant" and not message.tool_calls) %}{{ tool_call.arguments | tojson }}` +
			`{{- '<|im_start|>system\nPlease reason step by step, and put your final answer within \\boxed{}.<|im_end|>\n' }}`,
			ChatML{DefaultSystemPrompt: `Please reason step by step, and put your final answer within \boxed{}.`}, nil},
	}
	for _, tt := range tests {
		got, err := ChatMLFromJinja(tt.src)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("%s: ChatMLFromJinja = %+v, %v; want %+v, %v", tt.name, got, err, tt.want, tt.err)
		}
	}
}
