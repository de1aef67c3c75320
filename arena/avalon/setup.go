package avalon

import (
	"fmt"
	"math/rand/v2"
)

// MinPlayers and MaxPlayers bound the number of seats of a game.
const (
	MinPlayers = 5
	MaxPlayers = 10
	// NumQuests is the number of quests; three successes or three failures
	// decide the quest stage.
	NumQuests = 5
	// MaxProposals is the number of consecutive team proposals per quest.
	// The fifth proposal is approved whatever the votes (the reference's
	// rule, which its prompts state: there is no "five rejections and evil
	// wins" rule).
	MaxProposals = 5
)

// Side is the team a role belongs to.
type Side int

// The two sides.
const (
	Good Side = iota
	Evil
)

// String returns "Good" or "Evil".
func (s Side) String() string {
	if s == Evil {
		return "Evil"
	}
	return "Good"
}

// Role is a character of the game. The values are the reference's role ids.
type Role int

// The roles, numbered as in the reference engine.
const (
	Merlin Role = iota
	Percival
	Morgana
	Mordred
	Oberon
	Servant
	Minion
	Assassin
)

var roleNames = [...]string{"Merlin", "Percival", "Morgana", "Mordred", "Oberon", "Servant", "Minion", "Assassin"}

// String returns the role's English name ("Merlin", "Servant", …).
func (r Role) String() string {
	if r < 0 || int(r) >= len(roleNames) {
		return fmt.Sprintf("Role(%d)", int(r))
	}
	return roleNames[r]
}

// Side returns the side the role plays for.
func (r Role) Side() Side {
	switch r {
	case Morgana, Mordred, Oberon, Minion, Assassin:
		return Evil
	}
	return Good
}

// MarshalText encodes the role by name, for JSON logs.
func (r Role) MarshalText() ([]byte, error) {
	if r < 0 || int(r) >= len(roleNames) {
		return nil, fmt.Errorf("avalon: invalid role %d", int(r))
	}
	return []byte(roleNames[r]), nil
}

// UnmarshalText decodes a role name.
func (r *Role) UnmarshalText(b []byte) error {
	for i, n := range roleNames {
		if n == string(b) {
			*r = Role(i)
			return nil
		}
	}
	return fmt.Errorf("avalon: unknown role %.32q", b)
}

// Setup is the fixed table of a player count (the reference's
// AvalonBasicConfig).
type Setup struct {
	// Players is the number of seats.
	Players int
	// Good and Evil are the side sizes.
	Good, Evil int
	// TeamSize is the team size of each quest.
	TeamSize [NumQuests]int
	// FailsNeeded is the number of fail cards that make each quest fail.
	FailsNeeded [NumQuests]int
}

var setups = map[int]Setup{
	5:  {5, 3, 2, [5]int{2, 3, 2, 3, 3}, [5]int{1, 1, 1, 1, 1}},
	6:  {6, 4, 2, [5]int{2, 3, 4, 3, 4}, [5]int{1, 1, 1, 1, 1}},
	7:  {7, 4, 3, [5]int{2, 3, 3, 4, 4}, [5]int{1, 1, 1, 2, 1}},
	8:  {8, 5, 3, [5]int{3, 4, 4, 5, 5}, [5]int{1, 1, 1, 2, 1}},
	9:  {9, 6, 3, [5]int{3, 4, 4, 5, 5}, [5]int{1, 1, 1, 2, 1}},
	10: {10, 6, 4, [5]int{3, 4, 4, 5, 5}, [5]int{1, 1, 1, 2, 1}},
}

// SetupFor returns the table for a player count; a count outside
// MinPlayers..MaxPlayers fails with ErrConfig.
func SetupFor(players int) (Setup, error) {
	s, ok := setups[players]
	if !ok {
		return Setup{}, fmt.Errorf("%w: %d players (want %d to %d)", ErrConfig, players, MinPlayers, MaxPlayers)
	}
	return s, nil
}

// Roles chooses the optional characters of a game. The zero value is the
// reference's only playable set: Merlin and Servants for good, the Assassin
// and Minions for evil. An optional good role replaces a Servant, an
// optional evil role a Minion.
type Roles struct {
	// Percival sees Merlin and Morgana without knowing which is which.
	Percival bool `yaml:"percival"`
	// Morgana (evil) appears to Percival as a possible Merlin.
	Morgana bool `yaml:"morgana"`
	// Mordred (evil) is hidden from Merlin.
	Mordred bool `yaml:"mordred"`
	// Oberon (evil) does not know the other evil players, and they do not
	// know him.
	Oberon bool `yaml:"oberon"`
}

// Cast returns the multiset of roles of a game with the given setup: good
// roles first (Merlin, optional Percival, Servants), then evil roles
// (Assassin, optional Morgana, Mordred, Oberon, Minions). It fails with
// ErrConfig when the optional evil roles do not fit beside the Assassin.
func (r Roles) Cast(s Setup) ([]Role, error) {
	good := []Role{Merlin}
	if r.Percival {
		good = append(good, Percival)
	}
	evil := []Role{Assassin}
	for _, opt := range []struct {
		on   bool
		role Role
	}{{r.Morgana, Morgana}, {r.Mordred, Mordred}, {r.Oberon, Oberon}} {
		if opt.on {
			evil = append(evil, opt.role)
		}
	}
	if len(good) > s.Good || len(evil) > s.Evil {
		return nil, fmt.Errorf("%w: %d players have %d evil seats, too few for %d special evil roles", ErrConfig, s.Players, s.Evil, len(evil))
	}
	for len(good) < s.Good {
		good = append(good, Servant)
	}
	for len(evil) < s.Evil {
		evil = append(evil, Minion)
	}
	return append(good, evil...), nil
}

// Deal is the seeded start of a game: who plays which role and who leads
// first.
type Deal struct {
	// Roles holds the role of each seat.
	Roles []Role
	// Leader is the first quest leader, uniform over all seats (the
	// reference can never pick the last seat; that bias is not kept).
	Leader int
}

// Stream ids of the game's PCG generators, so that each use of randomness
// draws from its own sequence and adding draws to one never shifts another.
const (
	streamDeal     = 0x61766c6e_6465616c // "avln" "deal"
	streamFallback = 0x61766c6e_66616c6c // "avln" "fall"
	streamCalls    = 0x61766c6e_63616c6c // "avln" "call"
)

// DealRoles deals the cast onto the seats and draws the first leader, from a
// PCG generator seeded with seed: the same seed always gives the same deal.
func DealRoles(seed uint64, s Setup, r Roles) (Deal, error) {
	cast, err := r.Cast(s)
	if err != nil {
		return Deal{}, err
	}
	rng := rand.New(rand.NewPCG(seed, streamDeal))
	rng.Shuffle(len(cast), func(i, j int) { cast[i], cast[j] = cast[j], cast[i] })
	return Deal{Roles: cast, Leader: rng.IntN(s.Players)}, nil
}
