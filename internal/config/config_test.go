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
	})
}
