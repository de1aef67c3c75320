package diplomacy

import (
	"fmt"
	"strings"
)

// MaxSubmitOrders bounds how many order texts Submit reads at once.
const MaxSubmitOrders = 64

// Rejection is an order text Submit refused, and why.
type Rejection struct {
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

// Submit reads power p's orders for the current phase from text (a
// model's or a person's), keeps the legal ones and returns why it refused
// the others: text that is not an order, an order the rules do not allow
// now (not p's unit, not adjacent, …), or a second order for a unit that
// already has one in this batch (the first one counts; a unit never gets
// two orders, unlike the reference's substring fallback). The accepted
// orders replace p's orders for the phase; the units without one hold
// (or, in a retreats phase, are disbanded). At most MaxSubmitOrders
// texts are read; the rest are refused.
func (g *Game) Submit(p Power, texts []string) ([]Order, []Rejection, error) {
	if g.done {
		return nil, nil, fmt.Errorf("%w: the game is over", ErrState)
	}
	if !p.Valid() {
		return nil, nil, fmt.Errorf("%w: unknown power %v", ErrState, p)
	}
	var accepted []Order
	var rejected []Rejection
	seen := map[Loc]string{}
	waives := 0
	for i, text := range texts {
		if i >= MaxSubmitOrders {
			rejected = append(rejected, Rejection{Text: clip(text), Reason: fmt.Sprintf("more than %d orders", MaxSubmitOrders)})
			continue
		}
		o, err := ParseOrder(g.m, text)
		if err != nil {
			rejected = append(rejected, Rejection{Text: clip(text), Reason: strings.TrimPrefix(err.Error(), "diplomacy: ")})
			continue
		}
		if err := g.Check(p, o); err != nil {
			rejected = append(rejected, Rejection{Text: clip(text), Reason: strings.TrimPrefix(err.Error(), "diplomacy: ")})
			continue
		}
		if o.Type == Waive {
			waives++
			accepted = append(accepted, o)
			continue
		}
		key := o.Loc.Province()
		if prev, dup := seen[key]; dup {
			rejected = append(rejected, Rejection{Text: clip(text), Reason: fmt.Sprintf("a second order for the unit in %s (kept %q)", key, prev)})
			continue
		}
		seen[key] = o.String()
		accepted = append(accepted, o)
	}
	g.orders[p] = accepted
	return accepted, rejected, nil
}
