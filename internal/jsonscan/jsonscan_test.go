package jsonscan

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestObjects(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		attempts int
		want     []string // the "name" of each object visited
		bad      bool
	}{
		{"none", "no braces here {1, 2}", 32, nil, false},
		{"one among prose", `I will call {"name": "a", "arguments": {"x": 1}} now.`, 32, []string{"a"}, false},
		{"two", `{"name":"a"} and { "name" : "b" }`, 32, []string{"a", "b"}, false},
		{"broken call then a good one", `{"name": "a", } then {"name": "b"}`, 32, []string{"b"}, true},
		{"broken non-call is not reported", `{"x": } {"name": "b"}`, 32, []string{"b"}, false},
		{"nested object visited once", `{"name": "a", "arguments": {"name": "inner"}}`, 32, []string{"a"}, false},
		{"attempts bound", strings.Repeat(`{"name": "a"} `, 5), 2, []string{"a", "a"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			bad := Objects(tt.text, tt.attempts, func(obj map[string]json.RawMessage) {
				var n string
				_ = json.Unmarshal(obj["name"], &n)
				got = append(got, n)
			})
			if !reflect.DeepEqual(got, tt.want) || (bad != "") != tt.bad {
				t.Errorf("visited %q, badJSON %q; want %q, bad %v", got, bad, tt.want, tt.bad)
			}
		})
	}
}

func TestObjectsNumbers(t *testing.T) {
	Objects(`{"n": 12345678901234567890}`, 1, func(obj map[string]json.RawMessage) {
		if string(obj["n"]) != "12345678901234567890" {
			t.Errorf("number %s", obj["n"])
		}
	})
}
