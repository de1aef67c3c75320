package dipgame

import (
	"errors"
	"fmt"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/arena/diplomacy"
)

// Question is what a power's prompt asks, read back from the prompt, for
// players that are not language models (the built-in bots; a person at a
// web page).
type Question struct {
	// Negotiation is true for a negotiation question, false for orders.
	Negotiation bool
	// Power is the power asked; Phase the current phase.
	Power diplomacy.Power
	Phase diplomacy.Phase
	// Units are the units on the board (dislodged ones included).
	Units []diplomacy.Unit
	// Centers maps each owned supply centre to its owner.
	Centers map[diplomacy.Loc]diplomacy.Power
	// Possible are the power's possible orders per orderable location.
	Possible map[diplomacy.Loc][]diplomacy.Order
}

// ErrNoQuestion reports messages that hold no question of this package.
var ErrNoQuestion = errors.New("dipgame: not a question of this game")

// ReadQuestion reads the question of a request Play sent (the last user
// message's board context and instruction), reading at most 256 KiB of
// it. It fails with ErrNoQuestion for anything else.
func ReadQuestion(m *diplomacy.Map, msgs []agentevolver.Message) (Question, error) {
	var ask string
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == agentevolver.RoleUser {
			ask = msgs[i].Content
			break
		}
	}
	ask = clip(ask, 256<<10)
	if i := strings.LastIndex(ask, "</history>"); i >= 0 {
		ask = ask[i:]
	}
	b := strings.Index(ask, BoardMarker)
	if b < 0 {
		return Question{}, ErrNoQuestion
	}
	ask = ask[b:]
	q := Question{Centers: map[diplomacy.Loc]diplomacy.Power{}, Possible: map[diplomacy.Loc][]diplomacy.Order{}}
	switch {
	case strings.Contains(ask, NegotiationMarker):
		q.Negotiation = true
	case strings.Contains(ask, OrdersMarker):
	default:
		return Question{}, ErrNoQuestion
	}
	section := ""
	for line := range strings.SplitSeq(ask, "\n") {
		var err error
		switch {
		case strings.HasPrefix(line, "Power: "):
			q.Power, err = diplomacy.ParsePower(strings.TrimPrefix(line, "Power: "))
		case strings.HasPrefix(line, "Current phase: "):
			q.Phase, err = diplomacy.ParsePhase(strings.TrimPrefix(line, "Current phase: "))
		case line == "Units:" || line == "Supply centres:" || line == "Possible orders:":
			section = line
		case strings.HasPrefix(line, "  ") && section != "":
			err = q.readLine(m, section, strings.TrimSpace(line))
		default:
			section = ""
		}
		if err != nil {
			return Question{}, fmt.Errorf("%w: %q: %w", ErrNoQuestion, clip(line, 80), err)
		}
	}
	if !q.Power.Valid() || !q.Phase.Valid() {
		return Question{}, fmt.Errorf("%w: no power or phase", ErrNoQuestion)
	}
	return q, nil
}

func (q *Question) readLine(m *diplomacy.Map, section, line string) error {
	head, body, ok := strings.Cut(line, ": ")
	if line == "None" {
		return nil
	}
	if !ok {
		return errors.New("want NAME: items")
	}
	switch section {
	case "Units:":
		p, err := diplomacy.ParsePower(head)
		if err != nil || body == "None" {
			return err
		}
		for item := range strings.SplitSeq(body, ", ") {
			item = strings.TrimSuffix(strings.TrimPrefix(item, "*"), " (dislodged)")
			t, l, ok := strings.Cut(item, " ")
			if !ok || (t != "A" && t != "F") || !m.IsLoc(diplomacy.Loc(l)) {
				return fmt.Errorf("unit %q", clip(item, 32))
			}
			u := diplomacy.Unit{Type: diplomacy.Army, Power: p, Loc: diplomacy.Loc(l)}
			if t == "F" {
				u.Type = diplomacy.Fleet
			}
			q.Units = append(q.Units, u)
		}
	case "Supply centres:":
		name, _, _ := strings.Cut(head, " (")
		if name == "unowned" {
			return nil
		}
		p, err := diplomacy.ParsePower(name)
		if err != nil || body == "None" {
			return err
		}
		for c := range strings.SplitSeq(body, ", ") {
			if !m.IsLoc(diplomacy.Loc(c)) {
				return fmt.Errorf("centre %q", clip(c, 16))
			}
			q.Centers[diplomacy.Loc(c)] = p
		}
	case "Possible orders:":
		if !strings.HasPrefix(body, "[") || !strings.HasSuffix(body, "]") {
			return errors.New("want LOC: [orders]")
		}
		loc := diplomacy.Loc(head)
		body = body[1 : len(body)-1]
		if body == "" {
			q.Possible[loc] = nil
			return nil
		}
		for s := range strings.SplitSeq(body, ", ") {
			o, err := diplomacy.ParseOrder(m, s)
			if err != nil {
				return err
			}
			q.Possible[loc] = append(q.Possible[loc], o)
		}
	}
	return nil
}

// adjustment is the power's build (positive) or disband (negative) count.
func (q Question) adjustment() int {
	n := 0
	for _, p := range q.Centers {
		if p == q.Power {
			n++
		}
	}
	for _, u := range q.Units {
		if u.Power == q.Power {
			n--
		}
	}
	return n
}
