package trainer

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDefaultConfigIsValid(t *testing.T) {
	cfg, err := LoadConfig(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Trainer.OutputDir != "runs/"+cfg.Trainer.ExperimentName {
		t.Fatalf("output dir %q: placeholder not resolved", cfg.Trainer.OutputDir)
	}
}

func TestLoadConfigLayers(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.yaml")
	b := filepath.Join(dir, "b.yaml")
	write(t, a, "trainer:\n  experiment_name: exp-a\n  rl_steps: 7\nrollout:\n  n: 2\n")
	write(t, b, "trainer:\n  experiment_name: exp-b\nactor:\n  lr: 3.0e-5\n")
	cfg, err := LoadConfig([]string{a, b}, []string{"rollout.n=6", "model.shape.hidden_size=64"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Trainer.ExperimentName != "exp-b" || cfg.Trainer.RLSteps != 7 || cfg.Rollout.N != 6 ||
		cfg.Actor.LR != 3e-5 || cfg.Model.Shape.HiddenSize != 64 || cfg.Trainer.OutputDir != "runs/exp-b" {
		t.Fatalf("got %+v", cfg)
	}
	// The YAML form reads back to the same configuration.
	data, err := cfg.YAML()
	if err != nil {
		t.Fatal(err)
	}
	c := filepath.Join(dir, "c.yaml")
	write(t, c, string(data))
	again, err := LoadConfig([]string{c}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Trainer, cfg.Trainer) || !reflect.DeepEqual(again.Rollout, cfg.Rollout) || !reflect.DeepEqual(again.Actor, cfg.Actor) || again.Model != cfg.Model {
		t.Fatalf("YAML round trip changed the configuration:\n%+v\n%+v", again, cfg)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		sets      []string
		wantInErr string
	}{
		{"unknown key", "trainer:\n  rl_stepz: 3\n", nil, `unknown key "trainer.rl_stepz"`},
		// (critic, a section of the original, is ignored with a warning:
		// trainer.ReferenceAliases.)
		{"unknown section", "critics:\n  lr: 1\n", nil, `unknown key "critics"`},
		{"unknown override", "", []string{"rollout.beams=3"}, `unknown key "rollout.beams"`},
		{"bad type", "rollout:\n  n: four\n", nil, "n"},
		{"bad value", "", []string{"rollout.n=0"}, "rollout.n 0 must be > 0"},
		{"bad top_p", "", []string{"rollout.top_p=1.5"}, "rollout.top_p"},
		{"bad agg mode", "", []string{"actor.loss_agg_mode=mean"}, "actor.loss_agg_mode"},
		{"bad kl type", "", []string{"actor.kl_loss_type=full"}, "actor.kl_loss_type"},
		{"bad estimator", "", []string{"algorithm.adv_estimator=ppo"}, "adv_estimator"},
		{"url and companion", "", []string{"env.url=http://127.0.0.1:1", "env.companion=true"}, "exclusive"},
		{"bad level", "", []string{"env.toolworld.max_level=4"}, "max_level"},
		{"heads", "", []string{"model.shape.num_heads=3"}, "multiple of num_heads"},
		{"unresolved placeholder", "trainer:\n  output_dir: ${trainer.nope}\n", nil, "${trainer.nope}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var files []string
			if tt.file != "" {
				files = []string{filepath.Join(t.TempDir(), "c.yaml")}
				write(t, files[0], tt.file)
			}
			_, err := LoadConfigOver(FromScratchConfig(), files, tt.sets)
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("err = %v, want ErrConfig", err)
			}
			if !strings.Contains(err.Error(), tt.wantInErr) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.wantInErr)
			}
		})
	}
}

func TestExampleConfigsLoad(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "examples", "configs", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("want the CPU and GPU example configs, found %v", files)
	}
	for _, f := range files {
		if _, err := LoadConfig([]string{f}, nil); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
