package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
)

// Message types of a Diplomacy game's WebSocket. The server sends hello,
// event (a DipEvent), question, question_closed, status and error; the
// client sends orders and messages.
const (
	TypeOrders   = "orders"
	TypeMessages = "messages"
)

// Kinds of DipEvent, in the order a phase produces them.
const (
	// DipEventPosition is the board of the phase about to be played (at
	// the start, after each phase, and the final board).
	DipEventPosition = "position"
	// DipEventNegotiation is one negotiation round's messages.
	DipEventNegotiation = "negotiation"
	// DipEventPhase is a processed phase: its board, orders and results.
	DipEventPhase = "phase"
)

// DipGameInfo describes a Diplomacy game, in the game list and in hello
// and status messages.
type DipGameInfo struct {
	// ID names the game in URLs.
	ID string `json:"id"`
	// Powers are the seven powers; Models names each one's model, in the
	// same order ("person" for the person's power).
	Powers []string `json:"powers"`
	Models []string `json:"models"`
	// PersonPower is the power a person plays, "" in observe mode.
	PersonPower string `json:"person_power,omitempty"`
	// MaxPhases and NegotiationRounds are the game's settings.
	MaxPhases         int `json:"max_phases"`
	NegotiationRounds int `json:"negotiation_rounds"`
	// Seed is the game seed; it is withheld while a person plays.
	Seed *uint64 `json:"seed,omitempty"`
	// Status is one of the Status constants; Error explains a failure.
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Phase is the current phase (the last one once the game is over) and
	// Phases the number of phases processed.
	Phase  string `json:"phase"`
	Phases int    `json:"phases"`
	// Centers are the supply-centre counts of the current board.
	Centers map[string]int `json:"centers"`
	// Winner is the power with 18 centres, once there is one.
	Winner string `json:"winner,omitempty"`
	// Log says whether the game's log can be downloaded (the game is
	// over and wrote one).
	Log bool `json:"log"`
	// Created is when the game was created.
	Created time.Time `json:"created"`
}

// DipUnit is a unit on the board.
type DipUnit struct {
	Power string `json:"power"`
	// Type is "A" (army) or "F" (fleet).
	Type string `json:"type"`
	Loc  string `json:"loc"`
	// Dislodged marks a unit waiting to retreat; Retreats are where it
	// may go.
	Dislodged bool     `json:"dislodged,omitempty"`
	Retreats  []string `json:"retreats,omitempty"`
}

// DipBoard is a position: the phase, its units and who owns each supply
// centre.
type DipBoard struct {
	Phase   string            `json:"phase"`
	Units   []DipUnit         `json:"units"`
	Centers map[string]string `json:"centers"`
}

// DipOrder is one unit's adjudicated order, in parts the page can draw.
type DipOrder struct {
	// Power gave the order; Text is it in the reference syntax.
	Power string `json:"power"`
	Text  string `json:"text"`
	// Type is the order type ("hold", "move", "support", "convoy",
	// "retreat", "disband", "build", "waive").
	Type string `json:"type"`
	// Unit ("A" or "F") stands at Loc; Dest is where it moves or
	// retreats, or where the supported or convoyed unit moves.
	Unit string `json:"unit,omitempty"`
	Loc  string `json:"loc,omitempty"`
	Dest string `json:"dest,omitempty"`
	// AuxLoc is the supported or convoyed unit's location.
	AuxLoc string `json:"aux_loc,omitempty"`
	// Result lists the outcome codes ("bounce", "cut", "dislodged", …);
	// empty means the order succeeded.
	Result []string `json:"result,omitempty"`
	// Given is the order the power gave, when it differs from Text (a
	// void order is adjudicated as a hold); Illegal says why it was void.
	Given   string `json:"given,omitempty"`
	Illegal string `json:"illegal,omitempty"`
}

// DipEvent is one step of a Diplomacy game as a connection may see it.
type DipEvent struct {
	// Seq counts the events this connection is sent, from 0.
	Seq int `json:"seq"`
	// Type is one of the DipEvent constants; Phase the phase concerned.
	Type  string `json:"type"`
	Phase string `json:"phase"`
	// Board is the position (position), or the board the phase started
	// from (phase).
	Board *DipBoard `json:"board,omitempty"`
	// Round numbers a negotiation round from 1 and Messages are its
	// messages the connection may see (negotiation).
	Round    int               `json:"round,omitempty"`
	Messages []dipgame.Message `json:"messages,omitempty"`
	// Orders are the phase's adjudicated orders, Rejected the order texts
	// refused per power (only the person's own in a person game) and
	// Centers the supply-centre counts after it (phase).
	Orders   []DipOrder                       `json:"orders,omitempty"`
	Rejected map[string][]diplomacy.Rejection `json:"rejected,omitempty"`
	Centers  map[string]int                   `json:"centers,omitempty"`
}

// DipLocOrders are the possible orders of one location.
type DipLocOrders struct {
	Loc    string   `json:"loc"`
	Orders []string `json:"orders"`
}

// DipQuestion is a question put to the person's power.
type DipQuestion struct {
	// ID numbers the person's questions from 1; an answer names it.
	ID int `json:"id"`
	// Kind is "negotiation" (answer with messages) or "orders".
	Kind string `json:"kind"`
	// Power and Phase are the person's power and the current phase.
	Power string `json:"power"`
	Phase string `json:"phase"`
	// Possible are the power's possible orders per orderable location,
	// by location (orders questions).
	Possible []DipLocOrders `json:"possible,omitempty"`
	// Adjustment is the number of builds (positive) or disbands
	// (negative) the power has in an adjustments phase.
	Adjustment int `json:"adjustment,omitempty"`
	// Recipients are who a message may go to: the other powers and
	// GLOBAL (negotiation questions).
	Recipients []string `json:"recipients,omitempty"`
	// Prompt is exactly what the power's model would have been sent.
	Prompt []agentevolver.Message `json:"prompt"`

	q dipgame.Question
}

// DipServerMessage is one message from the server to a Diplomacy page.
type DipServerMessage struct {
	// Type is hello, event, question, question_closed, status or error.
	Type string `json:"type"`
	// Game describes the game (hello, status).
	Game *DipGameInfo `json:"game,omitempty"`
	// Power is the power the connection plays, "" for an observer
	// (hello).
	Power *string `json:"power,omitempty"`
	// All says whether the connection sees every private message and
	// refused order (hello): only observers of a game without a person.
	All bool `json:"all,omitempty"`
	// MaxMessageBytes bounds a client frame (hello).
	MaxMessageBytes int `json:"max_message_bytes,omitempty"`
	// Event is one step of the game (event).
	Event *DipEvent `json:"event,omitempty"`
	// Question is the person's open question (question).
	Question *DipQuestion `json:"question,omitempty"`
	// ID is the closed question's id (question_closed).
	ID int `json:"id,omitempty"`
	// Message explains an error (error).
	Message string `json:"message,omitempty"`
}

// DipOutMessage is a negotiation message a person sends.
type DipOutMessage struct {
	// Recipient is a power other than the sender, or GLOBAL.
	Recipient string `json:"recipient"`
	// Content is the message, at most dipgame.MaxMessageBytes.
	Content string `json:"content"`
}

// DipClientMessage is one message from a Diplomacy page: the person's
// answer to the open question, orders (type orders; an empty list holds
// every unit) or negotiation messages (type messages; an empty list sends
// nothing).
type DipClientMessage struct {
	// Type is TypeOrders or TypeMessages.
	Type string `json:"type"`
	// ID is the question answered.
	ID int `json:"id"`
	// Power, when given, must be the person's power.
	Power string `json:"power,omitempty"`
	// Orders are order texts, one per location (type orders).
	Orders []string `json:"orders"`
	// Messages are the messages to send (type messages).
	Messages []DipOutMessage `json:"messages"`
}

// ParseDipClientMessage reads one Diplomacy client message defensively:
// a single JSON object of at most maxBytes bytes with known fields only,
// of type orders (with an orders list, no messages) or messages (with a
// messages list, no orders), a positive id, at most
// diplomacy.MaxSubmitOrders orders of at most diplomacy.MaxOrderBytes
// each, at most dipgame.MaxMessagesPerReply messages of valid UTF-8 with
// at most dipgame.MaxMessageBytes of content each. Whether the answer
// fits the question is checked when it is given (dipAnswerText). Errors
// wrap ErrBadMessage.
func ParseDipClientMessage(b []byte, maxBytes int) (DipClientMessage, error) {
	var m DipClientMessage
	if maxBytes > 0 && len(b) > maxBytes {
		return m, fmt.Errorf("%w: %d bytes (limit %d)", ErrBadMessage, len(b), maxBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return DipClientMessage{}, fmt.Errorf("%w: %v", ErrBadMessage, err)
	}
	if dec.More() {
		return DipClientMessage{}, fmt.Errorf("%w: trailing data after the message", ErrBadMessage)
	}
	if m.ID <= 0 {
		return DipClientMessage{}, fmt.Errorf("%w: question id %d", ErrBadMessage, m.ID)
	}
	switch m.Type {
	case TypeOrders:
		if m.Orders == nil || m.Messages != nil {
			return DipClientMessage{}, fmt.Errorf("%w: an orders answer holds an orders list and no messages", ErrBadMessage)
		}
		if len(m.Orders) > diplomacy.MaxSubmitOrders {
			return DipClientMessage{}, fmt.Errorf("%w: %d orders (limit %d)", ErrBadMessage, len(m.Orders), diplomacy.MaxSubmitOrders)
		}
		for _, o := range m.Orders {
			if len(o) > diplomacy.MaxOrderBytes || !utf8.ValidString(o) {
				return DipClientMessage{}, fmt.Errorf("%w: order %q: want UTF-8 of at most %d bytes", ErrBadMessage, clip(o, 32), diplomacy.MaxOrderBytes)
			}
		}
	case TypeMessages:
		if m.Messages == nil || m.Orders != nil {
			return DipClientMessage{}, fmt.Errorf("%w: a messages answer holds a messages list and no orders", ErrBadMessage)
		}
		if len(m.Messages) > dipgame.MaxMessagesPerReply {
			return DipClientMessage{}, fmt.Errorf("%w: %d messages (limit %d)", ErrBadMessage, len(m.Messages), dipgame.MaxMessagesPerReply)
		}
		for _, o := range m.Messages {
			if len(o.Content) > dipgame.MaxMessageBytes || !utf8.ValidString(o.Content) || !utf8.ValidString(o.Recipient) {
				return DipClientMessage{}, fmt.Errorf("%w: a message's content must be UTF-8 of at most %d bytes", ErrBadMessage, dipgame.MaxMessageBytes)
			}
		}
	default:
		return DipClientMessage{}, fmt.Errorf("%w: unknown type %q", ErrBadMessage, clip(m.Type, 32))
	}
	return m, nil
}

// newDipQuestion describes q for the person.
func newDipQuestion(id int, q dipgame.Question, prompt []agentevolver.Message) *DipQuestion {
	dq := &DipQuestion{ID: id, Kind: "orders", Power: q.Power.String(), Phase: q.Phase.String(), Prompt: slices.Clone(prompt), q: q}
	if q.Negotiation {
		dq.Kind = "negotiation"
		for _, p := range diplomacy.Powers() {
			if p != q.Power {
				dq.Recipients = append(dq.Recipients, p.String())
			}
		}
		dq.Recipients = append(dq.Recipients, dipgame.Global)
		return dq
	}
	locs := make([]diplomacy.Loc, 0, len(q.Possible))
	for l := range q.Possible {
		locs = append(locs, l)
	}
	slices.Sort(locs)
	for _, l := range locs {
		lo := DipLocOrders{Loc: string(l), Orders: []string{}}
		for _, o := range q.Possible[l] {
			lo.Orders = append(lo.Orders, o.String())
		}
		dq.Possible = append(dq.Possible, lo)
	}
	if q.Phase.Type == diplomacy.Adjustments {
		dq.Adjustment = diplomacy.AdjustmentCount(q.Power, q.Units, q.Centers)
	}
	return dq
}

// dipAnswerText checks an answer against the open question and writes it
// as the reply the game's parsers read (dipgame.ParseOrders,
// dipgame.ParseNegotiation), then reads that reply back with the same
// parser: an answer the game would read otherwise than meant is refused,
// so a person's answer is never misread. Errors wrap ErrBadAnswer.
func dipAnswerText(dq *DipQuestion, m DipClientMessage) (string, error) {
	q := dq.q
	if m.Power != "" {
		p, err := diplomacy.ParsePower(m.Power)
		if err != nil {
			return "", fmt.Errorf("%w: unknown power %q", ErrBadAnswer, clip(m.Power, 32))
		}
		if p != q.Power {
			return "", fmt.Errorf("%w: you play %s, not %s", ErrBadAnswer, q.Power, p)
		}
	}
	if q.Negotiation != (m.Type == TypeMessages) {
		return "", fmt.Errorf("%w: question %d asks for %s, not %s", ErrBadAnswer, dq.ID, dq.Kind, m.Type)
	}
	if q.Negotiation {
		return negotiationReply(q.Power, m.Messages)
	}
	return ordersReply(q, m.Orders)
}

// negotiationReply writes messages as the JSON array ParseNegotiation
// reads.
func negotiationReply(sender diplomacy.Power, msgs []DipOutMessage) (string, error) {
	type item struct {
		Type      string `json:"message_type"`
		Recipient string `json:"recipient,omitempty"`
		Content   string `json:"content"`
	}
	items := []item{}
	var want []dipgame.Message
	for i, o := range msgs {
		content := strings.TrimSpace(o.Content)
		if content == "" {
			return "", fmt.Errorf("%w: message %d is empty", ErrBadAnswer, i+1)
		}
		it := item{Type: "global", Content: content}
		to := dipgame.Global
		if !strings.EqualFold(strings.TrimSpace(o.Recipient), dipgame.Global) {
			p, err := diplomacy.ParsePower(o.Recipient)
			if err != nil {
				return "", fmt.Errorf("%w: message %d: unknown recipient %q (a power or GLOBAL)", ErrBadAnswer, i+1, clip(o.Recipient, 32))
			}
			if p == sender {
				return "", fmt.Errorf("%w: message %d: you cannot write to yourself", ErrBadAnswer, i+1)
			}
			it.Type, it.Recipient, to = "private", p.String(), p.String()
		}
		items = append(items, it)
		want = append(want, dipgame.Message{Sender: sender.String(), Recipient: to, Content: content})
	}
	b, err := json.Marshal(items) // escapes <, > and &: no tag the parser strips survives
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadAnswer, err)
	}
	reply := string(b)
	if got := dipgame.ParseNegotiation(reply, sender); !slices.Equal(got, want) {
		return "", fmt.Errorf("%w: the messages would not be read as written", ErrBadAnswer)
	}
	return reply, nil
}

// ordersReply checks orders against q's possible orders (one per
// location, builds or disbands within the power's count) and writes them
// as Greedy and Random do.
func ordersReply(q dipgame.Question, texts []string) (string, error) {
	m := diplomacy.Standard()
	legal := map[string]diplomacy.Loc{}
	for l, os := range q.Possible {
		for _, o := range os {
			legal[o.String()] = l
		}
	}
	taken := map[diplomacy.Loc]string{}
	orders := []string{}
	builds, disbands := 0, 0
	for _, t := range texts {
		o, err := diplomacy.ParseOrder(m, t)
		if err != nil {
			return "", fmt.Errorf("%w: %q is not an order: %v", ErrBadAnswer, clip(t, 64), err)
		}
		s := o.String()
		l, ok := legal[s]
		if !ok {
			return "", fmt.Errorf("%w: %q is not one of your possible orders in %s", ErrBadAnswer, s, q.Phase)
		}
		if o.Type != diplomacy.Waive {
			if prev, dup := taken[l]; dup {
				return "", fmt.Errorf("%w: two orders for %s (%q and %q)", ErrBadAnswer, l, prev, s)
			}
			taken[l] = s
		}
		switch o.Type {
		case diplomacy.Build, diplomacy.Waive:
			builds++
		case diplomacy.Disband:
			if q.Phase.Type == diplomacy.Adjustments {
				disbands++
			}
		}
		orders = append(orders, s)
	}
	if q.Phase.Type == diplomacy.Adjustments {
		n := diplomacy.AdjustmentCount(q.Power, q.Units, q.Centers)
		if builds > max(n, 0) {
			return "", fmt.Errorf("%w: %d builds or waives, you have %d", ErrBadAnswer, builds, max(n, 0))
		}
		if disbands > max(-n, 0) {
			return "", fmt.Errorf("%w: %d disbands, you must disband %d", ErrBadAnswer, disbands, max(-n, 0))
		}
	}
	b, err := json.Marshal(map[string][]string{"orders": orders})
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadAnswer, err)
	}
	reply := "PARSABLE OUTPUT: " + string(b)
	got := dipgame.ParseOrders(m, reply, q.Possible)
	if len(got.Dropped) > 0 || !slices.Equal(got.Orders, orders) && !(len(got.Orders) == 0 && len(orders) == 0) {
		return "", fmt.Errorf("%w: the orders would not be read as written", ErrBadAnswer)
	}
	return reply, nil
}

// dipBoard converts a position.
func dipBoard(pos diplomacy.Position) *DipBoard {
	b := &DipBoard{Phase: pos.Phase.String(), Units: []DipUnit{}, Centers: map[string]string{}}
	for _, u := range pos.Units {
		b.Units = append(b.Units, DipUnit{Power: u.Power.String(), Type: u.Type.String(), Loc: string(u.Loc)})
	}
	for _, d := range pos.Dislodged {
		du := DipUnit{Power: d.Unit.Power.String(), Type: d.Unit.Type.String(), Loc: string(d.Unit.Loc), Dislodged: true}
		for _, r := range d.Retreats {
			du.Retreats = append(du.Retreats, string(r))
		}
		b.Units = append(b.Units, du)
	}
	for l, p := range pos.Centers {
		if p.Valid() {
			b.Centers[string(l)] = p.String()
		}
	}
	return b
}

// dipOrders converts a phase's adjudicated orders.
func dipOrders(rs []diplomacy.OrderResult) []DipOrder {
	out := make([]DipOrder, 0, len(rs))
	for _, r := range rs {
		o := r.Order
		d := DipOrder{Power: r.Unit.Power.String(), Text: o.String(), Type: o.Type.String(), Loc: string(o.Loc),
			Dest: string(o.Dest), AuxLoc: string(o.AuxLoc), Result: r.Result.Codes(), Illegal: r.Illegal}
		if o.Unit != 0 {
			d.Unit = o.Unit.String()
		}
		if r.Given != nil && r.Given.String() != d.Text {
			d.Given = r.Given.String()
		}
		out = append(out, d)
	}
	return out
}
