package diplomacy

import (
	"fmt"
	"strings"
	"unicode"
)

// MaxOrderBytes bounds the text ParseOrder accepts.
const MaxOrderBytes = 200

// ParseOrder reads one order in the standard text syntax of the
// reference library, leniently: case and spacing are free, coasts may be
// written "STP/NC", "STP(NC)" or "STP (NC)", provinces by code or English
// name, and the verbs in words ("A Paris move to Burgundy", "F NTH
// convoys A LON to NWY", "A MUN supports A BER -> SIL", "A LON - NWY via
// convoy", "A PAR hold", "F LON disband", "F STP/NC build", "waive").
// Locations must exist on the map; whether the order is legal in a
// position is checked when orders are submitted. Text longer than
// MaxOrderBytes is refused.
func ParseOrder(m *Map, s string) (Order, error) {
	if len(s) > MaxOrderBytes {
		return Order{}, fmt.Errorf("%w: order longer than %d bytes", ErrSyntax, MaxOrderBytes)
	}
	toks := tokenize(s)
	p := orderParser{m: m, toks: toks, src: s}
	o, err := p.order()
	if err != nil {
		return Order{}, err
	}
	if p.i != len(p.toks) {
		return Order{}, p.errf("unexpected %q", p.toks[p.i])
	}
	return o, nil
}

// tokenize splits an order into upper-case tokens: words, "-" and
// coast suffixes kept with their province ("STP/NC").
func tokenize(s string) []string {
	s = strings.ToUpper(s)
	r := strings.NewReplacer("->", " - ", "→", " - ", "–", " - ", "—", " - ", "(", "/", ")", " ", ",", " ", ";", " ", ".", " ", ":", " ")
	s = r.Replace(s)
	var out []string
	for f := range strings.FieldsSeq(s) {
		// Split a glued move "PAR-BUR" and a coast written "STP /NC".
		for part := range strings.SplitSeq(f, "-") {
			if part != "" {
				out = append(out, part)
			}
			out = append(out, "-")
		}
		out = out[:len(out)-1]
	}
	// Join "STP" "/NC" and "STP/" "NC".
	var joined []string
	for i := 0; i < len(out); i++ {
		t := out[i]
		switch {
		case strings.HasPrefix(t, "/") && len(joined) > 0:
			joined[len(joined)-1] += t
		case strings.HasSuffix(t, "/") && i+1 < len(out):
			joined = append(joined, t+out[i+1])
			i++
		default:
			joined = append(joined, t)
		}
	}
	return joined
}

type orderParser struct {
	m    *Map
	toks []string
	i    int
	src  string
}

func (p *orderParser) errf(format string, args ...any) error {
	return fmt.Errorf("%w: %q: %s", ErrSyntax, clip(p.src), fmt.Sprintf(format, args...))
}

func (p *orderParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *orderParser) accept(words ...string) bool {
	t := p.peek()
	for _, w := range words {
		if t == w {
			p.i++
			return true
		}
	}
	return false
}

func (p *orderParser) unitType() (UnitType, error) {
	switch p.peek() {
	case "A", "ARMY":
		p.i++
		return Army, nil
	case "F", "FLEET":
		p.i++
		return Fleet, nil
	}
	return 0, p.errf("want a unit type A or F, got %q", p.peek())
}

// loc reads a location: a code (with coast) or a name of up to four
// words, the longest match first.
func (p *orderParser) loc() (Loc, error) {
	for n := min(4, len(p.toks)-p.i); n >= 1; n-- {
		words := p.toks[p.i : p.i+n]
		if n > 1 && !allLetters(words) {
			continue
		}
		cand := strings.Join(words, " ")
		if l, ok := p.m.LookupLoc(cand); ok {
			p.i += n
			// A coast written as a separate word: "SPA NC".
			if l.Coast() == "" {
				if c := p.peek(); c == "NC" || c == "SC" || c == "EC" || c == "WC" {
					if cl, ok := p.m.LookupLoc(string(l) + "/" + c); ok {
						p.i++
						l = cl
					}
				}
			}
			return l, nil
		}
	}
	if p.peek() == "" {
		return "", p.errf("missing location")
	}
	return "", p.errf("unknown location %q", clip(p.peek()))
}

func allLetters(words []string) bool {
	for _, w := range words {
		for _, r := range w {
			if !unicode.IsLetter(r) && r != '\'' {
				return false
			}
		}
	}
	return true
}

func (p *orderParser) order() (Order, error) {
	if len(p.toks) == 0 {
		return Order{}, p.errf("empty order")
	}
	if p.accept("WAIVE", "WAIVES") {
		return Order{Type: Waive}, nil
	}
	// "BUILD A PAR" as well as "A PAR B".
	if p.accept("BUILD", "BUILDS") {
		t, err := p.unitType()
		if err != nil {
			return Order{}, err
		}
		l, err := p.loc()
		if err != nil {
			return Order{}, err
		}
		return Order{Type: Build, Unit: t, Loc: l}, nil
	}
	t, err := p.unitType()
	if err != nil {
		return Order{}, err
	}
	l, err := p.loc()
	if err != nil {
		return Order{}, err
	}
	o := Order{Unit: t, Loc: l}
	switch {
	case p.accept("H", "HOLD", "HOLDS", "STAND", "STANDS"):
		o.Type = Hold
	case p.accept("D", "DISBAND", "DISBANDS", "DISBANDED"):
		o.Type = Disband
	case p.accept("B", "BUILD", "BUILDS"):
		o.Type = Build
	case p.accept("R", "RETREAT", "RETREATS"):
		p.accept("TO")
		o.Type = Retreat
		if o.Dest, err = p.loc(); err != nil {
			return Order{}, err
		}
	case p.accept("-", "M", "MOVE", "MOVES", "TO"):
		p.accept("TO")
		o.Type = Move
		if o.Dest, err = p.loc(); err != nil {
			return Order{}, err
		}
		if p.accept("VIA") {
			p.accept("CONVOY")
			o.Via = true
		} else if p.accept("BY") {
			if !p.accept("CONVOY") {
				return Order{}, p.errf("want \"by convoy\"")
			}
			o.Via = true
		}
	case p.accept("S", "SUPPORT", "SUPPORTS"):
		o.Type = Support
		if err := p.aux(&o, false); err != nil {
			return Order{}, err
		}
	case p.accept("C", "CONVOY", "CONVOYS"):
		o.Type = Convoy
		if err := p.aux(&o, true); err != nil {
			return Order{}, err
		}
	default:
		if p.peek() == "" {
			return Order{}, p.errf("missing the order after %s", o.Unit.String()+" "+string(l))
		}
		return Order{}, p.errf("unknown order %q", clip(p.peek()))
	}
	return o, nil
}

// aux reads the other unit of a support or convoy and its move.
func (p *orderParser) aux(o *Order, needMove bool) error {
	var t UnitType
	switch p.peek() {
	case "A", "ARMY", "F", "FLEET":
		// "A" is also no province code, so a type is never a location.
		t, _ = p.unitType()
	}
	l, err := p.loc()
	if err != nil {
		return err
	}
	o.Aux, o.AuxLoc = t, l
	if p.accept("-", "M", "MOVE", "MOVES", "TO") {
		p.accept("TO")
		if o.Dest, err = p.loc(); err != nil {
			return err
		}
		return nil
	}
	p.accept("H", "HOLD", "HOLDS")
	if needMove {
		return p.errf("a convoy needs the move it carries (\"C A LON - NWY\")")
	}
	return nil
}
