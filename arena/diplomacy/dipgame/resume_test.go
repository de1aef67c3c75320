package dipgame_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
	"github.com/org/agentevolver/llm"
)

func resumeSeats() []llm.ChatModel {
	models := greedySeats()
	models[diplomacy.France-1] = &scripted{neg: `[{"recipient": "GERMANY", "content": "hi"}, {"content": "all of you"}]`}
	models[diplomacy.Italy-1] = dipgame.Random{Seed: 4}
	models[diplomacy.Russia-1] = nil
	return models
}

// TestResume cuts a game's log after each of its first phases and resumes
// it: the resumed game writes the same log as the uninterrupted one.
func TestResume(t *testing.T) {
	ctx := context.Background()
	cfg := dipgame.Config{MaxPhases: 7, NegotiationRounds: 2, LogCalls: true}
	var full bytes.Buffer
	if _, err := dipgame.Play(ctx, cfg, 5, resumeSeats(), &full); err != nil {
		t.Fatal(err)
	}
	var l dipgame.Log
	if err := json.Unmarshal(full.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	for cut := 1; cut < len(l.History); cut += 2 {
		var part dipgame.Log
		if err := json.Unmarshal(full.Bytes(), &part); err != nil {
			t.Fatal(err)
		}
		part.History, part.Game.Phases = part.History[:cut], part.Game.Phases[:cut]
		// The calls of the phases kept (phase names do not repeat).
		kept := map[string]bool{}
		for _, ph := range part.Game.Phases {
			kept[ph.Phase] = true
		}
		var calls []dipgame.Call
		for _, c := range part.Calls {
			if kept[c.Phase] {
				calls = append(calls, c)
			}
		}
		part.Calls = calls
		part.Error = "stopped"
		var resumed bytes.Buffer
		if _, err := dipgame.Resume(ctx, cfg, &part, resumeSeats(), &resumed); err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		if !bytes.Equal(resumed.Bytes(), full.Bytes()) {
			t.Fatalf("cut %d: the resumed game's log differs", cut)
		}
	}
}

func TestResumeRefuses(t *testing.T) {
	ctx := context.Background()
	cfg := dipgame.Config{MaxPhases: 3, NegotiationRounds: -1}
	var full bytes.Buffer
	if _, err := dipgame.Play(ctx, cfg, 5, greedySeats(), &full); err != nil {
		t.Fatal(err)
	}
	var l dipgame.Log
	if err := json.Unmarshal(full.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	if _, err := dipgame.Resume(ctx, cfg, &l, greedySeats(), nil); !errors.Is(err, diplomacy.ErrState) {
		t.Errorf("a finished game: %v", err)
	}
	l.History, l.Game.Phases = l.History[:2], l.Game.Phases[:2]
	// Edited: France's army held, so the second phase no longer starts
	// where the log says.
	l.History[0].Orders[diplomacy.France] = []diplomacy.Order{{Type: diplomacy.Hold, Unit: diplomacy.Army, Loc: "PAR"}}
	if _, err := dipgame.Resume(ctx, cfg, &l, greedySeats(), nil); !errors.Is(err, diplomacy.ErrState) {
		t.Errorf("an edited log: %v", err)
	}
	if _, err := dipgame.Resume(ctx, cfg, &dipgame.Log{}, greedySeats(), nil); !errors.Is(err, diplomacy.ErrState) {
		t.Errorf("an empty log: %v", err)
	}
}
