package arena

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// duel is a tiny game for tests: each seat's model answers with a strength;
// the strongest seat (ties broken by a seeded draw) wins, the others lose.
type duel struct {
	seats int
	// hook, when set, runs at the start of every match.
	hook func(m Match) error
}

func (d duel) Name() string { return "duel" }
func (d duel) Seats() int   { return d.seats }

func (d duel) Play(ctx context.Context, m Match) ([]SeatResult, error) {
	if d.hook != nil {
		if err := d.hook(m); err != nil {
			return nil, err
		}
	}
	rng := rand.New(rand.NewPCG(m.Seed, 1))
	best, bestV := -1, -1.0
	for i, model := range m.Models {
		c, err := model.Chat(ctx, []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "strength?"}}, llm.ChatOptions{})
		if err != nil {
			return nil, err
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(c.Message.Content), 64)
		if err != nil {
			return nil, fmt.Errorf("seat %d: %w", i, err)
		}
		v += rng.Float64()
		if v > bestV {
			best, bestV = i, v
		}
		if m.Log != nil {
			fmt.Fprintf(m.Log, "{\"seat\":%d,\"value\":%g}\n", i, v)
		}
	}
	out := make([]SeatResult, len(m.Models))
	for i := range out {
		out[i].Role = "odd"
		if i%2 == 0 {
			out[i].Role = "even"
		}
	}
	out[best].Score = 1
	return out, nil
}

func fixed(v string) llm.ChatModel {
	return llm.ChatModelFunc(func(ctx context.Context, _ []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
		if err := ctx.Err(); err != nil {
			return llm.Completion{}, err
		}
		return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: v}}, nil
	})
}

func entrants() []Entrant {
	return []Entrant{{"alpha", fixed("1.2")}, {"beta", fixed("0.8")}, {"gamma", fixed("0.4")}, {"delta", fixed("0")}}
}
