package diplomacy

import "strings"

// OrderType is the kind of an order.
type OrderType uint8

// The order types. Hold, Move, Support and Convoy are movement-phase
// orders; Retreat and Disband retreat-phase orders; Build, Disband and
// Waive adjustment-phase orders.
const (
	Hold OrderType = iota + 1
	Move
	Support
	Convoy
	Retreat
	Disband
	Build
	Waive
)

var orderTypeNames = [...]string{"", "hold", "move", "support", "convoy", "retreat", "disband", "build", "waive"}

// String returns the order type's lower-case English name.
func (t OrderType) String() string {
	if int(t) >= len(orderTypeNames) {
		return "?"
	}
	return orderTypeNames[t]
}

// Order is one order in typed form. Which fields are used depends on Type:
//
//	Hold     Unit Loc                       A PAR H
//	Move     Unit Loc Dest [Via]            A PAR - BUR, A LON - NWY VIA
//	Support  Unit Loc Aux AuxLoc [Dest]     A MUN S A BER - SIL, A PAR S F BRE
//	Convoy   Unit Loc Aux AuxLoc Dest       F NTH C A LON - NWY
//	Retreat  Unit Loc Dest                  A PAR R BUR
//	Disband  Unit Loc                       F LON D
//	Build    Unit Loc                       A PAR B, F STP/NC B
//	Waive    (nothing)                      WAIVE
//
// A support with an empty Dest supports the other unit to hold. String
// writes the reference library's syntax; ParseOrder reads it back.
type Order struct {
	Type OrderType `json:"type"`
	// Unit is the type of the ordered unit (for Build, the type to build).
	Unit UnitType `json:"unit,omitempty"`
	// Loc is where the ordered unit stands (for Build, where to build).
	Loc Loc `json:"loc,omitempty"`
	// Dest is the destination of a move or retreat, or of the move a
	// support or convoy order helps ("" for a support to hold).
	Dest Loc `json:"dest,omitempty"`
	// Via marks a move explicitly ordered by convoy.
	Via bool `json:"via,omitempty"`
	// Aux and AuxLoc are the supported or convoyed unit. Aux may be left
	// zero in a parsed order ("F NTH C LON - NWY"); the unit on the board
	// fills it in when the order is checked.
	Aux    UnitType `json:"aux,omitempty"`
	AuxLoc Loc      `json:"aux_loc,omitempty"`
}

// String writes the order in the reference library's syntax, such as
// "A PAR - BUR", "F NTH C A LON - NWY", "A MUN S A BER - SIL",
// "A PAR S F BRE", "F STP/SC - BOT", "A PAR B", "F LON D" or "WAIVE".
func (o Order) String() string {
	var b strings.Builder
	if o.Type == Waive {
		return "WAIVE"
	}
	b.WriteString(o.Unit.String())
	b.WriteByte(' ')
	b.WriteString(string(o.Loc))
	switch o.Type {
	case Hold:
		b.WriteString(" H")
	case Move:
		b.WriteString(" - ")
		b.WriteString(string(o.Dest))
		if o.Via {
			b.WriteString(" VIA")
		}
	case Support, Convoy:
		if o.Type == Support {
			b.WriteString(" S ")
		} else {
			b.WriteString(" C ")
		}
		if o.Aux != 0 {
			b.WriteString(o.Aux.String())
			b.WriteByte(' ')
		}
		b.WriteString(string(o.AuxLoc))
		if o.Dest != "" {
			b.WriteString(" - ")
			b.WriteString(string(o.Dest))
		}
	case Retreat:
		b.WriteString(" R ")
		b.WriteString(string(o.Dest))
	case Disband:
		b.WriteString(" D")
	case Build:
		b.WriteString(" B")
	default:
		b.WriteString(" ?")
	}
	return b.String()
}

// MarshalText encodes the order in the reference syntax.
func (o Order) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText decodes an order of the standard map in the reference
// syntax (see ParseOrder).
func (o *Order) UnmarshalText(b []byte) error {
	v, err := ParseOrder(Standard(), string(b))
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// NaturalLanguage renders the order in the reference's English wording
// ("A PAR move to BUR", "F NTH convoy A LON - NWY", "A PAR hold"), as its
// game shows the orders of each power to the players.
func (o Order) NaturalLanguage() string {
	head := o.Unit.String() + " " + string(o.Loc)
	aux := o.Aux.String() + " " + string(o.AuxLoc)
	if o.Dest != "" {
		aux += " - " + string(o.Dest)
	}
	switch o.Type {
	case Hold:
		return head + " hold"
	case Move:
		s := head + " move to " + string(o.Dest)
		if o.Via {
			s += " via convoy"
		}
		return s
	case Support:
		return head + " support " + aux
	case Convoy:
		return head + " convoy " + aux
	case Retreat:
		return head + " retreat to " + string(o.Dest)
	case Disband:
		return head + " disband"
	case Build:
		return head + " build"
	case Waive:
		return "waive"
	}
	return o.String()
}
