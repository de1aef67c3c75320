package tokenizer

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestPythonJSON(t *testing.T) {
	// Expected outputs are what Python's json.dumps(json.loads(in),
	// ensure_ascii=False) prints.
	tests := []struct{ in, want string }{
		{`{"a":1,"b":[true,false,null],"c":{}}`, `{"a": 1, "b": [true, false, null], "c": {}}`},
		{`[]`, `[]`},
		{`"é\u00e9 \"q\" \\ /\/ <>&"`, `"éé \"q\" \\ // <>&"`},
		{`"\u0001\b\f\n\r\t\u001f\u007f\u2028"`, "\"\\u0001\\b\\f\\n\\r\\t\\u001f\u007f\u2028\""},
		{`{"z":1,"a":2,"z":3}`, `{"z": 3, "a": 2}`},
		{`[1.0, 1.5, -0.0, 1e3, 1E-7, 0.0001, 0.00001, 1e16, 123456789012345678, 1.23456789012345678, -0, 2.5e+300]`,
			`[1.0, 1.5, -0.0, 1000.0, 1e-07, 0.0001, 1e-05, 1e+16, 123456789012345678, 1.2345678901234567, 0, 2.5e+300]`},
		{`1e999`, `Infinity`},
		// An integer beyond float64's range: Python keeps it exactly.
		{"1" + strings.Repeat("0", 320), "1" + strings.Repeat("0", 320)},
		{` {"nested": [[{"x": "y"}]]} `, `{"nested": [[{"x": "y"}]]}`},
	}
	for _, tt := range tests {
		got, err := pythonJSON(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("pythonJSON(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":}`, `[1,]`, `1 2`, strings.Repeat("[", maxPythonJSONDepth+2)} {
		if _, err := pythonJSON(bad); err == nil {
			t.Errorf("pythonJSON(%.20q) succeeded", bad)
		}
	}
	if _, err := pythonJSON(`"` + strings.Repeat("x", maxPythonJSON) + `"`); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized input: %v", err)
	}
}

// FuzzPythonJSON checks that the output of pythonJSON is JSON holding the
// same value, and that re-encoding it changes nothing.
func FuzzPythonJSON(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,null]}`, `"\u0000é"`, `[1.5e300, -0, 1e-7]`, `{"":{"":[]}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := pythonJSON(s)
		if err != nil {
			return
		}
		if strings.Contains(out, "Infinity") {
			return // Python's extension to JSON, for overflowing numbers
		}
		if !json.Valid([]byte(s)) {
			t.Fatalf("pythonJSON accepted invalid JSON %q", s)
		}
		if !json.Valid([]byte(out)) {
			t.Fatalf("pythonJSON(%q) = %q, not JSON", s, out)
		}
		again, err := pythonJSON(out)
		if err != nil || again != out {
			t.Fatalf("pythonJSON not idempotent on %q: %q, %v", out, again, err)
		}
		var a, b any
		if err := json.Unmarshal([]byte(s), &a); err != nil {
			// Valid JSON that Go cannot hold as float64 (an integer beyond
			// its range, which Python keeps exactly): nothing to compare.
			return
		}
		if err := json.Unmarshal([]byte(out), &b); err != nil {
			t.Fatalf("pythonJSON(%q) = %q, not decodable: %v", s, out, err)
		}
		if !hasDuplicateKeys(s) && !reflect.DeepEqual(a, b) {
			t.Fatalf("value changed: %s → %s", s, out)
		}
	})
}

// hasDuplicateKeys reports whether some object in s repeats a key, in which
// case Go's map decoding and Python's dict keep different positions.
func hasDuplicateKeys(s string) bool {
	dec := json.NewDecoder(strings.NewReader(s))
	var stack []map[string]bool
	expectKey := []bool{}
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, map[string]bool{})
				expectKey = append(expectKey, true)
				continue
			case '[':
				stack = append(stack, nil)
				expectKey = append(expectKey, false)
				continue
			default:
				stack = stack[:len(stack)-1]
				expectKey = expectKey[:len(expectKey)-1]
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1] != nil && expectKey[n-1] {
				if stack[n-1][v] {
					return true
				}
				stack[n-1][v] = true
				expectKey[n-1] = false
				continue
			}
		}
		if n := len(stack); n > 0 && stack[n-1] != nil {
			expectKey[n-1] = true
		}
	}
}
