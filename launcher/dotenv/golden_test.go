package dotenv

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// golden is testdata/python-dotenv.json, made by testdata/gen_golden.py
// with python-dotenv itself: 77 hand-written texts and 400 random ones,
// each read with and without override in the environment ENV.
type golden struct {
	Env   map[string]string `json:"env"`
	Cases []struct {
		Text     string      `json:"text"`
		Override bool        `json:"override"`
		Parsed   [][]*string `json:"parsed"`
		Errors   int         `json:"errors"`
		Resolved [][]*string `json:"resolved"`
	} `json:"cases"`
}

// TestPythonDotenvGolden checks Parse and Resolve against what
// python-dotenv made of the same texts: the statements, how many were
// skipped, and the variables with their interpolated values.
func TestPythonDotenvGolden(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "python-dotenv.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) < 900 {
		t.Fatalf("%d golden cases, want the 956 of gen_golden.py", len(g.Cases))
	}
	lookup := func(k string) (string, bool) { v, ok := g.Env[k]; return v, ok }
	for i, c := range g.Cases {
		bindings, perrs, err := Parse([]byte(c.Text))
		if err != nil {
			t.Fatalf("case %d %q: %v", i, c.Text, err)
		}
		var got [][2]any
		for _, b := range bindings {
			var v any
			if b.HasValue {
				v = b.Value
			}
			got = append(got, [2]any{b.Key, v})
		}
		var want [][2]any
		for _, p := range c.Parsed {
			var v any
			if p[1] != nil {
				v = *p[1]
			}
			want = append(want, [2]any{*p[0], v})
		}
		if !equalPairs(got, want) || len(perrs) != c.Errors {
			t.Errorf("case %d %q: parsed %q with %d errors, python-dotenv %q with %d", i, c.Text, got, len(perrs), want, c.Errors)
			continue
		}
		var gotVars, wantVars [][2]any
		for _, v := range Resolve(bindings, lookup, c.Override) {
			gotVars = append(gotVars, [2]any{v.Key, v.Value})
		}
		for _, p := range c.Resolved {
			if p[1] != nil {
				wantVars = append(wantVars, [2]any{*p[0], *p[1]})
			}
		}
		if !equalPairs(gotVars, wantVars) {
			t.Errorf("case %d %q (override %v): resolved %q, python-dotenv %q", i, c.Text, c.Override, gotVars, wantVars)
		}
	}
}

func equalPairs(a, b [][2]any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
