package models_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/org/agentevolver/models"
	"github.com/org/agentevolver/pretrain"
)

func TestDirRewritesAlteredCopies(t *testing.T) {
	root := t.TempDir()
	dir, err := models.Dir(models.ToolworldBase, root)
	if err != nil {
		t.Fatal(err)
	}
	weights := filepath.Join(dir, "model.safetensors")
	want, err := os.ReadFile(weights)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(weights, []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := models.Dir(models.ToolworldBase, root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(again, "model.safetensors"))
	if err != nil || string(got) != string(want) {
		t.Fatalf("a damaged copy was not rewritten (%v)", err)
	}
	if _, err := models.Resolve(models.Prefix + "nonesuch"); !errors.Is(err, models.ErrUnknown) {
		t.Fatalf("unknown name: %v", err)
	}
}

// TestShippedCheck loads each shipped policy and replays its card's
// check: the same tasks must succeed, exactly, so that the shipped weights
// and the code that runs them never drift apart.
func TestShippedCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the shipped policies")
	}
	for _, name := range models.Names() {
		t.Run(name, func(t *testing.T) {
			dir, err := models.Dir(name, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			rec, err := pretrain.Check(context.Background(), dir, pretrain.CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			card, err := pretrain.ReadCard(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Tasks) == 0 || rec.Success() != card.Check.Success() {
				t.Fatalf("check %d tasks at %.3f, card %.3f", len(rec.Tasks), rec.Success(), card.Check.Success())
			}
			t.Logf("%d tasks, %.1f%% solved, as recorded", len(rec.Tasks), 100*rec.Success())
		})
	}
}
