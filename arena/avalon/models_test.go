package avalon

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/org/agentevolver/llm"
)

func TestScriptedModel(t *testing.T) {
	s := NewScripted("a", "b")
	ctx := context.Background()
	for _, want := range []string{"a", "b"} {
		c, err := s.Chat(ctx, nil, llm.ChatOptions{})
		if err != nil || c.Message.Content != want {
			t.Fatalf("got %q %v, want %q", c.Message.Content, err, want)
		}
	}
	if _, err := s.Chat(ctx, nil, llm.ChatOptions{}); !errors.Is(err, ErrScriptExhausted) {
		t.Fatalf("exhausted: %v", err)
	}
	s.Default = "z"
	if c, _ := s.Chat(ctx, nil, llm.ChatOptions{}); c.Message.Content != "z" || len(s.Requests) != 4 {
		t.Fatalf("default %q, %d requests", c.Message.Content, len(s.Requests))
	}
}

func TestInformedHelpers(t *testing.T) {
	roles := []Role{Merlin, Servant, Assassin, Servant, Minion}
	sys := func(seat int) string {
		return systemPrompt(mustSetupT(t, 5), roles, seat, roles[seat], Knowledge(roles, seat))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		team := informedTeam(rng, sys(0), 2, 5) // Merlin
		if !slices.Contains(team, 0) || slices.Contains(team, 2) || slices.Contains(team, 4) {
			t.Fatalf("Merlin's team %v", team)
		}
		team = informedTeam(rng, sys(2), 3, 5) // Assassin: self, not the Minion
		if !slices.Contains(team, 2) || slices.Contains(team, 4) {
			t.Fatalf("Assassin's team %v", team)
		}
	}
	ask := func(team []int) string {
		return "The leader, Player 1, proposed the team " + listSeats(team) + " for quest 1."
	}
	if informedVote(sys(0), ask([]int{1, 4}), false, true) || !informedVote(sys(0), ask([]int{1, 3}), false, false) {
		t.Fatal("Merlin's votes")
	}
	if !informedVote(sys(2), ask([]int{1, 4}), true, false) || informedVote(sys(2), ask([]int{1, 3}), true, true) {
		t.Fatal("Assassin's votes")
	}
	if !informedVote(sys(1), ask([]int{1, 3}), false, false) {
		t.Fatal("Servant on the team rejected it")
	}
}

func mustSetupT(t *testing.T, n int) Setup {
	t.Helper()
	s, err := SetupFor(n)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Informed Good players win more often than random ones against the same
// evil players: the baseline models are not all equal, so tournaments
// between them have something to rank.
func TestInformedBeatsRandom(t *testing.T) {
	goodWins := func(informed bool) int {
		wins := 0
		for seed := range uint64(60) {
			roles, _ := DealRoles(seed, mustSetupT(t, 5), Roles{})
			seats := make([]llm.ChatModel, 5)
			for i, r := range roles.Roles {
				seats[i] = Random{Seed: uint64(i), Informed: informed && r.Side() == Good}
			}
			res, err := Play(context.Background(), Config{}, seed, seats, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.GoodWins {
				wins++
			}
		}
		return wins
	}
	r, i := goodWins(false), goodWins(true)
	t.Logf("good wins of 60: random %d, informed %d", r, i)
	if i <= r {
		t.Fatalf("informed good won %d of 60, random good %d", i, r)
	}
}
