package dipgame

import "github.com/org/agentevolver/arena/diplomacy"

// ProgressKind says what a Progress report is about.
type ProgressKind uint8

// The kinds of progress report, in the order a phase produces them.
const (
	// ProgressPosition reports the board of the phase about to be played:
	// once at the start, and after each processed phase (the last time
	// with the final board, when the game is over).
	ProgressPosition ProgressKind = iota + 1
	// ProgressRound reports a negotiation round once its messages were
	// delivered.
	ProgressRound
	// ProgressPhase reports a processed phase: its log record and the
	// engine's record.
	ProgressPhase
)

// Progress is one report to Config.Observe. Which fields are set depends
// on Kind; Phase is always the phase concerned.
type Progress struct {
	Kind  ProgressKind
	Phase diplomacy.Phase
	// Position is the board (ProgressPosition); it is a copy the
	// observer owns.
	Position *diplomacy.Position
	// Round is the negotiation round as logged, with every message
	// (ProgressRound; RoundIdx counts from 0).
	Round *NegotiationLog
	// Log is the phase's record in Log.Game.Phases and Record the
	// engine's record of it (ProgressPhase).
	Log    *PhaseLog
	Record *diplomacy.PhaseRecord
}

// observe reports pr to Config.Observe, if set. Round, Log and Record are
// shared with the game's log: the contract of Config.Observe forbids
// changing them.
func (gm *game) observe(pr Progress) {
	if gm.cfg.Observe != nil {
		gm.cfg.Observe(pr)
	}
}

func (gm *game) observePosition() {
	pos := gm.g.Position()
	gm.observe(Progress{Kind: ProgressPosition, Phase: pos.Phase, Position: &pos})
}
