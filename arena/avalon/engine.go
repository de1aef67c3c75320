package avalon

import (
	"errors"
	"fmt"
	"slices"
)

// Errors of the package, for errors.Is.
var (
	// ErrConfig reports an invalid game configuration: a player count
	// outside 5..10, optional roles that do not fit, a wrong number of
	// seat models.
	ErrConfig = errors.New("avalon: invalid configuration")
	// ErrIllegalAction reports an engine call that the rules do not allow
	// now: the game is over, the phase is another, a team of the wrong size
	// or with a seat out of range, a vote list of the wrong length, an
	// assassination by someone other than the Assassin.
	ErrIllegalAction = errors.New("avalon: illegal action")
	// ErrUnparsable reports a reply from which no legal action could be
	// read (see the Parse functions). The game re-asks and, when the
	// retries are spent, applies its fallback; callers of the parsers see
	// it directly.
	ErrUnparsable = errors.New("avalon: unparsable reply")
	// ErrModel reports a seat's model that failed to answer (wrapping the
	// model's error); the game stops.
	ErrModel = errors.New("avalon: seat model failed")
)

// Phase is the stage of the engine's state machine.
type Phase int

// The phases, numbered as in the reference engine, plus PhaseDone.
const (
	PhaseTeamSelection Phase = iota
	PhaseTeamVote
	PhaseQuest
	PhaseAssassination
	PhaseDone
)

var phaseNames = [...]string{"team_selection", "team_vote", "quest", "assassination", "done"}

// String returns the phase's snake_case name.
func (p Phase) String() string {
	if p < 0 || int(p) >= len(phaseNames) {
		return fmt.Sprintf("Phase(%d)", int(p))
	}
	return phaseNames[p]
}

// Engine is the rules of one game as a deterministic state machine: it
// never talks to a model and never draws a random number. The zero value is
// not usable; make one with NewEngine. An Engine is not safe for concurrent
// use.
type Engine struct {
	setup    Setup
	roles    []Role
	leader   int
	quest    int // 0-based index of the current quest
	proposal int // 0-based index of the current proposal within the quest
	phase    Phase
	team     []int
	results  []bool
	goodWins bool
	assassin int
	reason   string
}

// NewEngine starts a game in the team selection phase of the first quest,
// with the dealt roles and first leader.
func NewEngine(s Setup, d Deal) (*Engine, error) {
	if ref, ok := setups[s.Players]; !ok || ref != s {
		return nil, fmt.Errorf("%w: setup for %d players is not a standard table", ErrConfig, s.Players)
	}
	if len(d.Roles) != s.Players || d.Leader < 0 || d.Leader >= s.Players {
		return nil, fmt.Errorf("%w: deal of %d roles, leader %d, for %d players", ErrConfig, len(d.Roles), d.Leader, s.Players)
	}
	e := &Engine{setup: s, roles: slices.Clone(d.Roles), leader: d.Leader, assassin: -1}
	var good, evil int
	for i, r := range e.roles {
		if r < Merlin || r > Assassin {
			return nil, fmt.Errorf("%w: seat %d has invalid role %d", ErrConfig, i, int(r))
		}
		if r.Side() == Good {
			good++
		} else {
			evil++
		}
		if r == Assassin {
			if e.assassin >= 0 {
				return nil, fmt.Errorf("%w: two Assassins", ErrConfig)
			}
			e.assassin = i
		}
	}
	if good != s.Good || evil != s.Evil || e.assassin < 0 {
		return nil, fmt.Errorf("%w: deal has %d good and %d evil (want %d and %d) and needs one Assassin", ErrConfig, good, evil, s.Good, s.Evil)
	}
	return e, nil
}

// Setup returns the game's table.
func (e *Engine) Setup() Setup { return e.setup }

// Roles returns a copy of every seat's role.
func (e *Engine) Roles() []Role { return slices.Clone(e.roles) }

// Phase returns the current phase.
func (e *Engine) Phase() Phase { return e.phase }

// Leader returns the seat that proposes the next team (or proposed the team
// now being voted on or played).
func (e *Engine) Leader() int { return e.leader }

// Quest returns the 0-based index of the current quest.
func (e *Engine) Quest() int { return e.quest }

// Proposal returns the 0-based index of the current proposal within the
// quest (0..MaxProposals-1).
func (e *Engine) Proposal() int { return e.proposal }

// TeamSize returns the size of the current quest's team.
func (e *Engine) TeamSize() int { return e.setup.TeamSize[min(e.quest, NumQuests-1)] }

// Team returns a copy of the team proposed last.
func (e *Engine) Team() []int { return slices.Clone(e.team) }

// QuestResults returns a copy of the results so far (true = succeeded).
func (e *Engine) QuestResults() []bool { return slices.Clone(e.results) }

// Assassin returns the Assassin's seat.
func (e *Engine) Assassin() int { return e.assassin }

// Done reports whether the game is over.
func (e *Engine) Done() bool { return e.phase == PhaseDone }

// GoodWins reports the winner of a finished game.
func (e *Engine) GoodWins() bool { return e.goodWins }

// Reason says in words why a finished game ended.
func (e *Engine) Reason() string { return e.reason }

// NextProposalForced reports whether the team now being voted on (or the
// next one proposed) is the quest's last allowed proposal, which is
// approved whatever the votes.
func (e *Engine) NextProposalForced() bool { return e.proposal == MaxProposals-1 }

func (e *Engine) want(p Phase) error {
	if e.phase == PhaseDone {
		return fmt.Errorf("%w: the game is over", ErrIllegalAction)
	}
	if e.phase != p {
		return fmt.Errorf("%w: phase is %s, not %s", ErrIllegalAction, e.phase, p)
	}
	return nil
}

// ValidTeam checks that team has exactly the current quest's size and
// distinct seats in range.
func (e *Engine) ValidTeam(team []int) error {
	if len(team) != e.TeamSize() {
		return fmt.Errorf("%w: team of %d, quest %d needs %d", ErrIllegalAction, len(team), e.quest+1, e.TeamSize())
	}
	seen := make([]bool, e.setup.Players)
	for _, s := range team {
		if s < 0 || s >= e.setup.Players {
			return fmt.Errorf("%w: seat %d out of range 0..%d", ErrIllegalAction, s, e.setup.Players-1)
		}
		if seen[s] {
			return fmt.Errorf("%w: seat %d twice in the team", ErrIllegalAction, s)
		}
		seen[s] = true
	}
	return nil
}

// ProposeTeam records the leader's team and moves to the vote. The
// leadership then passes to the next seat, whether or not the team is
// approved (as in the reference).
func (e *Engine) ProposeTeam(leader int, team []int) error {
	if err := e.want(PhaseTeamSelection); err != nil {
		return err
	}
	if leader != e.leader {
		return fmt.Errorf("%w: seat %d is not the leader (%d)", ErrIllegalAction, leader, e.leader)
	}
	if err := e.ValidTeam(team); err != nil {
		return err
	}
	e.team = slices.Clone(team)
	slices.Sort(e.team)
	e.phase = PhaseTeamVote
	return nil
}

// VoteTeam counts one vote per seat (true = approve). The team is approved
// by a strict majority, or whatever the votes on the fifth proposal of a
// quest (forced reports that case). An approved team goes on the quest; a
// rejected one passes the proposal to the next leader.
func (e *Engine) VoteTeam(votes []bool) (approved, forced bool, err error) {
	if err := e.want(PhaseTeamVote); err != nil {
		return false, false, err
	}
	if len(votes) != e.setup.Players {
		return false, false, fmt.Errorf("%w: %d team votes for %d players", ErrIllegalAction, len(votes), e.setup.Players)
	}
	yes := 0
	for _, v := range votes {
		if v {
			yes++
		}
	}
	forced = e.proposal == MaxProposals-1
	approved = forced || 2*yes > e.setup.Players
	e.leader = (e.leader + 1) % e.setup.Players
	if approved {
		e.phase, e.proposal = PhaseQuest, 0
	} else {
		e.phase = PhaseTeamSelection
		e.proposal++
	}
	return approved, forced, nil
}

// VoteQuest counts the team members' quest cards (true = success), in team
// order. The quest fails when the fail cards reach the quest's FailsNeeded.
// Three failures end the game for evil; three successes move to the
// assassination.
func (e *Engine) VoteQuest(votes []bool) (succeeded bool, fails int, err error) {
	if err := e.want(PhaseQuest); err != nil {
		return false, 0, err
	}
	if len(votes) != len(e.team) {
		return false, 0, fmt.Errorf("%w: %d quest votes for a team of %d", ErrIllegalAction, len(votes), len(e.team))
	}
	for _, v := range votes {
		if !v {
			fails++
		}
	}
	succeeded = fails < e.setup.FailsNeeded[e.quest]
	e.results = append(e.results, succeeded)
	e.quest++
	var ok, bad int
	for _, r := range e.results {
		if r {
			ok++
		} else {
			bad++
		}
	}
	switch {
	case bad >= 3:
		e.phase, e.goodWins, e.reason = PhaseDone, false, "three quests failed"
	case ok >= 3:
		e.phase = PhaseAssassination
	default:
		e.phase = PhaseTeamSelection
	}
	return succeeded, fails, nil
}

// Assassinate ends the game: evil wins if the Assassin's target is Merlin,
// good wins otherwise. The target must be another seat.
func (e *Engine) Assassinate(assassin, target int) (goodWins bool, err error) {
	if err := e.want(PhaseAssassination); err != nil {
		return false, err
	}
	if assassin != e.assassin {
		return false, fmt.Errorf("%w: seat %d is not the Assassin", ErrIllegalAction, assassin)
	}
	if target < 0 || target >= e.setup.Players || target == assassin {
		return false, fmt.Errorf("%w: assassination target %d", ErrIllegalAction, target)
	}
	e.phase = PhaseDone
	if e.roles[target] == Merlin {
		e.goodWins, e.reason = false, "the Assassin found Merlin"
	} else {
		e.goodWins, e.reason = true, "three quests succeeded and Merlin survived"
	}
	return e.goodWins, nil
}
