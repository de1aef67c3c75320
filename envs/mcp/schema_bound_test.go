package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestBoundSchema: a schema over the bound keeps what the environment
// checks (property types, required, additionalProperties) and drops the
// rest; one whose checked part is still too long checks nothing.
func TestBoundSchema(t *testing.T) {
	small := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","description":"the query"}}}`)
	if got := boundSchema(small, MaxSchemaBytes); string(got) != string(small) {
		t.Fatalf("a small schema changed: %s", got)
	}
	long := fmt.Sprintf(`{"type":"object","properties":{"q":{"type":"string","description":%q},"n":{"type":["integer","null"]}},"required":["q"],"additionalProperties":false}`,
		strings.Repeat("d", 2*MaxSchemaBytes))
	got := boundSchema(json.RawMessage(long), MaxSchemaBytes)
	if len(got) > MaxSchemaBytes || strings.Contains(string(got), "ddd") {
		t.Fatalf("reduced schema %d bytes: %.200s", len(got), got)
	}
	s := parseSchema(got)
	if msg := s.check(map[string]any{"n": "x", "z": 1.0}); !strings.Contains(msg, `missing required argument "q"`) ||
		!strings.Contains(msg, `argument "n" must be integer or null`) || !strings.Contains(msg, `unknown argument "z"`) {
		t.Fatalf("the reduced schema checks %q", msg)
	}
	var props strings.Builder
	for i := range MaxSchemaBytes / 8 {
		fmt.Fprintf(&props, `"p%05d":{"type":"string"},`, i)
	}
	huge := `{"type":"object","properties":{` + strings.TrimSuffix(props.String(), ",") + `}}`
	if got := boundSchema(json.RawMessage(huge), MaxSchemaBytes); string(got) != `{"type":"object"}` {
		t.Fatalf("a schema whose checked part is too long: %.200s", got)
	}
}

// FuzzBoundSchema: whatever a server sends as a schema, what is kept is
// within the bound, and a reduced schema is valid JSON.
func FuzzBoundSchema(f *testing.F) {
	f.Add([]byte(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`), 32)
	f.Add([]byte(`{"properties":{"a":{"type":["string",1]},"b":{}},"additionalProperties":false}`), 16)
	f.Add([]byte(`not json`), 4)
	f.Fuzz(func(t *testing.T, raw []byte, limit int) {
		limit = 17 + abs(limit)%4096 // {"type":"object"} always fits
		got := boundSchema(raw, limit)
		if len(raw) <= limit {
			if string(got) != string(raw) {
				t.Fatalf("a schema within the bound changed")
			}
			return
		}
		if len(got) > limit || !json.Valid(got) {
			t.Fatalf("kept %d bytes (limit %d): %q", len(got), limit, got)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
