package trainer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFitDataParallel trains the built-in environment with the updates
// data parallel over two virtual devices (the warm start on one), crashes
// after the first RL step and resumes: the sharded AdamW moments are
// checkpointed whole and re-sharded, so the resumed run ends with the same
// weights and metrics as the uninterrupted one.
func TestFitDataParallel(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model twice")
	}
	straight := onTwoDevices(tinyConfig(t))
	straight.WarmStart.Steps = 1
	if _, err := mustNew(t, straight, Options{}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	resumed := straight
	resumed.Trainer.OutputDir = t.TempDir()
	if _, err := mustNew(t, resumed, Options{Hooks: Hooks{Recorder: failAt(1)}}).Fit(context.Background()); !errors.Is(err, errCrash) {
		t.Fatalf("first leg: err = %v, want the simulated crash", err)
	}
	if _, err := mustNew(t, resumed, Options{Resume: true}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(FinalModelDir, "model.safetensors")
	if !sameFile(t, filepath.Join(straight.Trainer.OutputDir, f), filepath.Join(resumed.Trainer.OutputDir, f)) {
		t.Errorf("%s differs between the uninterrupted and the resumed run", f)
	}
	if ma, mb := metricsWithoutTimes(t, straight.Trainer.OutputDir), metricsWithoutTimes(t, resumed.Trainer.OutputDir); ma != mb {
		t.Errorf("metrics differ:\nuninterrupted:\n%s\nresumed:\n%s", ma, mb)
	}
}

func TestDevicesNeedABackendWithThem(t *testing.T) {
	cfg := tinyConfig(t)
	cfg.Trainer.Devices = 2 // the default backend has one device
	tr, err := New(cfg, withToolworld(Options{}))
	if err == nil {
		_, err = tr.Fit(context.Background())
	}
	if !errors.Is(err, ErrConfig) {
		t.Fatalf("err = %v, want ErrConfig", err)
	}
}

// TestFitLoRADataParallel: with LoRA only the adapters are trainable, so
// only they (and their moments) are sharded; the frozen base stays whole
// on every device and unchanged.
func TestFitLoRADataParallel(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := onTwoDevices(loraConfig(t))
	tr := mustNew(t, cfg, Options{})
	if _, err := tr.Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(FinalModelDir, "model.safetensors"), filepath.Join(FinalModelDir, AdapterDir, "adapter_model.safetensors")} {
		if _, err := os.Stat(filepath.Join(cfg.Trainer.OutputDir, f)); err != nil {
			t.Error(err)
		}
	}
}

// onTwoDevices makes cfg's updates data parallel over two virtual devices.
func onTwoDevices(cfg Config) Config {
	cfg.Trainer.Backend = "gofast:devices=2"
	cfg.Trainer.Devices = 2
	return cfg
}
