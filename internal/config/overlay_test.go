package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOverlay(t *testing.T) {
	doc := map[string]any{"trainer": map[string]any{"total_steps": 5, "tags": []any{"a"}}, "seed": 3}
	data, err := Overlay(doc, []string{"trainer.total_steps=7", "optim.lr=0.5", "debug=true"})
	if err != nil {
		t.Fatal(err)
	}
	if doc["trainer"].(map[string]any)["total_steps"] != 5 {
		t.Errorf("Overlay modified its input: %v", doc)
	}
	// Layered after a file that sets the same keys, the overlay wins: its
	// overrides act at its place in the order, not after every file.
	dir := t.TempDir()
	first := filepath.Join(dir, "first.yaml")
	if err := os.WriteFile(first, []byte("optim: {lr: 0.1, weight_decay: 0.2}\ntrainer: {total_steps: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	over := filepath.Join(dir, "overlay.yaml")
	if err := os.WriteFile(over, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := defaults()
	if err := LoadFiles(&cfg, []string{first, over}, nil); err != nil {
		t.Fatal(err)
	}
	if cfg.Trainer.TotalSteps != 7 || cfg.Optim.LR != 0.5 || cfg.Optim.WeightDecay != 0.2 || !cfg.Debug || cfg.Seed != 3 ||
		len(cfg.Trainer.Tags) != 1 || cfg.Trainer.Tags[0] != "a" {
		t.Errorf("layered overlay gave %+v", cfg)
	}
}

func TestOverlayEmptyAndErrors(t *testing.T) {
	data, err := Overlay(nil, nil)
	if err != nil || strings.TrimSpace(string(data)) != "{}" {
		t.Errorf("empty overlay: %q, %v", data, err)
	}
	for _, o := range []string{"novalue", "=3", "a..b=1"} {
		if _, err := Overlay(nil, []string{o}); !errors.Is(err, ErrInvalid) {
			t.Errorf("override %q: %v, want ErrInvalid", o, err)
		}
	}
	if _, err := Overlay(map[string]any{"seed": 1}, []string{"seed.x=2"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("override through a scalar: %v, want ErrInvalid", err)
	}
}
