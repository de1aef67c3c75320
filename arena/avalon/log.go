package avalon

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/org/agentevolver"
)

// EventType names the kind of a log event (its "type" field).
type EventType string

// The event types of a game log, in the order they first occur.
const (
	EventGameStart     EventType = "game_start"
	EventRole          EventType = "role"
	EventDiscussion    EventType = "discussion"
	EventTeamProposed  EventType = "team_proposed"
	EventTeamVote      EventType = "team_vote"
	EventQuest         EventType = "quest"
	EventAssassination EventType = "assassination"
	EventParseFailure  EventType = "parse_failure"
	EventFallback      EventType = "fallback"
	EventCoerced       EventType = "coerced"
	EventCall          EventType = "call"
	EventGameEnd       EventType = "game_end"
)

// Action names what a seat was asked for, in parse, fallback and call
// events.
type Action string

// The actions a seat is asked for.
const (
	ActionDiscuss     Action = "discuss"
	ActionTeam        Action = "team"
	ActionTeamVote    Action = "team_vote"
	ActionQuestVote   Action = "quest_vote"
	ActionAssassinate Action = "assassinate"
)

// Event is one line of a game log (JSON lines). Type says which fields are
// set; Seq numbers events from 0. Quest and Proposal are 0-based indices.
// Logs hold no wall-clock times, so a seeded game with deterministic models
// writes the same bytes every time.
type Event struct {
	// Seq numbers the game's events from 0.
	Seq int `json:"seq"`
	// Type says which of the fields below are set.
	Type EventType `json:"type"`

	// Seed is the game seed (game_start).
	Seed *uint64 `json:"seed,omitempty"`
	// Players is the number of seats (game_start).
	Players int `json:"players,omitempty"`
	// Leader is the first leader (game_start).
	Leader *int `json:"leader,omitempty"`
	// Roles holds every seat's role (game_start, game_end; the log
	// reader's copy, which no seat sees).
	Roles []Role `json:"roles,omitempty"`
	// Models names each seat's model, when Config.SeatNames is set
	// (game_start).
	Models []string `json:"models,omitempty"`

	// Seat is the acting or concerned seat (role, discussion,
	// team_proposed: the leader, parse_failure, fallback, coerced, call;
	// assassination: the Assassin).
	Seat *int `json:"seat,omitempty"`
	// Role is the seat's own role (role).
	Role *Role `json:"role,omitempty"`
	// Knowledge is what the seat was told at the start (role).
	Knowledge []Sighting `json:"knowledge,omitempty"`

	// Quest is the 0-based quest index (discussion, team_proposed,
	// team_vote, quest).
	Quest *int `json:"quest,omitempty"`
	// Proposal is the 0-based proposal index within the quest
	// (discussion, team_proposed, team_vote).
	Proposal *int `json:"proposal,omitempty"`

	// Text is a public discussion message (discussion).
	Text string `json:"text,omitempty"`
	// Team is the proposed or voted team, ascending (team_proposed,
	// team_vote, quest).
	Team []int `json:"team,omitempty"`
	// Votes are the team votes per seat (team_vote, true = approve), or
	// the quest cards per team member in team order (quest, true =
	// success; secret in the game, logged for analysis).
	Votes []bool `json:"votes,omitempty"`
	// Approved says whether the team goes on the quest (team_vote).
	Approved *bool `json:"approved,omitempty"`
	// Forced marks the fifth proposal, approved whatever the votes
	// (team_vote).
	Forced bool `json:"forced,omitempty"`
	// Fails is the number of fail cards (quest).
	Fails *int `json:"fails,omitempty"`
	// Succeeded is the quest's result (quest).
	Succeeded *bool `json:"succeeded,omitempty"`

	// Target is the assassinated seat (assassination).
	Target *int `json:"target,omitempty"`
	// TargetRole is the target's true role (assassination).
	TargetRole *Role `json:"target_role,omitempty"`

	// GoodWins is the winner (assassination, game_end).
	GoodWins *bool `json:"good_wins,omitempty"`
	// Reason says in words how the game ended (game_end).
	Reason string `json:"reason,omitempty"`
	// QuestResults are the quests played (game_end).
	QuestResults []bool `json:"quest_results,omitempty"`

	// Action is what the seat was asked for (parse_failure, fallback,
	// coerced, call).
	Action Action `json:"action,omitempty"`
	// Attempt is the 0-based try of the question (parse_failure, call).
	Attempt int `json:"attempt,omitempty"`
	// Error is the parse error (parse_failure).
	Error string `json:"error,omitempty"`
	// Reply is the reply: its public part cut to 512 bytes
	// (parse_failure), or in full (call).
	Reply string `json:"reply,omitempty"`
	// Value is the value a fallback or coercion applied, in words.
	Value string `json:"value,omitempty"`
	// Prompt is the exact message list sent (call, Config.LogCalls).
	Prompt []agentevolver.Message `json:"prompt,omitempty"`
	// TokenIDs are the completion's token ids, when the model reported
	// them (call).
	TokenIDs []int `json:"token_ids,omitempty"`
}

// logWriter numbers events and writes them as JSON lines; the first write
// error is kept and later writes are skipped.
type logWriter struct {
	w   io.Writer
	seq int
	err error
	// events, when non-nil, collects every event (Result.Events).
	events *[]Event
}

func (l *logWriter) emit(e Event) {
	e.Seq = l.seq
	l.seq++
	if l.events != nil {
		*l.events = append(*l.events, e)
	}
	if l.w == nil || l.err != nil {
		return
	}
	b, err := json.Marshal(e)
	if err != nil {
		l.err = fmt.Errorf("avalon: encode log event: %w", err)
		return
	}
	b = append(b, '\n')
	if _, err := l.w.Write(b); err != nil {
		l.err = fmt.Errorf("avalon: write log: %w", err)
	}
}

func ptr[T any](v T) *T { return &v }
