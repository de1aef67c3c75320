package experience

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// FuzzReMeResponse feeds arbitrary bodies to the parser of ReMe's answers:
// it never panics, every failure is a *ReMeError that is not an outage
// (the service did answer), and an accepted answer is what the JSON says.
func FuzzReMeResponse(f *testing.F) {
	for _, s := range []string{
		`{"answer":"Restart the router first.","success":true,"metadata":{"memory_list":[{"when_to_use":"x"}]}}`,
		`{"answer":"","success":true}`,
		`{"answer":"workspace missing","success":false}`,
		`{"answer":null}`,
		`{"answer":42}`,
		`{"success":true}`,
		`["answer"]`,
		`Internal Server Error`,
		`{"answer":"\u00e9\u2028"}`,
	} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, needAnswer bool) {
		answer, err := parseReMeResponse(ReMeRetrievePath, body, needAnswer)
		if err != nil {
			var re *ReMeError
			if !errors.As(err, &re) || errors.Is(err, llm.ErrUnavailable) || answer != "" {
				t.Fatalf("error %v (answer %q)", err, answer)
			}
			return
		}
		// A non-string answer is accepted when none is needed ({"Answer":
		// 0} too: JSON keys match regardless of case), so decode it raw.
		var check struct {
			Answer json.RawMessage `json:"answer"`
		}
		if json.Unmarshal(body, &check) != nil {
			t.Fatalf("accepted a body that is not JSON: %q", body)
		}
		var said string
		if json.Unmarshal(check.Answer, &said) == nil && said != answer {
			t.Fatalf("answer %q, the body says %q", answer, said)
		}
	})
}

// FuzzReMeQuery checks the query encoding: whatever the messages, the
// Python-style JSON text decodes back to the same messages.
func FuzzReMeQuery(f *testing.F) {
	f.Add("system", "You are <an> agent & more.\n", "user", "重置路由器 \"now\"\u2028\\u2028\x01")
	f.Add("user", `{"a": [1, 2]}`, "assistant", ", : ,: \\\"")
	f.Fuzz(func(t *testing.T, r1, c1, r2, c2 string) {
		in := []agentevolver.Message{{Role: r1, Content: c1}, {Role: r2, Content: c2}}
		q, err := marshalJSON(in, true)
		if err != nil {
			t.Fatal(err)
		}
		var back []agentevolver.Message
		if err := json.Unmarshal(q, &back); err != nil {
			t.Fatalf("query %q does not parse: %v", q, err)
		}
		// Invalid UTF-8 becomes U+FFFD, as through any JSON encoding.
		plain, _ := json.Marshal(in)
		var want []agentevolver.Message
		if err := json.Unmarshal(plain, &want); err != nil {
			t.Fatal(err)
		}
		if len(back) != len(want) {
			t.Fatalf("round trip: %q, want %q", back, want)
		}
		for i := range want {
			if back[i].Role != want[i].Role || back[i].Content != want[i].Content {
				t.Fatalf("round trip: %q, want %q", back, want)
			}
		}
	})
}
