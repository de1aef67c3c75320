package diplomacy

import (
	"slices"
	"strings"
)

// PossibleOrders returns every legal order of the current phase, keyed
// by the province of the unit (or build site) it is for, each list sorted
// by its text, as the reference library's get_all_possible_orders does
// for the provinces that have any: in movement phases hold, moves
// (moves by convoy as "A LON - NWY VIA", along chains of fleets now at
// sea), supports to hold and to move, and convoys; in retreats phases the
// retreats and the disband of each dislodged unit; in adjustments phases
// the builds on vacant owned home centres (with "WAIVE") of a power that
// may build and the disbands of a power that must disband. Every listed
// order passes Check for the unit's power.
func (g *Game) PossibleOrders() map[Loc][]Order {
	out := map[Loc][]Order{}
	if g.done {
		return out
	}
	add := func(o Order) {
		key := o.Loc.Province()
		out[key] = append(out[key], o)
	}
	switch g.pos.Phase.Type {
	case Movement:
		b := newBoard(g.pos.Units)
		reach := g.m.fleetReach(b)
		for _, u := range g.pos.Units {
			for _, o := range g.m.movementOrders(b, reach, u) {
				add(o)
			}
		}
	case Retreats:
		for _, d := range g.pos.Dislodged {
			u := d.Unit
			add(Order{Type: Disband, Unit: u.Type, Loc: u.Loc})
			for _, r := range d.Retreats {
				add(Order{Type: Retreat, Unit: u.Type, Loc: u.Loc, Dest: r})
			}
		}
	case Adjustments:
		for _, p := range Powers() {
			n := AdjustmentCount(p, g.pos.Units, g.pos.Centers)
			switch {
			case n > 0:
				for _, site := range g.m.BuildSites(p, g.pos.Units, g.pos.Centers) {
					if g.m.CanHold(Army, site) {
						add(Order{Type: Build, Unit: Army, Loc: site})
					}
					for _, fl := range g.m.FleetLocs(site) {
						add(Order{Type: Build, Unit: Fleet, Loc: fl})
					}
					out[site] = append(out[site], Order{Type: Waive})
				}
			case n < 0:
				for _, u := range g.pos.Units {
					if u.Power == p {
						add(Order{Type: Disband, Unit: u.Type, Loc: u.Loc})
					}
				}
			}
		}
	}
	type keyed struct {
		text string
		o    Order
	}
	for k, os := range out {
		ks := make([]keyed, len(os))
		for i, o := range os {
			ks[i] = keyed{o.String(), o}
		}
		slices.SortFunc(ks, func(a, b keyed) int { return strings.Compare(a.text, b.text) })
		ks = slices.CompactFunc(ks, func(a, b keyed) bool { return a.text == b.text })
		os = os[:len(ks)]
		for i, kv := range ks {
			os[i] = kv.o
		}
		out[k] = os
	}
	return out
}

// OrderableLocations returns the provinces where power p has something to
// order in the current phase, sorted: its units (movement), its
// dislodged units (retreats), its build sites when it may build or its
// units when it must disband (adjustments).
func (g *Game) OrderableLocations(p Power) []Loc {
	var out []Loc
	if g.done || !p.Valid() {
		return nil
	}
	units := func() {
		for _, u := range g.pos.Units {
			if u.Power == p {
				out = append(out, u.Loc.Province())
			}
		}
	}
	switch g.pos.Phase.Type {
	case Movement:
		units()
	case Retreats:
		for _, d := range g.pos.Dislodged {
			if d.Unit.Power == p {
				out = append(out, d.Unit.Loc.Province())
			}
		}
	case Adjustments:
		switch n := AdjustmentCount(p, g.pos.Units, g.pos.Centers); {
		case n > 0:
			out = g.m.BuildSites(p, g.pos.Units, g.pos.Centers)
		case n < 0:
			units()
		}
	}
	slices.Sort(out)
	return out
}

// fleetReach maps each water province holding a fleet to the coastal
// provinces its chain of fleets at sea touches.
func (m *Map) fleetReach(b board) map[Loc]map[Loc]bool {
	out := map[Loc]map[Loc]bool{}
	fleets := b.fleetAt("")
	for sea, u := range b {
		if p, _ := m.Province(sea); u.Type != Fleet || p.Kind != Water || out[sea] != nil {
			continue
		}
		// One search per chain, shared by its fleets.
		comp := []Loc{sea}
		seen := map[Loc]bool{sea: true}
		touched := map[Loc]bool{}
		for i := 0; i < len(comp); i++ {
			for _, n := range m.fleet[comp[i]] {
				p, _ := m.Province(n)
				switch {
				case p.Kind == Water && !seen[n] && fleets(n):
					seen[n] = true
					comp = append(comp, n)
				case p.Kind == Coast:
					touched[n.Province()] = true
				}
			}
		}
		for _, c := range comp {
			out[c] = touched
		}
	}
	return out
}

// movementOrders lists the legal movement-phase orders of unit u; reach
// is fleetReach of the board.
func (m *Map) movementOrders(b board, reach map[Loc]map[Loc]bool, u Unit) []Order {
	out := []Order{{Type: Hold, Unit: u.Type, Loc: u.Loc}}
	for _, n := range m.Neighbours(u.Type, u.Loc) {
		out = append(out, Order{Type: Move, Unit: u.Type, Loc: u.Loc, Dest: n})
	}
	// Armies that could go by convoy, and where (to skip hopeless searches).
	convoyDests := map[Loc]map[Loc]bool{}
	for _, w := range b {
		if w.Type != Army || !m.isCoastal(w.Loc) {
			continue
		}
		d := map[Loc]bool{}
		for _, sea := range m.seasNext(w.Loc) {
			for c := range reach[sea] {
				if c != w.Loc {
					d[c] = true
				}
			}
		}
		convoyDests[w.Loc] = d
	}
	if u.Type == Army {
		for _, p := range m.provinces {
			if convoyDests[u.Loc][p.Code] {
				out = append(out, Order{Type: Move, Unit: Army, Loc: u.Loc, Dest: p.Code, Via: true})
			}
		}
	}
	// Supports: to hold, of units in provinces u can reach; to move, of
	// units that could move into such a province.
	for _, p := range m.provinces {
		target := p.Code
		if target == u.Loc.Province() || !m.reachesProvince(u.Type, u.Loc, target) {
			continue
		}
		if w, ok := b.at(target); ok {
			out = append(out, Order{Type: Support, Unit: u.Type, Loc: u.Loc, Aux: w.Type, AuxLoc: w.Loc})
		}
		for _, w := range b {
			if w.Loc.SameProvince(u.Loc) || w.Loc.SameProvince(target) {
				continue
			}
			if w.Type == Army && !m.Adjacent(Army, w.Loc, target) && !convoyDests[w.Loc][target] {
				continue
			}
			if !m.couldMove(b, w, target, u.Loc) {
				continue
			}
			out = append(out, Order{Type: Support, Unit: u.Type, Loc: u.Loc, Aux: w.Type, AuxLoc: w.Loc, Dest: target})
			if w.Type == Fleet {
				// Also with the coast, as the reference lists them.
				for _, c := range p.Coasts {
					if m.Adjacent(Fleet, w.Loc, c) {
						out = append(out, Order{Type: Support, Unit: u.Type, Loc: u.Loc, Aux: w.Type, AuxLoc: w.Loc, Dest: c})
					}
				}
			}
		}
	}
	// Convoys: armies this fleet can carry along a chain of fleets now at
	// sea, on a minimal route.
	if pr, _ := m.Province(u.Loc); u.Type == Fleet && pr.Kind == Water {
		for _, w := range b {
			if w.Type != Army || !m.isCoastal(w.Loc) {
				continue
			}
			if !reach[u.Loc][w.Loc] {
				continue
			}
			for _, p := range m.provinces {
				if p.Kind != Coast || p.Code == w.Loc || !reach[u.Loc][p.Code] {
					continue
				}
				if m.necessaryConvoy(u.Loc, w.Loc, p.Code) {
					out = append(out, Order{Type: Convoy, Unit: Fleet, Loc: u.Loc, Aux: Army, AuxLoc: w.Loc, Dest: p.Code})
				}
			}
		}
	}
	return out
}
