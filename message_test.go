package agentevolver

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestMessageUnmarshal(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Message
	}{
		{"plain", `{"role":"user","content":"hi"}`, Message{Role: "user", Content: "hi"}},
		{"null content", `{"role":"assistant","content":null}`, Message{Role: "assistant"}},
		{"missing content", `{"role":"assistant"}`, Message{Role: "assistant"}},
		{"content parts", `{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{}},{"type":"text","text":"b"}]}`,
			Message{Role: "user", Content: "ab"}},
		{"tool call string args", `{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]}`,
			Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "f", Arguments: `{"x":1}`}}}}},
		{"tool call object args", `{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":{ "x" : [1, 2] }}}]}`,
			Message{Role: "assistant", ToolCalls: []ToolCall{{Function: FunctionCall{Name: "f", Arguments: `{"x":[1,2]}`}}}}},
		{"tool reply", `{"role":"tool","content":"42","tool_call_id":"c1","name":"f"}`,
			Message{Role: "tool", Content: "42", ToolCallID: "c1", Name: "f"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Message
			if err := json.Unmarshal([]byte(tt.in), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestMessageUnmarshalRejectsBadContent(t *testing.T) {
	for _, in := range []string{`{"role":"user","content":12}`, `{"role":"user","content":{"a":1}}`, `{"role":"user","content":[1]}`} {
		var m Message
		if err := json.Unmarshal([]byte(in), &m); err == nil {
			t.Errorf("%s: want an error, got %+v", in, m)
		}
	}
}

func TestMessageRoundTrip(t *testing.T) {
	m := Message{Role: RoleAssistant, Content: "x", ToolCalls: []ToolCall{{ID: "1", Type: "function", Function: FunctionCall{Name: "f", Arguments: "{}"}}}}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Message
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, m) {
		t.Fatalf("round trip: %+v != %+v", back, m)
	}
}

func FuzzMessageUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","content":"hi"}`,
		`{"role":"user","content":[{"type":"text","text":"a"}]}`,
		`{"tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]}`,
		`{"content":null}`, `[]`, `{"content":"\u0000"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Message
		if err := json.Unmarshal(data, &m); err != nil {
			return
		}
		// Whatever decoded must encode and decode to the same message.
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		var back Message
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("re-decode %s: %v", out, err)
		}
		if !reflect.DeepEqual(normalize(back), normalize(m)) {
			t.Fatalf("round trip changed %+v into %+v", m, back)
		}
	})
}

// normalize maps empty slices to nil, which JSON cannot tell apart.
func normalize(m Message) Message {
	if len(m.ToolCalls) == 0 {
		m.ToolCalls = nil
	}
	return m
}
