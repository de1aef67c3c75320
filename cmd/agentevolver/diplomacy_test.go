package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiplomacyPlayCommand(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "game_log.json")
	args := []string{"diplomacy", "play", "--all", "random:3", "--power", "france=greedy", "--max-phases", "4", "--negotiation-rounds", "1", "--log", logPath}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "game over at F1902M") || !strings.Contains(out.String(), "FRANCE    greedy") {
		t.Fatalf("output:\n%s", out.String())
	}
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Game struct {
			Phases []json.RawMessage `json:"phases"`
		} `json:"game_log"`
	}
	if err := json.Unmarshal(data, &l); err != nil || len(l.Game.Phases) != 4 {
		t.Fatalf("log: %v, %d phases", err, len(l.Game.Phases))
	}
	// Resume: the 4-phase game goes on to 6 phases.
	longer := filepath.Join(t.TempDir(), "longer.json")
	out.Reset()
	args = []string{"diplomacy", "play", "--all", "random:3", "--power", "france=greedy", "--max-phases", "6", "--negotiation-rounds", "1", "--resume", logPath, "--log", longer}
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 {
		t.Fatalf("resume exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	data, err = os.ReadFile(longer)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &l); err != nil || len(l.Game.Phases) != 6 || !strings.Contains(out.String(), "game over at S1903M") {
		t.Fatalf("resumed log: %v, %d phases\n%s", err, len(l.Game.Phases), out.String())
	}
	for _, bad := range [][]string{
		{"diplomacy", "play", "--resume", logPath},
		{"diplomacy", "play", "--resume", filepath.Join(t.TempDir(), "none.json"), "--log", longer},
		{"diplomacy", "play", "--power", "narnia=greedy"},
		{"diplomacy", "play", "--all", "gpt"},
		{"diplomacy", "play", "--max-phases", "0"},
		{"diplomacy", "arena"},
		{"diplomacy", "nope"},
	} {
		if code := run(context.Background(), bad, nil, &out, &errOut); code == 0 {
			t.Errorf("%v succeeded", bad)
		}
	}
}

func TestDiplomacyArenaCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "d.db")
	args := []string{"diplomacy", "arena", "--db", db, "--matches", "3", "--workers", "2", "--max-phases", "4", "--negotiation-rounds", "0",
		"--model", "g=greedy", "--model", "r=random:1"}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "3 matches played, 0 already recorded") || !strings.Contains(out.String(), "FRANCE") {
		t.Fatalf("output:\n%s", out.String())
	}
	out.Reset()
	if code := run(context.Background(), args, nil, &out, &errOut); code != 0 || !strings.Contains(out.String(), "0 matches played, 3 already recorded") {
		t.Fatalf("rerun exit %d\n%s", code, out.String())
	}
	// arena show reads the same leaderboard with the powers as columns,
	// and without Avalon's.
	out.Reset()
	if code := run(context.Background(), []string{"arena", "show", "--db", db}, nil, &out, &errOut); code != 0 {
		t.Fatalf("arena show exit %d\n%s", code, errOut.String())
	}
	if s := out.String(); !strings.Contains(s, "AUSTRIA") || !strings.Contains(s, "TURKEY") || strings.Contains(s, "Merlin") {
		t.Fatalf("arena show:\n%s", s)
	}
}
