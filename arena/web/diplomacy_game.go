package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
	"github.com/org/agentevolver/llm"
)

// dipGame is one Diplomacy game held by the server: its events so far
// (every message and refusal; connections filter them), the person's open
// question and its status. Connections follow it as they follow an
// Avalon game: polling under mu and waiting on changed.
type dipGame struct {
	id          string
	token       string          // the person's, "" in observe mode
	person      diplomacy.Power // NoPower in observe mode
	seed        uint64
	models      []string
	maxPhases   int
	rounds      int
	created     time.Time
	cancel      context.CancelFunc
	done        chan struct{}
	viewers     int // guarded by srv.mu
	maxMsgBytes int

	mu      sync.Mutex
	events  []DipEvent
	phase   string
	phases  int
	centers map[string]int
	log     bytes.Buffer // the game's log, once it is over
	status  string
	err     string
	winner  string
	changed chan struct{}

	// place is the person's open question and presence (guarded by mu).
	place personPlace[*DipQuestion]
}

// newDipGame returns a running game whose person (if any) has the
// server's timeouts; the caller fills in the rest.
func newDipGame(cfg Config) *dipGame {
	g := &dipGame{status: StatusRunning, changed: make(chan struct{}), done: make(chan struct{}), maxMsgBytes: cfg.MaxMessageBytes}
	g.place = newPersonPlace[*DipQuestion](&g.mu, g.notifyLocked, func() bool { return g.status == StatusRunning }, cfg.PersonTimeout, cfg.AnswerTimeout)
	return g
}

func (g *dipGame) notifyLocked() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// observe is the game's dipgame.Config.Observe: it turns each report
// into an event (with every message; connections filter them).
func (g *dipGame) observe(p dipgame.Progress) {
	var e DipEvent
	switch p.Kind {
	case dipgame.ProgressPosition:
		e = DipEvent{Type: DipEventPosition, Phase: p.Phase.String(), Board: dipBoard(*p.Position)}
	case dipgame.ProgressRound:
		e = DipEvent{Type: DipEventNegotiation, Phase: p.Phase.String(), Round: p.Round.RoundIdx + 1, Messages: slices.Clone(p.Round.Messages)}
	case dipgame.ProgressPhase:
		e = DipEvent{Type: DipEventPhase, Phase: p.Phase.String(), Board: dipBoard(p.Record.Position),
			Orders: dipOrders(p.Record.Results), Centers: maps.Clone(p.Log.SCCounts)}
		if len(p.Log.OrderLogs) > 0 {
			e.Rejected = map[string][]diplomacy.Rejection{}
			for k, v := range p.Log.OrderLogs {
				e.Rejected[k] = slices.Clone(v)
			}
		}
	default:
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	switch e.Type {
	case DipEventPosition:
		g.phase = e.Phase
		g.centers = map[string]int{}
		for _, p := range e.Board.Centers {
			g.centers[p]++
		}
	case DipEventPhase:
		g.phases++
	}
	g.events = append(g.events, e)
	g.notifyLocked()
}

func (g *dipGame) info() DipGameInfo {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.infoLocked()
}

func (g *dipGame) infoLocked() DipGameInfo {
	gi := DipGameInfo{ID: g.id, Models: g.models, PersonPower: g.person.String(), MaxPhases: g.maxPhases,
		NegotiationRounds: g.rounds, Status: g.status, Error: g.err, Phase: g.phase, Phases: g.phases,
		Centers: maps.Clone(g.centers), Winner: g.winner, Log: g.log.Len() > 0 && g.status != StatusRunning, Created: g.created}
	for _, p := range diplomacy.Powers() {
		gi.Powers = append(gi.Powers, p.String())
	}
	if g.person == diplomacy.NoPower || g.status != StatusRunning {
		gi.Seed = &g.seed
	}
	return gi
}

func (g *dipGame) finish(res dipgame.Result, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case err == nil:
		g.status = StatusFinished
		g.winner = res.Winner.String()
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

// Write receives the game's log (one JSON object, written when the game
// ends).
func (g *dipGame) Write(b []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.log.Write(b)
}

func (g *dipGame) stop() {
	g.mu.Lock()
	if g.status == StatusRunning {
		g.status = StatusStopped
		g.notifyLocked()
	}
	g.mu.Unlock()
	g.cancel()
}

// answer delivers the person's answer to the open question.
func (g *dipGame) answer(m DipClientMessage) error {
	return g.place.answer(m.ID, func(q *DipQuestion) (string, error) { return dipAnswerText(q, m) })
}

// dipPerson is the person's power: an llm.ChatModel whose Chat shows the
// question to the person's connections and waits for the answer, with
// the timeouts of personSeat.
type dipPerson struct{ g *dipGame }

var _ llm.ChatModel = dipPerson{}

// Chat publishes the question read from messages and waits for the answer.
func (p dipPerson) Chat(ctx context.Context, messages []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
	q, err := dipgame.ReadQuestion(diplomacy.Standard(), messages)
	if err != nil {
		return llm.Completion{}, fmt.Errorf("web: person's power: %w", err)
	}
	text, err := p.g.place.ask(ctx, func(id int) *DipQuestion { return newDipQuestion(id, q, messages) })
	if err != nil {
		return llm.Completion{}, err
	}
	return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: text}, FinishReason: "stop"}, nil
}

// dipViewer is what one connection to a Diplomacy game may see.
type dipViewer struct {
	all   bool            // every message and refusal (observers of a game without a person)
	power diplomacy.Power // the person's power, or NoPower
}

// visible returns e as v may see it: boards, orders and results are
// public (the game announces every power's orders to all); a private
// message only to its sender and recipient, a power's refused orders
// only to the power. A negotiation round is always sent, even with no
// message left, so that a viewer sees each round pass.
func (v dipViewer) visible(e DipEvent) DipEvent {
	if v.all {
		return e
	}
	switch e.Type {
	case DipEventNegotiation:
		var ms []dipgame.Message
		for _, m := range e.Messages {
			if m.Recipient == dipgame.Global || v.power.Valid() && (m.Sender == v.power.String() || m.Recipient == v.power.String()) {
				ms = append(ms, m)
			}
		}
		e.Messages = ms
	case DipEventPhase:
		var own map[string][]diplomacy.Rejection
		if r, ok := e.Rejected[v.power.String()]; ok && v.power.Valid() {
			own = map[string][]diplomacy.Rejection{v.power.String(): r}
		}
		e.Rejected = own
	}
	return e
}
