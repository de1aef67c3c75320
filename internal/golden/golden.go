package golden

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// DirEnvVar overrides the fixture directory.
const DirEnvVar = "AGENTEVOLVER_GOLDEN_DIR"

// File is one fixture file.
type File struct {
	Function     string   `json:"function"`
	Reference    string   `json:"reference"`
	Tolerance    float64  `json:"tolerance"`
	RelTolerance float64  `json:"rel_tolerance"`
	Notes        []string `json:"notes"`
	Cases        []Case   `json:"cases"`
}

// Case is one seeded call of the original function.
type Case struct {
	Name    string                     `json:"name"`
	Inputs  map[string]json.RawMessage `json:"inputs"`
	Outputs map[string]json.RawMessage `json:"outputs"`
}

// IsError reports whether the original call raised, and the Python
// exception type.
func (c Case) IsError() (bool, string) {
	raw, ok := c.Outputs["error"]
	if !ok {
		return false, ""
	}
	var isErr bool
	_ = json.Unmarshal(raw, &isErr)
	var typ string
	_ = json.Unmarshal(c.Outputs["error_type"], &typ)
	return isErr, typ
}

// Input decodes inputs[key] into v, failing the test on error.
func (c Case) Input(t testing.TB, key string, v any) {
	t.Helper()
	decode(t, c.Name, "inputs", key, c.Inputs, v)
}

// Output decodes outputs[key] into v, failing the test on error.
func (c Case) Output(t testing.TB, key string, v any) {
	t.Helper()
	decode(t, c.Name, "outputs", key, c.Outputs, v)
}

// Has reports whether inputs has key with a non-null value.
func (c Case) Has(key string) bool {
	raw, ok := c.Inputs[key]
	return ok && string(raw) != "null"
}

func decode(t testing.TB, name, where, key string, m map[string]json.RawMessage, v any) {
	t.Helper()
	raw, ok := m[key]
	if !ok {
		t.Fatalf("case %s: %s has no key %q", name, where, key)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("case %s: %s[%q]: %v", name, where, key, err)
	}
}

// Dir returns the fixture directory: $AGENTEVOLVER_GOLDEN_DIR when set, else
// testdata/golden at the module root (found by walking up to go.mod), where
// the fixtures are kept so that the tests pass from a plain clone.
func Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv(DirEnvVar); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", "golden")
		}
		if filepath.Dir(dir) == dir {
			t.Fatalf("golden: no go.mod above %s; set %s", wd, DirEnvVar)
		}
	}
}

// Load reads one fixture file (for example "grpo_advantage.json") and logs
// how many cases it holds.
func Load(t testing.TB, name string) *File {
	t.Helper()
	path := filepath.Join(Dir(t), name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden: %v (set %s to the fixture directory)", err, DirEnvVar)
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("golden: %s: %v", path, err)
	}
	if len(f.Cases) == 0 {
		t.Fatalf("golden: %s has no cases", path)
	}
	return &f
}

// Num is a fixture number: a JSON number or one of the strings "NaN",
// "Infinity", "-Infinity".
type Num float64

// UnmarshalJSON implements json.Unmarshaler.
func (n *Num) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch s {
		case "NaN":
			*n = Num(math.NaN())
		case "Infinity":
			*n = Num(math.Inf(1))
		case "-Infinity":
			*n = Num(math.Inf(-1))
		default:
			return fmt.Errorf("golden: bad number %q", s)
		}
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return err
	}
	*n = Num(f)
	return nil
}

// Close reports |got-want| <= tol + rel*|want|, with NaN equal only to NaN
// and infinities equal only to themselves.
func Close(got, want, tol, rel float64) bool {
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) && math.IsNaN(got)
	}
	if math.IsInf(want, 0) || math.IsInf(got, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tol+rel*math.Abs(want)
}

// Floats converts fixture numbers to float64.
func Floats(ns []Num) []float64 {
	out := make([]float64, len(ns))
	for i, n := range ns {
		out[i] = float64(n)
	}
	return out
}

// Floats2D converts a fixture matrix to float64.
func Floats2D(ns [][]Num) [][]float64 {
	out := make([][]float64, len(ns))
	for i, row := range ns {
		out[i] = Floats(row)
	}
	return out
}

// CheckFloats fails the test when got and want differ in length or any
// element is not Close under f's tolerances.
func (f *File) CheckFloats(t testing.TB, caseName, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("case %s: %s: len %d, want %d", caseName, what, len(got), len(want))
		return
	}
	for i := range want {
		if !Close(got[i], want[i], f.Tolerance, f.RelTolerance) {
			t.Errorf("case %s: %s[%d] = %v, want %v", caseName, what, i, got[i], want[i])
			return
		}
	}
}

// Renamed points DirEnvVar, for the rest of the test, at a temporary
// directory holding a copy of each named fixture file in which every case
// is renamed "renamed_<index>", plus the extra cases given for that file
// (appended, renamed the same way). A golden test run after it must pass
// as it does on the original set: it proves that the test skips or maps
// cases by their content, never by their names, so that a held-out
// fixture set with other names (or other cases of the same shapes) runs
// too. It uses t.Setenv, so the test must not be parallel.
func Renamed(t testing.TB, files []string, extra map[string][]Case) {
	t.Helper()
	dir := t.TempDir()
	for _, name := range files {
		f := Load(t, name)
		raw, err := os.ReadFile(filepath.Join(Dir(t), name))
		if err != nil {
			t.Fatal(err)
		}
		var all map[string]json.RawMessage
		if err := json.Unmarshal(raw, &all); err != nil {
			t.Fatalf("golden: %s: %v", name, err)
		}
		cases := append(slices.Clone(f.Cases), extra[name]...)
		for i := range cases {
			cases[i].Name = fmt.Sprintf("renamed_%d", i)
		}
		if all["cases"], err = json.Marshal(cases); err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(all)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(DirEnvVar, dir)
}
