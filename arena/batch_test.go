package arena

import (
	"context"
	"errors"
	"testing"

	"github.com/org/agentevolver/llm"
)

func TestBatch(t *testing.T) {
	es := entrants()
	b := Batch{
		Game:    duel{seats: 2},
		Matches: 20,
		Seed:    1,
		Workers: 3,
		Seating: func(i int, _ uint64) ([]llm.ChatModel, []string, error) {
			// alpha (strong) against delta (weak), sides alternating.
			if i%2 == 0 {
				return []llm.ChatModel{es[0].Model, es[3].Model}, []string{"alpha", "delta"}, nil
			}
			return []llm.ChatModel{es[3].Model, es[0].Model}, []string{"delta", "alpha"}, nil
		},
	}
	rep, err := b.Run(context.Background())
	if err != nil || rep.Matches != 20 || rep.Failed != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
	// alpha's strength 1.2 + U[0,1) always beats delta's 0 + U[0,1).
	if a, d := rep.Models["alpha"], rep.Models["delta"]; a.Games != 20 || a.Mean != 1 || d.Mean != 0 || d.Max != 0 {
		t.Fatalf("models %+v", rep.Models)
	}
	if r := rep.Roles["even"]; r.Games != 20 || r.Mean != 0.5 || r.Min != 0 || r.Max != 1 {
		t.Fatalf("roles %+v", rep.Roles)
	}
	again, _ := b.Run(context.Background())
	if again.Models["alpha"] != rep.Models["alpha"] || again.Roles["odd"] != rep.Roles["odd"] {
		t.Fatal("batch not reproducible")
	}

	b.Game = duel{seats: 2, hook: func(Match) error { return errors.New("broken") }}
	rep, err = b.Run(context.Background())
	if !errors.Is(err, ErrNoResults) || rep.Failed != 20 || len(rep.Errors) != 20 {
		t.Fatalf("all failing: %+v %v", rep, err)
	}
	if _, err := (Batch{}).Run(context.Background()); !errors.Is(err, ErrConfig) {
		t.Fatalf("empty batch: %v", err)
	}
}
