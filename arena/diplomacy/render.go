package diplomacy

import (
	"fmt"
	"slices"
	"strings"
)

// BoardText renders the board as text for a player, in the layout of the
// reference's context prompt: the power and the phase, its home centres,
// every power's units and supply centres, and the possible orders of the
// power's orderable locations (one "  LOC: [orders]" line each, or
// "None"). A game loop sends it every phase (the reference sent it only
// at the start, a quirk; extension spec §1.9.12). p may be NoPower for an
// observer: then no orders are listed.
func (g *Game) BoardText(p Power) string {
	var b strings.Builder
	if p.Valid() {
		fmt.Fprintf(&b, "Power: %s\n", p)
	}
	fmt.Fprintf(&b, "Current phase: %s\n", g.pos.Phase)
	if p.Valid() {
		fmt.Fprintf(&b, "Home centres: %s\n", joinLocs(g.m.HomeCenters(p)))
	}
	b.WriteString("Units:\n")
	for _, q := range Powers() {
		var us []string
		for _, u := range g.pos.Units {
			if u.Power == q {
				us = append(us, u.String())
			}
		}
		for _, d := range g.pos.Dislodged {
			if d.Unit.Power == q {
				us = append(us, "*"+d.Unit.String()+" (dislodged)")
			}
		}
		if len(us) > 0 || !g.Eliminated(q) {
			fmt.Fprintf(&b, "  %s: %s\n", q, orNone(strings.Join(us, ", ")))
		}
	}
	b.WriteString("Supply centres:\n")
	for _, q := range Powers() {
		cs := g.Centers(q)
		if len(cs) > 0 || !g.Eliminated(q) {
			fmt.Fprintf(&b, "  %s (%d): %s\n", q, len(cs), orNone(joinLocs(cs)))
		}
	}
	var free []Loc
	for _, c := range g.m.SupplyCenters() {
		if g.pos.Centers[c] == NoPower {
			free = append(free, c)
		}
	}
	fmt.Fprintf(&b, "  unowned (%d): %s\n", len(free), orNone(joinLocs(free)))
	if p.Valid() {
		b.WriteString("Possible orders:\n")
		poss := g.PossibleOrders()
		locs := g.OrderableLocations(p)
		if len(locs) == 0 {
			b.WriteString("  None\n")
		}
		for _, l := range locs {
			var os []string
			for _, o := range poss[l] {
				os = append(os, o.String())
			}
			slices.Sort(os)
			fmt.Fprintf(&b, "  %s: [%s]\n", l, strings.Join(os, ", "))
		}
	}
	return b.String()
}

func joinLocs(ls []Loc) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = string(l)
	}
	return strings.Join(s, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "None"
	}
	return s
}
