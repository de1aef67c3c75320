package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/arena/avalon"
	"github.com/org/agentevolver/internal/retry"
	"github.com/org/agentevolver/llm"
)

// Game statuses.
const (
	StatusRunning  = "running"
	StatusFinished = "finished"
	StatusStopped  = "stopped"
	StatusFailed   = "failed"
)

// GameInfo describes a game, in the game list and in hello and status
// messages.
type GameInfo struct {
	// ID names the game in URLs.
	ID string `json:"id"`
	// Players is the number of seats.
	Players int `json:"players"`
	// TeamSizes and FailsNeeded are the quest table of the player count.
	TeamSizes   []int `json:"team_sizes"`
	FailsNeeded []int `json:"fails_needed"`
	// Models names each seat's model ("person" for the person's seat).
	Models []string `json:"models"`
	// PersonSeat is the seat a person plays, or -1 (observe mode).
	PersonSeat int `json:"person_seat"`
	// Seed is the game seed; it is withheld while a person plays, since
	// the deal is a function of it.
	Seed *uint64 `json:"seed,omitempty"`
	// Status is one of the Status constants; Error explains a failure.
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// GoodWins is the winner once finished.
	GoodWins *bool `json:"good_wins,omitempty"`
	// Events is the number of events so far; while a person plays, only
	// the public ones are counted, so that the count reveals nothing
	// hidden.
	Events int `json:"events"`
	// Created is when the game was created.
	Created time.Time `json:"created"`
}

// PersonModel is the model name of the person's seat in GameInfo.Models.
const PersonModel = "person"

// game is one game held by the server: its events so far, its open
// question and its status. Connections follow it by polling under mu and
// waiting on changed, which is closed (and replaced) on every change, so a
// slow connection only lags and never blocks the game.
type game struct {
	id         string
	token      string // the person's seat, "" in observe mode
	seed       uint64
	setup      avalon.Setup
	models     []string
	personSeat int
	created    time.Time
	cancel     context.CancelFunc
	done       chan struct{}
	viewers    int // guarded by srv.mu

	mu       sync.Mutex
	events   []avalon.Event
	public   int // events everyone may see
	log      bytes.Buffer
	partial  []byte
	status   string
	err      string
	goodWins *bool
	changed  chan struct{}

	// place is the person's open question and presence (guarded by mu).
	place personPlace[OpenQuestion]
}

// newGame returns a running game whose person (if any) has the server's
// timeouts; the caller fills in the rest.
func newGame(cfg Config) *game {
	g := &game{status: StatusRunning, changed: make(chan struct{}), done: make(chan struct{})}
	g.place = newPersonPlace[OpenQuestion](&g.mu, g.notifyLocked, func() bool { return g.status == StatusRunning }, cfg.PersonTimeout, cfg.AnswerTimeout)
	return g
}

func (g *game) notifyLocked() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// Write receives the game's JSON-lines log; each complete line is decoded
// into an event and published.
func (g *game) Write(b []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.log.Write(b)
	g.partial = append(g.partial, b...)
	for {
		i := bytes.IndexByte(g.partial, '\n')
		if i < 0 {
			break
		}
		var e avalon.Event
		if err := json.Unmarshal(g.partial[:i], &e); err != nil {
			return 0, fmt.Errorf("web: decode game event: %w", err)
		}
		g.partial = g.partial[i+1:]
		g.events = append(g.events, e)
		if _, ok := (viewer{seat: -1}).visible(e); ok {
			g.public++
		}
	}
	g.notifyLocked()
	return len(b), nil
}

func (g *game) info() GameInfo {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.infoLocked()
}

func (g *game) infoLocked() GameInfo {
	gi := GameInfo{
		ID: g.id, Players: g.setup.Players,
		TeamSizes: g.setup.TeamSize[:], FailsNeeded: g.setup.FailsNeeded[:],
		Models: g.models, PersonSeat: g.personSeat,
		Status: g.status, Error: g.err, GoodWins: g.goodWins, Events: len(g.events), Created: g.created,
	}
	if g.personSeat < 0 || g.status != StatusRunning {
		gi.Seed = &g.seed
	} else {
		gi.Events = g.public
	}
	return gi
}

func (g *game) finish(res avalon.Result, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case err == nil:
		g.status = StatusFinished
		g.goodWins = &res.GoodWins
	case g.status == StatusStopped:
	case errors.Is(err, context.Canceled):
		g.status = StatusStopped
	case errors.Is(err, ErrPersonLeft), errors.Is(err, ErrNoAnswer):
		g.status, g.err = StatusStopped, err.Error()
	default:
		g.status, g.err = StatusFailed, err.Error()
	}
	g.place.closeLocked()
	g.notifyLocked()
}

func (g *game) stop() {
	g.mu.Lock()
	if g.status == StatusRunning {
		g.status = StatusStopped
		g.notifyLocked()
	}
	g.mu.Unlock()
	g.cancel()
}

// answer delivers a person's answer to the open question.
func (g *game) answer(m ClientMessage) error {
	return g.place.answer(m.ID, func(q OpenQuestion) (string, error) { return answerText(q.Question, m) })
}

// personSeat is the person's seat: an llm.ChatModel whose Chat shows the
// question to the person's connections and waits for the answer until the
// game's context ends, the person has been gone for Config.PersonTimeout
// or Config.AnswerTimeout has passed, open connections or not.
type personSeat struct{ g *game }

var _ llm.ChatModel = personSeat{}

// Chat publishes the question read from messages and waits for the answer.
func (p personSeat) Chat(ctx context.Context, messages []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
	q, err := avalon.ReadQuestion(messages)
	if err != nil {
		return llm.Completion{}, fmt.Errorf("web: person seat: %w", err)
	}
	text, err := p.g.place.ask(ctx, func(id int) OpenQuestion {
		return OpenQuestion{ID: id, Question: q, Prompt: slices.Clone(messages)}
	})
	if err != nil {
		return llm.Completion{}, err
	}
	return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: text}, FinishReason: "stop"}, nil
}

// paced delays each call of an AI seat, so that a game between fast
// models can be watched.
type paced struct {
	inner llm.ChatModel
	delay time.Duration
}

func (p paced) Chat(ctx context.Context, messages []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
	if err := retry.Sleep(ctx, p.delay); err != nil {
		return llm.Completion{}, err
	}
	return p.inner.Chat(ctx, messages, opts)
}

// viewer is what one connection may see.
type viewer struct {
	secrets bool // everything (observers of a game without a person)
	seat    int  // the person's seat, or -1
}

// visible returns e as v may see it, or false when v may not see it at
// all. Public are the table's announcements: discussion, proposals, team
// votes (votes are open), quest results (the number of fails, not who
// played them), the assassination and the end (which names every role).
// The person also sees their own role and knowledge and the moderator's
// notes on their own answers.
func (v viewer) visible(e avalon.Event) (avalon.Event, bool) {
	if v.secrets {
		return e, true
	}
	own := e.Seat != nil && *e.Seat == v.seat && v.seat >= 0
	switch e.Type {
	case avalon.EventGameStart:
		e.Roles, e.Seed = nil, nil
		return e, true
	case avalon.EventRole, avalon.EventParseFailure, avalon.EventFallback, avalon.EventCoerced, avalon.EventCall:
		return e, own
	case avalon.EventQuest:
		e.Votes = nil
		return e, true
	case avalon.EventDiscussion, avalon.EventTeamProposed, avalon.EventTeamVote, avalon.EventAssassination, avalon.EventGameEnd:
		return e, true
	}
	return e, false
}
