package avalon

import (
	"context"
	"fmt"

	"github.com/org/agentevolver/arena"
	"github.com/org/agentevolver/llm"
)

// ArenaGame plays Avalon in arena tournaments: each seat scores 1 when its
// side wins and 0 otherwise, under its role's name ("Merlin", "Servant",
// …). Config.SeatNames is filled from the match.
type ArenaGame struct {
	// Config configures every match; its Players fixes the seats.
	Config Config
}

var _ arena.Game = ArenaGame{}

// Name returns "avalon".
func (ArenaGame) Name() string { return "avalon" }

// Seats returns the player count.
func (a ArenaGame) Seats() int {
	if a.Config.Players == 0 {
		return DefaultPlayers
	}
	return a.Config.Players
}

// Play plays one match.
func (a ArenaGame) Play(ctx context.Context, m arena.Match) ([]arena.SeatResult, error) {
	cfg := a.Config
	cfg.SeatNames = m.Names
	res, err := Play(ctx, cfg, m.Seed, m.Models, m.Log)
	if err != nil {
		return nil, err
	}
	out := make([]arena.SeatResult, len(res.Roles))
	for i, r := range res.Roles {
		out[i] = arena.SeatResult{Role: r.String()}
		if res.Won(i) {
			out[i].Score = 1
		}
	}
	return out, nil
}

// RoleSeating returns an arena.Batch seating that gives each seat the
// entrant of the role it will be dealt in a match with that seed (the
// reference's per-role model configuration, §1.1.1): byRole[role] if
// present, else def. It deals with DealRoles exactly as Play does, so the
// seating matches the game.
func RoleSeating(cfg Config, byRole map[Role]arena.Entrant, def arena.Entrant) func(int, uint64) ([]llm.ChatModel, []string, error) {
	return func(_ int, seed uint64) ([]llm.ChatModel, []string, error) {
		n := cfg.Players
		if n == 0 {
			n = DefaultPlayers
		}
		s, err := SetupFor(n)
		if err != nil {
			return nil, nil, err
		}
		d, err := DealRoles(seed, s, cfg.Roles)
		if err != nil {
			return nil, nil, err
		}
		models := make([]llm.ChatModel, n)
		names := make([]string, n)
		for i, r := range d.Roles {
			e, ok := byRole[r]
			if !ok || e.Model == nil {
				e = def
			}
			if e.Model == nil {
				return nil, nil, fmt.Errorf("%w: no model for role %s and no default", ErrConfig, r)
			}
			models[i], names[i] = e.Model, e.Name
		}
		return models, names, nil
	}
}
