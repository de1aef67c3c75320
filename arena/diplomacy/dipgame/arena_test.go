package dipgame_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/org/agentevolver/arena"
	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
)

// TestArenaTournament plays a short Diplomacy tournament between the
// greedy and the random bot and checks the leaderboard: the greedy bot
// rates above the random one, every seat is recorded under its power.
func TestArenaTournament(t *testing.T) {
	dir := t.TempDir()
	lb, err := arena.Open(filepath.Join(dir, "lb.db"), arena.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer lb.Close()
	tour := arena.Tournament{
		ID: "dip", Game: dipgame.ArenaGame{Config: dipgame.Config{MaxPhases: 10, NegotiationRounds: -1}},
		Entrants: []arena.Entrant{{Name: "greedy", Model: dipgame.Greedy{}}, {Name: "random", Model: dipgame.Random{Seed: 1}}},
		Matches:  4, Seed: 5, Workers: 2, LogDir: dir,
	}
	sum, err := tour.Run(context.Background(), lb)
	if err != nil || sum.Played != 4 || sum.Failed != 0 {
		t.Fatal(sum, err)
	}
	st, err := lb.Standings()
	if err != nil || len(st) != 2 {
		t.Fatal(st, err)
	}
	arena.Rank(st)
	if st[0].Name != "greedy" {
		t.Errorf("standings %+v", st)
	}
	for _, s := range st {
		if s.Games == 0 || len(s.Roles) == 0 {
			t.Errorf("%s: %+v", s.Name, s)
		}
		for r := range s.Roles {
			if _, err := diplomacy.ParsePower(r); err != nil {
				t.Errorf("role %q is not a power", r)
			}
		}
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "dip", "match_*.jsonl"))
	if len(logs) != 4 {
		t.Fatalf("match logs %v", logs)
	}
	data, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	var l dipgame.Log
	if err := json.Unmarshal(data, &l); err != nil || len(l.ModelNames) != 7 || len(l.Game.Phases) != 10 {
		t.Errorf("match log: %v, %d names, %d phases", err, len(l.ModelNames), len(l.Game.Phases))
	}
}
