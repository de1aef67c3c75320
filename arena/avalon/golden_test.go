package avalon

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden game logs in testdata")

// TestGoldenLog pins a seeded game's log bytes across versions: a change
// to the rules, prompts, parsers, seeding or log format shows up here.
// Rewrite with go test -run TestGoldenLog -update after checking the diff.
func TestGoldenLog(t *testing.T) {
	cfg := Config{Players: 7, Roles: Roles{Percival: true, Morgana: true}}
	var buf bytes.Buffer
	if _, err := Play(context.Background(), cfg, 42, randomSeats(7, 1, 0.1), &buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "game_7p_seed42.jsonl")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("the seeded game's log differs from %s (%d vs %d bytes); rerun with -update if the change is intended", path, buf.Len(), len(want))
	}
}
