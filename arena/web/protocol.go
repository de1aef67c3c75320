package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/arena/avalon"
)

// Sentinel errors. Errors returned by the handler's API and sent to a
// browser wrap one of them.
var (
	// ErrBadMessage reports a client message that is not well-formed: not
	// JSON, an unknown type or field, a value out of bounds.
	ErrBadMessage = errors.New("web: bad client message")
	// ErrBadAnswer reports a well-formed answer that does not fit the open
	// question: no question open, another question's id, the wrong kind of
	// answer, an illegal team or target.
	ErrBadAnswer = errors.New("web: answer does not fit the question")
	// ErrNotPlayer reports an answer from a connection that does not hold
	// the person's seat.
	ErrNotPlayer = errors.New("web: only the person's connection may answer")
	// ErrBadRequest reports an invalid new-game request.
	ErrBadRequest = errors.New("web: bad request")
	// ErrForbidden reports a request refused for where it comes from or
	// what it lacks: a Host that is not the server's, a foreign Origin, a
	// missing or wrong token.
	ErrForbidden = errors.New("web: forbidden")
	// ErrTooManyGames reports that Config.MaxGames observe games or
	// Config.MaxPersonGames person games are running.
	ErrTooManyGames = errors.New("web: too many games running")
	// ErrNoGame reports an unknown game id.
	ErrNoGame = errors.New("web: no such game")
	// ErrClosed reports a server that was closed.
	ErrClosed = errors.New("web: server closed")
	// ErrPersonLeft ends a game whose person kept no connection open for
	// Config.PersonTimeout while a question waited for them.
	ErrPersonLeft = errors.New("web: the person left the game")
	// ErrNoAnswer ends a game whose person did not answer a question
	// within Config.AnswerTimeout.
	ErrNoAnswer = errors.New("web: the person did not answer in time")
)

// Message types of the WebSocket protocol. The server sends hello, event,
// question, question_closed, status and error; the client sends answer.
const (
	TypeHello          = "hello"
	TypeEvent          = "event"
	TypeQuestion       = "question"
	TypeQuestionClosed = "question_closed"
	TypeStatus         = "status"
	TypeError          = "error"
	TypeAnswer         = "answer"
)

// MaxSpeechBytes bounds a person's discussion turn (the game cuts every
// player's public words at avalon.MaxSpeechBytes; a person is held to a
// tighter bound so that a paste cannot flood the table).
const MaxSpeechBytes = 2000

// ServerMessage is one message from the server to a browser, a JSON text
// frame. Type says which fields are set.
type ServerMessage struct {
	// Type is one of the Type constants.
	Type string `json:"type"`
	// Game describes the game (hello, status).
	Game *GameInfo `json:"game,omitempty"`
	// Seat is the seat the connection plays, -1 for an observer (hello).
	Seat *int `json:"seat,omitempty"`
	// Secrets says whether this connection receives hidden information
	// (hello): roles, knowledge and quest cards; only observers of a game
	// without a person do.
	Secrets bool `json:"secrets,omitempty"`
	// Event is one game event, as the connection may see it (event).
	Event *avalon.Event `json:"event,omitempty"`
	// Question is the person's open question (question).
	Question *OpenQuestion `json:"question,omitempty"`
	// ID is the closed question's id (question_closed).
	ID int `json:"id,omitempty"`
	// Message explains an error (error).
	Message string `json:"message,omitempty"`
}

// OpenQuestion is a question put to the person's seat.
type OpenQuestion struct {
	// ID numbers the person's questions from 1; an answer names it.
	ID int `json:"id"`
	avalon.Question
	// Prompt is exactly what the seat's model would have been sent.
	Prompt []agentevolver.Message `json:"prompt"`
}

// ClientMessage is one message from a browser: an answer to the open
// question. Exactly the field that fits the question's action is set:
// Team (team), Vote (team_vote: approve; quest_vote: success), Target
// (assassinate) or Text (discuss).
type ClientMessage struct {
	// Type must be TypeAnswer.
	Type string `json:"type"`
	// ID is the question answered.
	ID int `json:"id"`
	// Team is the chosen team.
	Team []int `json:"team,omitempty"`
	// Vote is approve/success (true) or reject/fail (false).
	Vote *bool `json:"vote,omitempty"`
	// Target is the assassinated seat.
	Target *int `json:"target,omitempty"`
	// Text is a discussion turn.
	Text *string `json:"text,omitempty"`
}

// maxTeam bounds a team list in a client message (the largest team is 5).
const maxTeam = 16

// ParseClientMessage reads one client message defensively: it must be a
// single JSON object of at most maxBytes bytes with known fields only, of
// type answer, with a positive id, at most one answer field, a team of at
// most 16 seats and a valid UTF-8 text of at most MaxSpeechBytes. Errors
// wrap ErrBadMessage.
func ParseClientMessage(b []byte, maxBytes int) (ClientMessage, error) {
	var m ClientMessage
	if maxBytes > 0 && len(b) > maxBytes {
		return m, fmt.Errorf("%w: %d bytes (limit %d)", ErrBadMessage, len(b), maxBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return ClientMessage{}, fmt.Errorf("%w: %v", ErrBadMessage, err)
	}
	if dec.More() {
		return ClientMessage{}, fmt.Errorf("%w: trailing data after the message", ErrBadMessage)
	}
	if m.Type != TypeAnswer {
		return ClientMessage{}, fmt.Errorf("%w: unknown type %q", ErrBadMessage, clip(m.Type, 32))
	}
	if m.ID <= 0 {
		return ClientMessage{}, fmt.Errorf("%w: question id %d", ErrBadMessage, m.ID)
	}
	set := 0
	if m.Team != nil {
		set++
	}
	if m.Vote != nil {
		set++
	}
	if m.Target != nil {
		set++
	}
	if m.Text != nil {
		set++
	}
	if set != 1 {
		return ClientMessage{}, fmt.Errorf("%w: an answer holds exactly one of team, vote, target and text (got %d)", ErrBadMessage, set)
	}
	if len(m.Team) > maxTeam {
		return ClientMessage{}, fmt.Errorf("%w: team of %d seats", ErrBadMessage, len(m.Team))
	}
	if m.Text != nil {
		if len(*m.Text) > MaxSpeechBytes {
			return ClientMessage{}, fmt.Errorf("%w: text of %d bytes (limit %d)", ErrBadMessage, len(*m.Text), MaxSpeechBytes)
		}
		if !utf8.ValidString(*m.Text) {
			return ClientMessage{}, fmt.Errorf("%w: text is not UTF-8", ErrBadMessage)
		}
	}
	return m, nil
}

// answerText turns a structured answer into the reply the game's parsers
// read, after checking it against the question. Errors wrap ErrBadAnswer.
func answerText(q avalon.Question, m ClientMessage) (string, error) {
	wrong := func(want string) error {
		return fmt.Errorf("%w: question %s wants %s", ErrBadAnswer, q.Action, want)
	}
	switch q.Action {
	case avalon.ActionTeam:
		if m.Team == nil {
			return "", wrong("a team")
		}
		if len(m.Team) != q.TeamSize {
			return "", fmt.Errorf("%w: team of %d, want %d players", ErrBadAnswer, len(m.Team), q.TeamSize)
		}
		seen := map[int]bool{}
		for _, s := range m.Team {
			if s < 0 || s >= q.Players || seen[s] {
				return "", fmt.Errorf("%w: team %v: seats must be distinct, 0 to %d", ErrBadAnswer, m.Team, q.Players-1)
			}
			seen[s] = true
		}
		b := []byte("[")
		for i, s := range m.Team {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = fmt.Appendf(b, "%d", s)
		}
		return string(append(b, ']')), nil
	case avalon.ActionTeamVote, avalon.ActionQuestVote:
		if m.Vote == nil {
			return "", wrong("a vote")
		}
		if *m.Vote {
			return "Yes", nil
		}
		return "No", nil
	case avalon.ActionAssassinate:
		if m.Target == nil {
			return "", wrong("a target")
		}
		t := *m.Target
		if t < 0 || t >= q.Players || t == q.Seat {
			return "", fmt.Errorf("%w: target %d: want a seat from 0 to %d other than %d", ErrBadAnswer, t, q.Players-1, q.Seat)
		}
		return avalon.PlayerName(t), nil
	case avalon.ActionDiscuss:
		if m.Text == nil {
			return "", wrong("text")
		}
		return *m.Text, nil
	}
	return "", fmt.Errorf("%w: unknown action %q", ErrBadAnswer, q.Action)
}

// clip cuts s to n bytes at a rune boundary, for error messages that echo
// client input.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
