package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

type optim struct {
	LR          float64 `yaml:"lr"`
	WeightDecay float64 `yaml:"weight_decay"`
}

type trainerSection struct {
	ExperimentName string   `yaml:"experiment_name"`
	OutputDir      string   `yaml:"output_dir"`
	TotalSteps     int      `yaml:"total_steps"`
	Tags           []string `yaml:"tags"`
}

type testConfig struct {
	Trainer trainerSection    `yaml:"trainer"`
	Optim   optim             `yaml:"optim"`
	Seed    int64             `yaml:"seed"`
	Debug   bool              `yaml:"debug"`
	Extra   map[string]string `yaml:"extra"`
	Named   map[string]optim  `yaml:"named"`
}

func defaults() testConfig {
	return testConfig{
		Trainer: trainerSection{ExperimentName: "demo", OutputDir: "runs/${trainer.experiment_name}", TotalSteps: 10},
		Optim:   optim{LR: 1e-6, WeightDecay: 0.01},
		Seed:    1,
	}
}

func TestApplyLayersInOrder(t *testing.T) {
	cfg := defaults()
	err := Apply(&cfg, []Layer{
		{Name: "a.yaml", YAML: []byte("trainer:\n  experiment_name: first\n  total_steps: 20\noptim:\n  lr: 0.001\n")},
		{Name: "b.yaml", YAML: []byte("trainer:\n  experiment_name: second\nextra:\n  anything: goes\n")},
	}, []string{"optim.lr=3e-4", "debug=true", "trainer.tags=[a, b]"})
	if err != nil {
		t.Fatal(err)
	}
	want := testConfig{
		Trainer: trainerSection{ExperimentName: "second", OutputDir: "runs/second", TotalSteps: 20, Tags: []string{"a", "b"}},
		Optim:   optim{LR: 3e-4, WeightDecay: 0.01},
		Seed:    1, Debug: true, Extra: map[string]string{"anything": "goes"},
	}
	if cfg.Trainer.ExperimentName != want.Trainer.ExperimentName || cfg.Trainer.OutputDir != want.Trainer.OutputDir ||
		cfg.Trainer.TotalSteps != 20 || cfg.Optim != want.Optim || !cfg.Debug || cfg.Seed != 1 ||
		strings.Join(cfg.Trainer.Tags, ",") != "a,b" || cfg.Extra["anything"] != "goes" {
		t.Fatalf("got %+v\nwant %+v", cfg, want)
	}
}

func TestApplyDefaultsOnly(t *testing.T) {
	cfg := defaults()
	if err := Apply(&cfg, nil, nil); err != nil {
		t.Fatal(err)
	}
	if cfg.Trainer.OutputDir != "runs/demo" {
		t.Fatalf("placeholder not resolved: %q", cfg.Trainer.OutputDir)
	}
}

func TestTypedPlaceholder(t *testing.T) {
	cfg := defaults()
	if err := Apply(&cfg, []Layer{{Name: "x", YAML: []byte("seed: 7\ntrainer:\n  total_steps: ${seed}\n")}}, nil); err != nil {
		t.Fatal(err)
	}
	if cfg.Trainer.TotalSteps != 7 {
		t.Fatalf("total_steps = %d", cfg.Trainer.TotalSteps)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name      string
		layers    []Layer
		overrides []string
		wantInMsg string
	}{
		{"unknown top key", []Layer{{"f.yaml", []byte("bogus: 1\n")}}, nil, `unknown key "bogus"`},
		{"unknown nested key", []Layer{{"f.yaml", []byte("trainer:\n  total_stpes: 3\n")}}, nil, `unknown key "trainer.total_stpes"`},
		{"unknown override", nil, []string{"optim.momentum=0.9"}, `unknown key "optim.momentum"`},
		{"override without =", nil, []string{"optim.lr"}, "not key=value"},
		{"override empty segment", nil, []string{"optim..lr=1"}, "empty key segment"},
		{"override through a scalar", nil, []string{"seed.x=1"}, "not a mapping"},
		{"bad yaml", []Layer{{"f.yaml", []byte("trainer: [\n")}}, nil, "f.yaml"},
		{"top level list", []Layer{{"f.yaml", []byte("- 1\n")}}, nil, "top level must be a mapping"},
		{"wrong type", []Layer{{"f.yaml", []byte("trainer:\n  total_steps: many\n")}}, nil, "total_steps"},
		{"unknown placeholder", []Layer{{"f.yaml", []byte("trainer:\n  output_dir: ${nope.x}\n")}}, nil, "${nope.x}"},
		{"placeholder cycle", []Layer{{"f.yaml", []byte("trainer:\n  experiment_name: ${trainer.output_dir}\n")}}, nil, "cycle"},
		{"unknown key of a named entry", []Layer{{"f.yaml", []byte("named:\n  a:\n    lr: 1\n    momentum: 2\n")}}, nil, `unknown key "named.a.momentum"`},
		{"unknown override of a named entry", nil, []string{"named.b.momentum=2"}, `unknown key "named.b.momentum"`},
		{"wrong type in a named entry", []Layer{{"f.yaml", []byte("named:\n  a:\n    lr: fast\n")}}, nil, "named.a.lr (set in f.yaml:3): want a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := defaults()
			before := cfg
			err := Apply(&cfg, tt.layers, tt.overrides)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.wantInMsg) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.wantInMsg)
			}
			if cfg.Trainer.TotalSteps != before.Trainer.TotalSteps || cfg.Trainer.OutputDir != before.Trainer.OutputDir {
				t.Fatalf("config changed on error: %+v", cfg)
			}
		})
	}
}

func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(path, []byte("optim:\n  weight_decay: 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := defaults()
	if err := LoadFiles(&cfg, []string{path}, []string{"trainer.experiment_name=run 1"}); err != nil {
		t.Fatal(err)
	}
	if cfg.Optim.WeightDecay != 0 || cfg.Trainer.OutputDir != "runs/run 1" {
		t.Fatalf("got %+v", cfg)
	}
	if err := LoadFiles(&cfg, []string{filepath.Join(dir, "missing.yaml")}, nil); err == nil {
		t.Fatal("want an error for a missing file")
	}
}

func TestApplyNeedsStructPointer(t *testing.T) {
	var n int
	if err := Apply(&n, nil, nil); err == nil {
		t.Fatal("want an error")
	}
}

// FuzzApply feeds arbitrary YAML and an override to Apply: it must return
// (the corpus holds alias and merge-key bombs, which the expansion budget
// rejects at once), leave the configuration unchanged on error and never
// blame aliases for text without one.
func FuzzApply(f *testing.F) {
	f.Add([]byte("trainer:\n  total_steps: 3\n"), "optim.lr=1")
	f.Add([]byte("trainer: {output_dir: '${seed}/${trainer.experiment_name}'}"), "seed=${seed}")
	f.Add([]byte("&a [*a]"), "x=")
	f.Add([]byte("a: &a [1, 2]\nb: {<<: {c: *a}}\n"), "trainer.tags=[&x y, *x]")
	f.Fuzz(func(t *testing.T, doc []byte, override string) {
		cfg := defaults()
		err := Apply(&cfg, []Layer{{Name: "fuzz", YAML: doc}}, []string{override})
		if err == nil {
			return
		}
		if !reflect.DeepEqual(cfg, defaults()) {
			t.Fatalf("Apply failed (%v) but changed the configuration: %+v", err, cfg)
		}
		if errors.Is(err, ErrAliasExpansion) && !bytes.ContainsAny(doc, "*<") && !strings.ContainsAny(override, "*<") {
			t.Fatalf("ErrAliasExpansion without an alias or merge key: %v", err)
		}
		// The same through a table of aliases must return too, and
		// leave the configuration unchanged on error.
		cfg = defaults()
		aliases := map[string]string{"a": "trainer", "a.b": "optim.lr", "a.*": "", "x": "", "y.z": "seed", "y.*": ""}
		if _, err := ApplyWith(&cfg, []Layer{{Name: "fuzz", YAML: doc}}, []string{override}, Options{Aliases: aliases}); err != nil && !reflect.DeepEqual(cfg, defaults()) {
			t.Fatalf("ApplyWith failed (%v) but changed the configuration: %+v", err, cfg)
		}
	})
}

func TestTypeErrorNamesKeyAndUserFile(t *testing.T) {
	cfg := defaults()
	user := "# mine\ntrainer:\n  experiment_name: mine\n  total_steps: ten\n"
	err := Apply(&cfg, []Layer{{Name: "user.yaml", YAML: []byte(user)}}, nil)
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
	for _, want := range []string{"trainer.total_steps", "user.yaml:4", `"ten"`, "an integer"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if cfg.Trainer.ExperimentName != "demo" {
		t.Errorf("cfg changed on error: %+v", cfg)
	}
	err = Apply(&cfg, []Layer{{Name: "user.yaml", YAML: []byte("seed: 3\n")}}, []string{"optim.lr=fast"})
	if err == nil || !strings.Contains(err.Error(), "optim.lr") || !strings.Contains(err.Error(), `override "optim.lr=fast"`) {
		t.Fatalf("override type error = %v, want the key and the override named", err)
	}
}

func TestApplyWithAliases(t *testing.T) {
	aliases := map[string]string{
		"other.optim":             "optim",
		"other.optim.decay":       "optim.weight_decay",
		"other.optim.fsdp":        "",
		"trainer.legacy":          "",
		"trainer.steps":           "trainer.total_steps",
		"trainer.experiment_name": "", // never shadows a key of our own
		"hydra":                   "",
	}
	cfg := defaults()
	warnings, err := ApplyWith(&cfg, []Layer{{Name: "theirs.yaml", YAML: []byte(`hydra:
  searchpath: [x]
trainer:
  experiment_name: theirs
  steps: 7
  legacy: true
other:
  optim:
    lr: 0.5
    decay: 0.25
    fsdp: {offload: true}
`)}}, []string{"trainer.legacy=1", "other.optim.lr=0.75"}, Options{Aliases: aliases})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Trainer.ExperimentName != "theirs" || cfg.Trainer.TotalSteps != 7 || cfg.Optim.LR != 0.75 || cfg.Optim.WeightDecay != 0.25 {
		t.Fatalf("aliases not applied: %+v", cfg)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], "theirs.yaml") ||
		!strings.Contains(warnings[0], "hydra, other.optim.fsdp, trainer.legacy") || !strings.Contains(warnings[1], "trainer.legacy") {
		t.Fatalf("warnings = %q", warnings)
	}

	// Typos of our own keys stay errors; so do unknown keys of theirs.
	for _, doc := range []string{"trainer:\n  total_stpes: 3\n", "other:\n  optim:\n    momentum: 0.9\n"} {
		cfg := defaults()
		if _, err := ApplyWith(&cfg, []Layer{{Name: "typo.yaml", YAML: []byte(doc)}}, nil, Options{Aliases: aliases}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "unknown key") {
			t.Errorf("%q: err = %v, want an unknown key", doc, err)
		}
	}
	// One key set both ways in one layer is an error.
	cfg = defaults()
	_, err = ApplyWith(&cfg, []Layer{{Name: "both.yaml", YAML: []byte("trainer:\n  total_steps: 3\n  steps: 4\n")}}, nil, Options{Aliases: aliases})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "both set trainer.total_steps") {
		t.Fatalf("err = %v, want both set", err)
	}
	// A type error through an alias names the key as written.
	cfg = defaults()
	_, err = ApplyWith(&cfg, []Layer{{Name: "theirs.yaml", YAML: []byte("other:\n  optim:\n    decay: high\n")}}, nil, Options{Aliases: aliases})
	if err == nil || !strings.Contains(err.Error(), "optim.weight_decay (set in theirs.yaml:3, as other.optim.decay)") {
		t.Fatalf("err = %v", err)
	}
}
