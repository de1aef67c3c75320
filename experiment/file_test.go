package experiment

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const goodFile = `
name: demo
description: compares two advantage normalisations
base:
  files: [base.yaml, /abs/other.yaml]
  config:
    trainer: {test_freq: 2}
  set: [rollout.n=2]
seeds: [1, 2, 3]
steps: 4
arms:
  - name: grpo
  - name: grpo-std
    description: divide by the group's std
    files: [std.yaml]
    config:
      algorithm: {norm_adv_by_std_in_grpo: true}
    set: [actor.lr=0.001]
quick:
  seeds: [7]
  steps: 1
  files: [tiny.yaml]
  config: {data: {val_tasks: 2}}
  set: [warm_start.steps=1]
`

func TestParseGood(t *testing.T) {
	f, err := Parse([]byte(goodFile), "/exp")
	if err != nil {
		t.Fatal(err)
	}
	want := File{
		Name:        "demo",
		Description: "compares two advantage normalisations",
		Base: Layer{
			Files:  []string{"/exp/base.yaml", "/abs/other.yaml"},
			Config: map[string]any{"trainer": map[string]any{"test_freq": uint64(2)}},
			Set:    []string{"rollout.n=2"},
		},
		Seeds: []int64{1, 2, 3},
		Steps: 4,
		Arms: []Arm{
			{Name: "grpo"},
			{Name: "grpo-std", Description: "divide by the group's std", Layer: Layer{
				Files:  []string{"/exp/std.yaml"},
				Config: map[string]any{"algorithm": map[string]any{"norm_adv_by_std_in_grpo": true}},
				Set:    []string{"actor.lr=0.001"},
			}},
		},
		Quick: Quick{Seeds: []int64{7}, Steps: 1, Layer: Layer{
			Files:  []string{"/exp/tiny.yaml"},
			Config: map[string]any{"data": map[string]any{"val_tasks": uint64(2)}},
			Set:    []string{"warm_start.steps=1"},
		}},
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("Parse:\n got %#v\nwant %#v", f, want)
	}
	if got := f.runSeeds(true); !reflect.DeepEqual(got, []int64{7}) {
		t.Errorf("quick seeds %v", got)
	}
	if f.runSteps(false) != 4 || f.runSteps(true) != 1 {
		t.Errorf("steps %d, quick %d", f.runSteps(false), f.runSteps(true))
	}
}

func TestParseMinimalDefaults(t *testing.T) {
	f, err := Parse([]byte("name: m\nseeds: [5, 6]\narms: [{name: a}]\n"), ".")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.runSeeds(true); !reflect.DeepEqual(got, []int64{5}) {
		t.Errorf("quick seeds default to the first seed, got %v", got)
	}
	if f.runSteps(false) != 0 || f.runSteps(true) != DefaultQuickSteps {
		t.Errorf("steps %d, quick %d", f.runSteps(false), f.runSteps(true))
	}
	if !reflect.DeepEqual(f.runSeeds(false), []int64{5, 6}) {
		t.Errorf("seeds %v", f.runSeeds(false))
	}
}

func TestParseErrors(t *testing.T) {
	const ok = "name: x\nseeds: [1]\narms: [{name: a}]\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown top-level key", ok + "seed: [2]\n", `unknown field "seed"`},
		{"unknown arm key", "name: x\nseeds: [1]\narms: [{name: a, confg: {}}]\n", `unknown field "confg"`},
		{"unknown base key", ok + "base: {file: [a.yaml]}\n", `unknown field "file"`},
		{"unknown quick key", ok + "quick: {seed: 1}\n", `unknown field "seed"`},
		{"duplicate key", ok + "name: y\n", `mapping key "name" already defined`},
		{"malformed yaml", "name: [x\n", "invalid experiment"},
		{"not a mapping", "[1, 2]\n", "mapping is expected"},
		{"config not a mapping", "name: x\nseeds: [1]\narms: [{name: a, config: [1]}]\n", "mapping is expected"},
		{"seed not a number", "name: x\nseeds: [one]\narms: [{name: a}]\n", "Seeds"},
		{"tagged scalar for a list (goccy/go-yaml#735)", ok + "base:\n  set: !x\n", "malformed YAML"},
		{"empty file", "", "name is missing"},
		{"no name", "seeds: [1]\narms: [{name: a}]\n", "name is missing"},
		{"name with a slash", "name: a/b\nseeds: [1]\narms: [{name: a}]\n", `name "a/b" must be`},
		{"name dot-dot", "name: ..\nseeds: [1]\narms: [{name: a}]\n", `name ".." must be`},
		{"no seeds", "name: x\narms: [{name: a}]\n", "no seeds"},
		{"empty seeds", "name: x\nseeds: []\narms: [{name: a}]\n", "no seeds"},
		{"repeated seed", "name: x\nseeds: [1, 2, 1]\narms: [{name: a}]\n", "seed 1 is repeated"},
		{"negative steps", ok + "steps: -1\n", "steps -1 < 0"},
		{"no arms", "name: x\nseeds: [1]\n", "no arms"},
		{"empty arms", "name: x\nseeds: [1]\narms: []\n", "no arms"},
		{"arm without name", "name: x\nseeds: [1]\narms: [{set: [a=1]}]\n", "arms[0].name is missing"},
		{"bad arm name", "name: x\nseeds: [1]\narms: [{name: -a}]\n", `arms[0].name "-a" must be`},
		{"duplicate arm", "name: x\nseeds: [1]\narms: [{name: a}, {name: b}, {name: a}]\n", `duplicate arm name "a"`},
		{"arm names differing in case", "name: x\nseeds: [1]\narms: [{name: Grpo}, {name: grpo}]\n", `duplicate arm name "grpo"`},
		{"set without =", "name: x\nseeds: [1]\narms: [{name: a, set: [rollout.n]}]\n", `arm "a": set "rollout.n" is not key=value`},
		{"set without key", ok + "base: {set: [=3]}\n", `base: set "=3" is not key=value`},
		{"empty file name", ok + "base: {files: ['']}\n", "base: files[0] is empty"},
		{"quick repeated seed", ok + "quick: {seeds: [3, 3]}\n", "quick.seeds: seed 3 is repeated"},
		{"quick negative steps", ok + "quick: {steps: -2}\n", "quick.steps -2 < 0"},
		{"quick bad set", ok + "quick: {set: [x]}\n", `quick: set "x" is not key=value`},
		{"unknown base arm", "name: x\nseeds: [1]\narms: [{name: a}, {name: b, base: c}]\n", `arm "b": base "c" is not the name of an earlier arm`},
		{"base arm later", "name: x\nseeds: [1]\narms: [{name: a, base: b}, {name: b}]\n", `arm "a": base "b" is not`},
		{"base arm itself", "name: x\nseeds: [1]\narms: [{name: a, base: a}]\n", `arm "a": base "a" is not`},
		{"base arm in another case", "name: x\nseeds: [1]\narms: [{name: a}, {name: b, base: A}]\n", `arm "b": base "A" is not`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml), ".")
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse: %v, want ErrInvalid containing %q", err, tt.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "e.yaml")
	if err := os.WriteFile(path, []byte("name: e\nbase: {files: [sub/base.yaml]}\nseeds: [1]\narms: [{name: a}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "sub", "base.yaml"); len(f.Base.Files) != 1 || f.Base.Files[0] != want {
		t.Errorf("base files %q, want [%q]", f.Base.Files, want)
	}

	if _, err := Load(filepath.Join(dir, "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("name: e\n"+strings.Repeat("#", MaxFileSize)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("large file: %v", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: e\nseeds: [1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), bad) {
		t.Errorf("invalid file: %v, want the path in the error", err)
	}
}

// TestParseAliasedPathsResolvedOnce checks that a section shared by
// several arms through a YAML alias has its task files joined to the
// file's directory once for every arm, not once per use.
func TestParseAliasedPathsResolvedOnce(t *testing.T) {
	const text = `
name: x
seeds: [1]
base:
  config: {data: {train_files: [a.jsonl]}}
arms:
  - name: a
    config:
      task_manager: &tasks {train_data_path: t.jsonl}
  - name: b
    config: {task_manager: *tasks}
  - name: c
    config: {task_manager: *tasks, data: {train_files: [b.jsonl]}}
`
	f, err := Parse([]byte(text), "dir")
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join("dir", "t.jsonl")
	for _, a := range f.Arms {
		tm, _ := a.Config["task_manager"].(map[string]any)
		if got := tm["train_data_path"]; got != want {
			t.Errorf("arm %s: train_data_path %v, want %s", a.Name, got, want)
		}
	}
	if got := f.Base.Config["data"].(map[string]any)["train_files"]; !reflect.DeepEqual(got, []any{filepath.Join("dir", "a.jsonl")}) {
		t.Errorf("base train_files %v", got)
	}
}
