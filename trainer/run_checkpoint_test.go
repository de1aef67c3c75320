package trainer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/org/agentevolver/runlog"
	"github.com/org/agentevolver/trainer/checkpoint"
)

// syncBuffer is a bytes.Buffer safe for a logger's concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// checkpointRun trains the tiny configuration for two RL steps with a
// checkpoint after each (and one after the warm start), keeping all of
// them, and returns its configuration.
func checkpointRun(t *testing.T) Config {
	t.Helper()
	cfg := tinyConfig(t)
	cfg.WarmStart.Steps = 1
	cfg.Trainer.MaxCheckpointsToKeep = 0
	if _, err := mustNew(t, cfg, Options{}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// copyRun copies the run of cfg to a new output directory and returns the
// configuration pointing there.
func copyRun(t *testing.T, cfg Config) Config {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(cfg.Trainer.OutputDir)); err != nil {
		t.Fatal(err)
	}
	cfg.Trainer.OutputDir = dst
	return cfg
}

// resumeRun resumes the run of cfg and returns the error and the logs.
func resumeRun(t *testing.T, cfg Config) (Summary, error, string) {
	t.Helper()
	var logs syncBuffer
	tr, err := New(cfg, withToolworld(Options{Resume: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))}))
	if err != nil {
		t.Fatal(err)
	}
	s, err := tr.Fit(context.Background())
	return s, err, logs.String()
}

// stateMetaPath returns the GoMLX metadata file of a checkpoint.
func stateMetaPath(t *testing.T, ckpt string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(ckpt, checkpointStateDir, "*.json"))
	if err != nil || len(files) != 1 {
		t.Fatalf("state metadata of %s: %v %v", ckpt, files, err)
	}
	return files[0]
}

// editStateMeta rewrites a checkpoint's GoMLX metadata through edit and
// the manifest after it, as a checkpoint made by other code would look:
// only the structural checks can catch it.
func editStateMeta(t *testing.T, ckpt string, edit func(vars []map[string]any) []map[string]any) {
	t.Helper()
	path := stateMetaPath(t, ckpt)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	var vars []map[string]any
	for _, v := range meta["Variables"].([]any) {
		vars = append(vars, v.(map[string]any))
	}
	meta["Variables"] = edit(vars)
	out, err := json.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.WriteManifest(ckpt); err != nil {
		t.Fatal(err)
	}
}

func rlSteps(t *testing.T, dir string) []int64 {
	t.Helper()
	records, err := runlog.ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	var steps []int64
	for _, r := range records {
		if _, ok := r.Value("reward/mean"); ok {
			steps = append(steps, r.Step)
		}
	}
	return steps
}

// TestResumeVerifiesCheckpoints damages a finished run's checkpoints in
// the ways an unlucky operator or a crash would and resumes it: each case
// is a clear error or a fallback to an older good checkpoint, never a
// silent start from fresh weights.
func TestResumeVerifiesCheckpoints(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model, then resumes it many times")
	}
	base := checkpointRun(t)
	ckpt := func(cfg Config, step int) string {
		return filepath.Join(cfg.Trainer.OutputDir, CheckpointDir, checkpointName(step))
	}
	// fallsBack asserts that the resume skipped the newest checkpoint,
	// retrained step 2 from step 1 and finished.
	fallsBack := func(t *testing.T, cfg Config) {
		t.Helper()
		s, err, logs := resumeRun(t, cfg)
		if err != nil {
			t.Fatalf("resume: %v\n%s", err, logs)
		}
		if !strings.Contains(logs, "checkpoint unusable") || !strings.Contains(logs, "resumed from an older checkpoint") {
			t.Errorf("no fallback warning in the logs:\n%s", logs)
		}
		if s.RLSteps != 2 {
			t.Errorf("summary reports %d RL steps, want 2", s.RLSteps)
		}
		if got := rlSteps(t, cfg.Trainer.OutputDir); !slices.Equal(got, []int64{1, 2}) {
			t.Errorf("RL records at %v, want [1 2]: step 2 retrained once from step 1", got)
		}
	}

	t.Run("state directory deleted", func(t *testing.T) {
		cfg := copyRun(t, base)
		if err := os.RemoveAll(filepath.Join(ckpt(cfg, 2), checkpointStateDir)); err != nil {
			t.Fatal(err)
		}
		fallsBack(t, cfg)
	})
	t.Run("weights altered after writing", func(t *testing.T) {
		cfg := copyRun(t, base)
		path := filepath.Join(ckpt(cfg, 2), checkpointModelDir, "model.safetensors")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)-1] ^= 0xff
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fallsBack(t, cfg)
	})
	t.Run("state truncated", func(t *testing.T) {
		cfg := copyRun(t, base)
		bin := strings.TrimSuffix(stateMetaPath(t, ckpt(cfg, 2)), ".json") + ".bin"
		if err := os.Truncate(bin, 100); err != nil {
			t.Fatal(err)
		}
		fallsBack(t, cfg)
	})
	t.Run("transposed embedding", func(t *testing.T) {
		cfg := copyRun(t, base)
		editStateMeta(t, ckpt(cfg, 2), func(vars []map[string]any) []map[string]any {
			for _, v := range vars {
				if v["ParameterName"] == "var:/model/embed_tokens/weight" {
					d := v["Dimensions"].([]any)
					v["Dimensions"] = []any{d[1], d[0]}
				}
			}
			return vars
		})
		fallsBack(t, cfg)
	})
	t.Run("huge dimensions", func(t *testing.T) {
		cfg := copyRun(t, base)
		editStateMeta(t, ckpt(cfg, 2), func(vars []map[string]any) []map[string]any {
			vars[0]["Dimensions"] = []any{4_000_000, 1_000_000}
			vars[0]["Length"] = 16_000_000_000_000
			return vars
		})
		fallsBack(t, cfg)
	})
	t.Run("reference altered", func(t *testing.T) {
		cfg := copyRun(t, base)
		path := filepath.Join(cfg.Trainer.OutputDir, ReferenceDir, "model.safetensors")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/2] ^= 0x01
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err, _ = resumeRun(t, cfg)
		if !errors.Is(err, ErrCorruptCheckpoint) || !strings.Contains(err.Error(), "reference") {
			t.Fatalf("err = %v, want the corrupt reference named", err)
		}
	})
	t.Run("latest file garbled", func(t *testing.T) {
		cfg := copyRun(t, base)
		if err := os.WriteFile(filepath.Join(cfg.Trainer.OutputDir, CheckpointDir, latestFile), []byte("../../etc\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// The newest checkpoint is found without it; the run had finished.
		s, err, logs := resumeRun(t, cfg)
		if err != nil || s.RLSteps != 2 || !strings.Contains(logs, "ignoring the latest-checkpoint file") {
			t.Fatalf("resume: %+v, %v\n%s", s, err, logs)
		}
	})
	t.Run("every checkpoint corrupt", func(t *testing.T) {
		cfg := copyRun(t, base)
		for step := range 3 {
			if err := os.RemoveAll(filepath.Join(ckpt(cfg, step), checkpointStateDir)); err != nil {
				t.Fatal(err)
			}
		}
		before, err := os.ReadFile(filepath.Join(cfg.Trainer.OutputDir, MetricsFile))
		if err != nil {
			t.Fatal(err)
		}
		_, err, _ = resumeRun(t, cfg)
		if !errors.Is(err, ErrCorruptCheckpoint) || !strings.Contains(err.Error(), "refusing to start from fresh weights") {
			t.Fatalf("err = %v, want ErrCorruptCheckpoint", err)
		}
		after, _ := os.ReadFile(filepath.Join(cfg.Trainer.OutputDir, MetricsFile))
		if !bytes.Equal(before, after) {
			t.Error("a refused resume changed the metrics")
		}
	})
	for _, c := range []struct {
		name, key string
		change    func(*Config)
	}{
		{"more layers", "model.shape.num_layers: 1 -> 2", func(c *Config) { c.Model.Shape.NumLayers = 2 }},
		{"wider hidden size", "model.shape.hidden_size: 16 -> 32", func(c *Config) { c.Model.Shape.HiddenSize = 32 }},
		{"another batch size", "data.train_batch_size: 2 -> 3", func(c *Config) { c.Data.TrainBatchSize = 3 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := copyRun(t, base)
			c.change(&cfg)
			_, err, _ := resumeRun(t, cfg)
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.key) {
				t.Fatalf("err = %v, want ErrConfig naming %q", err, c.key)
			}
		})
	}
	t.Run("harmless change is logged", func(t *testing.T) {
		cfg := copyRun(t, base)
		cfg.Trainer.RLSteps = 3
		cfg.Actor.LR *= 2
		s, err, logs := resumeRun(t, cfg)
		if err != nil || s.RLSteps != 3 {
			t.Fatalf("resume: %+v, %v", s, err)
		}
		if !strings.Contains(logs, "changed configuration") || !strings.Contains(logs, "actor.lr") {
			t.Errorf("the changed learning rate is not logged:\n%s", logs)
		}
	})
	t.Run("checkpoint of another model shape", func(t *testing.T) {
		// Without the saved configuration (an older checkpoint), the
		// state itself must still refuse a model it does not fit.
		cfg := copyRun(t, base)
		for step := range 3 {
			if err := os.Remove(filepath.Join(ckpt(cfg, step), checkpointConfig)); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(ckpt(cfg, step), checkpoint.ManifestFile)); err != nil {
				t.Fatal(err)
			}
		}
		cfg.Model.Shape.NumLayers = 2
		_, err, logs := resumeRun(t, cfg)
		if !errors.Is(err, ErrCorruptCheckpoint) || !strings.Contains(err.Error(), "var:/model/layers/1/") || !strings.Contains(err.Error(), "is missing") {
			t.Fatalf("err = %v, want the missing layer 1 named\n%s", err, logs)
		}
	})
}

func TestCheckpointRetention(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := tinyConfig(t)
	cfg.WarmStart.Steps = 1
	cfg.Trainer.RLSteps = 3
	cfg.Trainer.TestFreq = 0
	cfg.Trainer.MaxCheckpointsToKeep = 2
	if _, err := mustNew(t, cfg, Options{}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	names, err := listCheckpoints(filepath.Join(cfg.Trainer.OutputDir, CheckpointDir))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{checkpointName(3), checkpointName(2)}; !slices.Equal(names, want) {
		t.Fatalf("checkpoints %v, want %v", names, want)
	}
	for _, n := range names {
		if err := checkpoint.VerifyManifest(filepath.Join(cfg.Trainer.OutputDir, CheckpointDir, n)); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

func TestExperimentNameIsAPathElement(t *testing.T) {
	for _, name := range []string{"../../x", "a/b", ".", "..", `a\b`, "/abs"} {
		cfg := FromScratchConfig()
		cfg.Trainer.ExperimentName = name
		if err := cfg.Validate(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "experiment_name") {
			t.Errorf("experiment_name %q: err = %v, want ErrConfig", name, err)
		}
	}
	cfg := FromScratchConfig()
	cfg.Trainer.ExperimentName = "grpo-seed_1.v2"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
}
