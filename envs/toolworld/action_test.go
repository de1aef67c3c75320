package toolworld

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/org/agentevolver"
)

func assistant(content string) agentevolver.Message {
	return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: content}
}

func toolCall(name, args string) agentevolver.ToolCall {
	return agentevolver.ToolCall{Type: "function", Function: agentevolver.FunctionCall{Name: name, Arguments: args}}
}

func TestParseActionAccepts(t *testing.T) {
	findAnn := Call{App: "contacts", API: "find", Args: []Arg{{"name", "Ann"}}}
	payAnn := Call{App: "bank", API: "pay", Args: []Arg{{"amount", "5"}, {"to", "Ann"}}}
	tests := []struct {
		name string
		msg  agentevolver.Message
		want Call
	}{
		{"tool block", assistant("```tool\ncontacts.find name=Ann\n```"), findAnn},
		{"prose around the block", assistant("Let me look.\n```tool\ncontacts.find name=Ann\n```\nThen I answer."), findAnn},
		{"upper case", assistant("```TOOL\nContacts.Find Name=Ann\n```"), findAnn},
		{"blank lines and spaces", assistant("```tool\n\n   contacts.find    name=Ann   \n\n```"), findAnn},
		{"CRLF", assistant("```tool\r\ncontacts.find name=Ann\r\n```"), findAnn},
		{"unterminated block", assistant("```tool\ncontacts.find name=Ann"), findAnn},
		{"one-line block", assistant("```tool contacts.find name=Ann```"), findAnn},
		{"closing fence on the call line", assistant("```tool\ncontacts.find name=Ann```"), findAnn},
		{"double quotes with escapes", assistant("```tool\nfiles.write name=a.txt text=\"say \\\"hi\\\"\\n\\\\ \\`\"\n```"),
			Call{App: "files", API: "write", Args: []Arg{{"name", "a.txt"}, {"text", "say \"hi\"\n\\ `"}}}},
		{"single quotes", assistant("```tool\nfiles.write name=a.txt text='buy milk'\n```"),
			Call{App: "files", API: "write", Args: []Arg{{"name", "a.txt"}, {"text", "buy milk"}}}},
		{"empty value", assistant("```tool\ntask.finish answer=\n```"), Call{App: "task", API: "finish", Args: []Arg{{"answer", ""}}}},
		{"no arguments", assistant("```tool\nbank.balance\n```"), Call{App: "bank", API: "balance"}},
		{"other blocks ignored", assistant("```python\nprint(1)\n```\n```tool\nbank.balance\n```"), Call{App: "bank", API: "balance"}},
		{"JSON in tool block", assistant("```tool\n{\"name\": \"bank.pay\", \"arguments\": {\"to\": \"Ann\", \"amount\": 5}}\n```"), payAnn},
		{"bare JSON", assistant(`{"name": "contacts_find", "arguments": {"name": "Ann"}}`), findAnn},
		{"JSON in prose", assistant(`I will call {"name": "contacts.find", "arguments": {"name": "Ann"}} now.`), findAnn},
		{"JSON fence", assistant("```json\n{\"name\": \"contacts.find\", \"arguments\": {\"name\": \"Ann\"}}\n```"), findAnn},
		{"Qwen tool_call tags", assistant("<tool_call>\n{\"name\": \"bank.pay\", \"arguments\": {\"to\": \"Ann\", \"amount\": 5}}\n</tool_call>"), payAnn},
		{"arguments as a JSON string", assistant(`{"name": "contacts.find", "arguments": "{\"name\": \"Ann\"}"}`), findAnn},
		{"parameters key", assistant(`{"name": "contacts.find", "parameters": {"name": "Ann"}}`), findAnn},
		{"JSON without arguments", assistant(`{"name": "bank.balance"}`), Call{App: "bank", API: "balance"}},
		{"JSON null and bool", assistant(`{"name": "x.y", "arguments": {"a": null, "b": true}}`), Call{App: "x", API: "y", Args: []Arg{{"b", "true"}}}},
		{"non-call JSON skipped", assistant(`{"note": 1} {"name": "Ann"} {"name": "contacts.find", "arguments": {"name": "Ann"}}`), findAnn},
		{"structured tool call", agentevolver.Message{Role: "assistant", ToolCalls: []agentevolver.ToolCall{toolCall("bank_pay", `{"to":"Ann","amount":5}`)}}, payAnn},
		{"structured call wins over content", agentevolver.Message{Role: "assistant", Content: "```tool\nbank.balance\n```",
			ToolCalls: []agentevolver.ToolCall{toolCall("contacts.find", `{"name":"Ann"}`)}}, findAnn},
		{"structured call without arguments", agentevolver.Message{ToolCalls: []agentevolver.ToolCall{toolCall("bank_balance", "")}}, Call{App: "bank", API: "balance"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAction(tt.msg)
			if err != nil {
				t.Fatalf("ParseAction: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestParseActionRejects(t *testing.T) {
	tests := []struct {
		name   string
		msg    agentevolver.Message
		kind   error
		detail string // a substring of the agent-facing detail
	}{
		{"empty", assistant(""), ErrNoCall, "```tool"},
		{"prose only", assistant("I think Ann's number is 555-0142."), ErrNoCall, "no tool call"},
		{"bare command line", assistant("contacts.find name=Ann"), ErrNoCall, "tool block"},
		{"python block", assistant("```python\napis.contacts.find('Ann')\n```"), ErrNoCall, "python code block"},
		{"untagged block", assistant("```\ncontacts.find name=Ann\n```"), ErrNoCall, "untagged"},
		{"empty tool block", assistant("```tool\n\n```"), ErrNoCall, "empty"},
		{"two tool blocks", assistant("```tool\nbank.balance\n```\n```tool\nbank.balance\n```"), ErrMultipleCalls, "2 tool blocks"},
		{"two lines", assistant("```tool\nbank.balance\ncontacts.list\n```"), ErrMultipleCalls, "2 lines"},
		{"two JSON calls", assistant(`{"name": "bank.balance"} {"name": "contacts.list"}`), ErrMultipleCalls, "2 JSON"},
		{"two JSON values in block", assistant("```tool\n{\"name\": \"bank.balance\"} {}\n```"), ErrMultipleCalls, "more than one"},
		{"two structured calls", agentevolver.Message{ToolCalls: []agentevolver.ToolCall{toolCall("bank_balance", ""), toolCall("bank_balance", "")}}, ErrMultipleCalls, "2 tool calls"},
		{"parentheses", assistant("```tool\ncontacts.find(name=\"Ann\")\n```"), ErrSyntax, "without parentheses"},
		{"no dot", assistant("```tool\ncontacts name=Ann\n```"), ErrSyntax, "app.api"},
		{"empty API", assistant("```tool\ncontacts. name=Ann\n```"), ErrSyntax, "not an API name"},
		{"positional value", assistant("```tool\ncontacts.find Ann\n```"), ErrSyntax, "has no value"},
		{"bad key", assistant("```tool\ncontacts.find na-me=Ann\n```"), ErrSyntax, "not an argument name"},
		{"unterminated quote", assistant("```tool\nfiles.write name=a text=\"buy milk\n```"), ErrSyntax, "closing"},
		{"junk after quote", assistant("```tool\nfiles.write name=a text=\"buy\"milk\n```"), ErrSyntax, "space after"},
		{"duplicate key", assistant("```tool\ncontacts.find name=Ann NAME=Bob\n```"), ErrSyntax, "twice"},
		{"too many arguments", assistant("```tool\na.b" + strings.Repeat(" k=v", 1) + func() string {
			var b strings.Builder
			for i := 0; i < maxArgs; i++ {
				b.WriteString(" k" + string(rune('a'+i)) + "=1")
			}
			return b.String()
		}() + "\n```"), ErrSyntax, "too many"},
		{"truncated JSON", assistant(`{"name": "contacts.find", "arguments": {"name": "Ann"}`), ErrBadJSON, "not valid JSON"},
		{"bad JSON in block", assistant("```tool\n{\"name\": \"contacts.find\",}\n```"), ErrBadJSON, "not valid JSON"},
		{"block JSON without name", assistant("```tool\n{\"tool\": \"contacts.find\"}\n```"), ErrBadJSON, "no \"name\""},
		{"name not a string", assistant("```tool\n{\"name\": 5}\n```"), ErrBadJSON, "must be a string"},
		{"arguments an array", assistant(`{"name": "contacts.find", "arguments": ["Ann"]}`), ErrBadJSON, "JSON object"},
		{"argument an object", assistant(`{"name": "contacts.find", "arguments": {"name": {"first": "Ann"}}}`), ErrBadJSON, "string or a number"},
		{"bad argument name", assistant(`{"name": "contacts.find", "arguments": {"first name": "Ann"}}`), ErrBadJSON, "not an argument name"},
		{"tool name without app", agentevolver.Message{ToolCalls: []agentevolver.ToolCall{toolCall("find", `{}`)}}, ErrBadJSON, "app.api"},
		{"bad arguments string", agentevolver.Message{ToolCalls: []agentevolver.ToolCall{toolCall("contacts_find", `{"name":`)}}, ErrBadJSON, "JSON object"},
		{"too long", assistant("```tool\nbank.balance\n```" + strings.Repeat(" ", MaxActionBytes)), ErrTooLong, "limit"},
		{"too long tool call", agentevolver.Message{ToolCalls: []agentevolver.ToolCall{toolCall("bank_balance", strings.Repeat(" ", MaxActionBytes+1))}}, ErrTooLong, "limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAction(tt.msg)
			if err == nil {
				t.Fatalf("ParseAction = %v, want an error", got)
			}
			if !errors.Is(err, tt.kind) {
				t.Fatalf("error %v is not %v", err, tt.kind)
			}
			var ae *ActionError
			if !errors.As(err, &ae) || !strings.Contains(ae.Detail, tt.detail) {
				t.Fatalf("detail %q does not contain %q", ae.Detail, tt.detail)
			}
		})
	}
}

func TestCallStringRoundTrip(t *testing.T) {
	calls := []Call{
		{App: "bank", API: "balance"},
		{App: "files", API: "write", Args: []Arg{{"name", "a.txt"}, {"text", "buy milk"}}},
		{App: "files", API: "write", Args: []Arg{{"text", "```tool\nx=\"y\" \\ 'z'\t"}, {"name", ""}}},
		{App: "task", API: "finish", Args: []Arg{{"answer", "555-0142"}}},
		{App: "a", API: "b", Args: []Arg{{"k", "\u00a0nbsp\u2028"}}},
	}
	for _, c := range calls {
		got, err := ParseAction(c.Message())
		if err != nil {
			t.Fatalf("ParseAction(%q): %v", c.Message().Content, err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Fatalf("round trip of %q: got %#v, want %#v", c.String(), got, c)
		}
	}
}

func FuzzParseAction(f *testing.F) {
	seeds := []string{
		"```tool\ncontacts.find name=Ann\n```",
		"```tool\nfiles.write name=a.txt text=\"say \\\"hi\\\"\"\n```",
		"```tool contacts.list```",
		"```tool\n{\"name\": \"bank.pay\", \"arguments\": {\"to\": \"Ann\", \"amount\": 5}}\n```",
		`{"name": "contacts_find", "arguments": "{\"name\": \"Ann\"}"}`,
		"<tool_call>\n{\"name\": \"bank.balance\"}\n</tool_call>",
		`{"name": "contacts.find", "arguments": {"name": "Ann"}`,
		"```tool\ncontacts.find(name='Ann')\n```",
		"```\n```tool\n```",
		"{{{{\"name\"",
		"```tool\na.b k='v\n```",
	}
	for _, s := range seeds {
		f.Add(s, "", "")
	}
	f.Add("", "bank_pay", `{"to": "Ann", "amount": 5}`)
	f.Add("text", "contacts.find", `"{\"name\": \"Ann\"}"`)
	f.Fuzz(func(t *testing.T, content, toolName, toolArgs string) {
		msg := assistant(content)
		if toolName != "" || toolArgs != "" {
			msg.ToolCalls = []agentevolver.ToolCall{toolCall(toolName, toolArgs)}
		}
		call, err := ParseAction(msg)
		if err != nil {
			var ae *ActionError
			if !errors.As(err, &ae) || ae.Detail == "" {
				t.Fatalf("error without detail: %v", err)
			}
			for _, kind := range []error{ErrNoCall, ErrMultipleCalls, ErrSyntax, ErrBadJSON, ErrTooLong} {
				if errors.Is(err, kind) {
					return
				}
			}
			t.Fatalf("error of no known kind: %v", err)
		}
		// A parsed call renders to a tool block that parses back to it.
		again, err := ParseAction(call.Message())
		if err != nil {
			t.Fatalf("rendered call %q does not parse: %v", call.String(), err)
		}
		if !reflect.DeepEqual(again, call) {
			t.Fatalf("round trip: %#v became %#v", call, again)
		}
	})
}
