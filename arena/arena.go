package arena

import (
	"context"
	"errors"
	"io"

	"github.com/org/agentevolver/llm"
)

// Errors of the package, for errors.Is.
var (
	// ErrConfig reports an invalid tournament or leaderboard configuration.
	ErrConfig = errors.New("arena: invalid configuration")
	// ErrCorrupt reports a leaderboard file that is not a readable
	// leaderboard (not a bbolt file, another program's database, a newer
	// format, a malformed or oversized record). The file is never repaired
	// or overwritten.
	ErrCorrupt = errors.New("arena: corrupt or foreign leaderboard file")
	// ErrLocked reports a leaderboard file held open by another process (or
	// another Leaderboard in this one) for longer than the lock timeout.
	ErrLocked = errors.New("arena: leaderboard file is locked")
	// ErrClosed reports a call on a closed Leaderboard.
	ErrClosed = errors.New("arena: leaderboard closed")
	// ErrParamsMismatch reports a leaderboard opened with Elo parameters
	// other than the ones it was created with.
	ErrParamsMismatch = errors.New("arena: leaderboard has other Elo parameters")
	// ErrTournamentMismatch reports a tournament resumed with another game,
	// seed or entrant list than the one recorded under its ID.
	ErrTournamentMismatch = errors.New("arena: tournament ID already used with another configuration")
)

// Game is a multi-agent game that a tournament can play. Implementations
// must be safe for concurrent calls of Play (a tournament plays several
// matches at once).
type Game interface {
	// Name identifies the game ("avalon"); it is recorded with every
	// tournament.
	Name() string
	// Seats is the number of seats of every match.
	Seats() int
	// Play plays one match. It returns one SeatResult per seat, in seat
	// order, or an error; an error wrapping context.Canceled,
	// context.DeadlineExceeded or llm.ErrUnavailable stops the tournament
	// (the match is played again on resume), any other error is recorded
	// as a failed match.
	Play(ctx context.Context, m Match) ([]SeatResult, error)
}

// Match is one game of a tournament as the Game sees it.
type Match struct {
	// Index is the match's 0-based index in its tournament.
	Index int
	// Seed seeds the match; the same seed and deterministic models must
	// give the same result.
	Seed uint64
	// Models holds the model of each seat.
	Models []llm.ChatModel
	// Names holds the entrant name of each seat.
	Names []string
	// Log receives the game's log (JSON lines for the games of this
	// module); nil means no log.
	Log io.Writer
}

// SeatResult is how one seat did in a match.
type SeatResult struct {
	// Role is the seat's role ("Merlin", "Servant", a power name), for the
	// per-role statistics.
	Role string `json:"role"`
	// Score is in [0, 1]: 1 for a win, 0 for a loss, a share for games
	// scored continuously. Elo compares seats by score.
	Score float64 `json:"score"`
}
