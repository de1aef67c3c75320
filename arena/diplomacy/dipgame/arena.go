package dipgame

import (
	"context"
	"fmt"

	"github.com/org/agentevolver/arena"
	"github.com/org/agentevolver/arena/diplomacy"
)

// ArenaGame plays Diplomacy in arena tournaments: seat i is
// diplomacy.Powers()[i], its role is the power's name and its score the
// power's reward (0 if eliminated, else min(centres/18, 1)), so Elo
// compares the powers' centre counts as the reference's leaderboard does.
// Config.SeatNames and Config.GameID are filled from the match; the
// match's log receives the game's log (one JSON object).
type ArenaGame struct {
	// Config configures every match.
	Config Config
}

var _ arena.Game = ArenaGame{}

// Name returns "diplomacy".
func (ArenaGame) Name() string { return "diplomacy" }

// Seats returns 7.
func (ArenaGame) Seats() int { return diplomacy.NumPowers }

// Play plays one match.
func (a ArenaGame) Play(ctx context.Context, m arena.Match) ([]arena.SeatResult, error) {
	cfg := a.Config
	cfg.SeatNames = m.Names
	cfg.GameID = fmt.Sprint(m.Index)
	res, err := Play(ctx, cfg, m.Seed, m.Models, m.Log)
	if err != nil {
		return nil, err
	}
	out := make([]arena.SeatResult, diplomacy.NumPowers)
	for i, p := range diplomacy.Powers() {
		out[i] = arena.SeatResult{Role: p.String(), Score: res.Score(p)}
	}
	return out, nil
}
