package dipgame_test

import (
	"context"
	"flag"
	"testing"

	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
	"github.com/org/agentevolver/llm"
)

var baselineGames = flag.Int("baseline-games", 7, "games of TestGreedyBeatsRandom (the greedy bot's power rotates)")

// TestGreedyBeatsRandom plays the greedy bot against six random bots, its
// power rotating over the seven, and checks that it scores more than the
// random bots on average (the measured numbers are in docs/diplomacy.md;
// run with -baseline-games 70 -v to reproduce them).
func TestGreedyBeatsRandom(t *testing.T) {
	n := *baselineGames
	var greedy, random float64
	var greedyWins int
	for k := range n {
		gp := diplomacy.Powers()[k%diplomacy.NumPowers]
		models := make([]llm.ChatModel, diplomacy.NumPowers)
		for i, p := range diplomacy.Powers() {
			if p == gp {
				models[i] = dipgame.Greedy{}
			} else {
				models[i] = dipgame.Random{Seed: uint64(k*7 + i)}
			}
		}
		res, err := dipgame.Play(context.Background(), dipgame.Config{NegotiationRounds: -1}, uint64(k), models, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range diplomacy.Powers() {
			if p == gp {
				greedy += res.Score(p)
			} else {
				random += res.Score(p) / 6
			}
		}
		if res.Winner == gp {
			greedyWins++
		}
	}
	greedy /= float64(n)
	random /= float64(n)
	t.Logf("%d games of %d phases: greedy mean score %.3f (%d solo wins), random mean score %.3f", n, dipgame.DefaultMaxPhases, greedy, greedyWins, random)
	if greedy <= random+0.1 {
		t.Errorf("greedy %.3f does not beat random %.3f", greedy, random)
	}
}
