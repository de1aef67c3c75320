package dipgame_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
)

// observed records every Progress report, as JSON so that later changes
// by the game could not hide in shared memory.
type observed struct {
	kinds     []dipgame.ProgressKind
	positions []string
	rounds    []string
	phases    []string
	records   []string
}

func (o *observed) observe(t *testing.T) func(dipgame.Progress) {
	return func(p dipgame.Progress) {
		o.kinds = append(o.kinds, p.Kind)
		js := func(v any) string {
			b, err := json.Marshal(v)
			if err != nil {
				t.Error(err)
			}
			return string(b)
		}
		switch p.Kind {
		case dipgame.ProgressPosition:
			if p.Position == nil || p.Position.Phase != p.Phase {
				t.Errorf("position report %+v", p)
				return
			}
			o.positions = append(o.positions, js(p.Position))
		case dipgame.ProgressRound:
			o.rounds = append(o.rounds, js(p.Round))
		case dipgame.ProgressPhase:
			if p.Log == nil || p.Record == nil || p.Log.Phase != p.Phase.String() {
				t.Errorf("phase report %+v", p)
				return
			}
			o.phases = append(o.phases, js(p.Log))
			o.records = append(o.records, js(p.Record))
		default:
			t.Errorf("unknown progress kind %d", p.Kind)
		}
	}
}

// check compares the reports with the log: a position per phase and the
// final one, every negotiation round and every phase record, in order.
func (o *observed) check(t *testing.T, l dipgame.Log, final diplomacy.Phase) {
	t.Helper()
	if len(o.positions) != len(l.Game.Phases)+1 || len(o.phases) != len(l.Game.Phases) {
		t.Fatalf("%d positions and %d phases reported for %d phases", len(o.positions), len(o.phases), len(l.Game.Phases))
	}
	var rounds []string
	for i, pl := range l.Game.Phases {
		b, _ := json.Marshal(pl)
		if o.phases[i] != string(b) {
			t.Fatalf("phase %d reported as %s, logged as %s", i, o.phases[i], b)
		}
		rb, _ := json.Marshal(l.History[i])
		if o.records[i] != string(rb) {
			t.Fatalf("record %d differs from the history", i)
		}
		pb, _ := json.Marshal(l.History[i].Position)
		if o.positions[i] != string(pb) {
			t.Fatalf("position %d reported as %s, recorded as %s", i, o.positions[i], pb)
		}
		for _, nl := range pl.Negotiation {
			b, _ := json.Marshal(nl)
			rounds = append(rounds, string(b))
		}
	}
	if !reflect.DeepEqual(o.rounds, rounds) {
		t.Fatalf("rounds reported %v, logged %v", o.rounds, rounds)
	}
	var last diplomacy.Position
	if err := json.Unmarshal([]byte(o.positions[len(o.positions)-1]), &last); err != nil || last.Phase != final {
		t.Fatalf("final position %v (%v), game ended at %s", last.Phase, err, final)
	}
	// Order within a phase: position, rounds, phase.
	want := []dipgame.ProgressKind{dipgame.ProgressPosition}
	for _, pl := range l.Game.Phases {
		for range pl.Negotiation {
			want = append(want, dipgame.ProgressRound)
		}
		want = append(want, dipgame.ProgressPhase, dipgame.ProgressPosition)
	}
	if !reflect.DeepEqual(o.kinds, want) {
		t.Fatalf("report order %v, want %v", o.kinds, want)
	}
}

// TestObserve: the observer sees every phase, round and board as the log
// records them, and the log bytes and result are those of a game without
// an observer; a resumed game reports its replayed phases too.
func TestObserve(t *testing.T) {
	ctx := context.Background()
	cfg := dipgame.Config{MaxPhases: 6, NegotiationRounds: 2}
	var plain bytes.Buffer
	res0, err := dipgame.Play(ctx, cfg, 11, resumeSeats(), &plain)
	if err != nil {
		t.Fatal(err)
	}
	var o observed
	cfg.Observe = o.observe(t)
	var seen bytes.Buffer
	res1, err := dipgame.Play(ctx, cfg, 11, resumeSeats(), &seen)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(plain.Bytes(), seen.Bytes()) || !reflect.DeepEqual(res0, res1) {
		t.Fatal("an observer changed the game")
	}
	var l dipgame.Log
	if err := json.Unmarshal(seen.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	o.check(t, l, res1.Phase)
	if len(o.rounds) == 0 {
		t.Fatal("no negotiation round reported")
	}

	// Resume from the first three phases: every phase is reported again.
	var part dipgame.Log
	if err := json.Unmarshal(seen.Bytes(), &part); err != nil {
		t.Fatal(err)
	}
	part.History, part.Game.Phases = part.History[:3], part.Game.Phases[:3]
	var o2 observed
	cfg.Observe = o2.observe(t)
	var resumed bytes.Buffer
	if _, err := dipgame.Resume(ctx, cfg, &part, resumeSeats(), &resumed); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(resumed.Bytes(), plain.Bytes()) {
		t.Fatal("a resumed, observed game wrote another log")
	}
	o2.check(t, l, res1.Phase)
}
