package diplomacy

import "fmt"

// board indexes units by province.
type board map[Loc]Unit

func newBoard(units []Unit) board {
	b := make(board, len(units))
	for _, u := range units {
		b[u.Loc.Province()] = u
	}
	return b
}

func (b board) at(l Loc) (Unit, bool) {
	u, ok := b[l.Province()]
	return u, ok
}

func illegal(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrIllegal, fmt.Sprintf(format, args...))
}

// checkMovement checks an order of power p for a movement phase and
// returns it normalised: the unit's exact location, a fleet's move to
// the one reachable coast of a province when the coast was left out.
func (m *Map) checkMovement(b board, p Power, o Order) (Order, error) {
	switch o.Type {
	case Hold, Move, Support, Convoy:
	default:
		return o, illegal("%s is not a movement-phase order", o.Type)
	}
	u, ok := b.at(o.Loc)
	if !ok {
		return o, illegal("no unit in %s", o.Loc.Province())
	}
	if u.Power != p {
		return o, illegal("the unit in %s belongs to %s, not %s", u.Loc, u.Power, p)
	}
	if o.Unit != u.Type {
		return o, illegal("the unit in %s is %s, not %s", u.Loc, u, o.Unit)
	}
	// A wrong coast for the ordered fleet itself is ignored (DATC 6.B.10,
	// preferred): the unit is found by its province.
	o.Loc = u.Loc
	switch o.Type {
	case Move:
		d, err := m.checkMoveDest(b, u, o.Dest, o.Via)
		if err != nil {
			return o, err
		}
		o.Dest = d
	case Support:
		other, ok := b.at(o.AuxLoc)
		if !ok {
			return o, illegal("no unit in %s to support", o.AuxLoc.Province())
		}
		if o.Aux != 0 && other.Type != o.Aux {
			return o, illegal("the unit in %s is %s, not %s", other.Loc, other, o.Aux)
		}
		o.Aux, o.AuxLoc = other.Type, other.Loc
		if other.Loc.SameProvince(u.Loc) {
			return o, illegal("a unit cannot support itself")
		}
		target := o.AuxLoc
		if o.Dest != "" {
			target = o.Dest
			if o.Dest.SameProvince(u.Loc) {
				return o, illegal("a unit cannot support a move into its own province")
			}
			if o.Dest.SameProvince(other.Loc) {
				return o, illegal("the supported unit is already in %s", o.Dest)
			}
			if !m.couldMove(b, other, o.Dest, u.Loc) {
				return o, illegal("%s cannot move to %s", other, o.Dest)
			}
		}
		if !m.reachesProvince(u.Type, u.Loc, target) {
			return o, illegal("%s cannot reach %s, so cannot support there", u, target.Province())
		}
	case Convoy:
		if p, _ := m.Province(u.Loc); u.Type != Fleet || p.Kind != Water {
			return o, illegal("only a fleet at sea can convoy")
		}
		other, ok := b.at(o.AuxLoc)
		if !ok || other.Type != Army || o.Aux == Fleet {
			return o, illegal("no army in %s to convoy", o.AuxLoc.Province())
		}
		o.Aux, o.AuxLoc = Army, other.Loc
		if !m.necessaryConvoy(u.Loc, o.AuxLoc, o.Dest) {
			return o, illegal("%s is on no convoy route from %s to %s", u, o.AuxLoc, o.Dest)
		}
		o.Dest = o.Dest.Province()
	}
	return o, nil
}

// checkMoveDest checks that a unit may be ordered to dest and returns the
// destination normalised (armies: the province; fleets: the exact coast).
// A move by convoy needs a chain of water provinces that all hold a fleet
// now, whatever their orders (DATC 6.D.32: an impossible move is ignored,
// 2023 rules).
func (m *Map) checkMoveDest(b board, u Unit, dest Loc, via bool) (Loc, error) {
	if !m.IsLoc(dest) {
		return dest, illegal("unknown location %s", dest)
	}
	if dest.SameProvince(u.Loc) {
		return dest, illegal("a unit cannot move to its own province")
	}
	if u.Type == Army {
		dest = dest.Province()
		if p, _ := m.Province(dest); p.Kind == Water {
			return dest, illegal("an army cannot move to sea")
		}
		if m.Adjacent(Army, u.Loc, dest) && !via {
			return dest, nil
		}
		if m.convoyRoute(u.Loc, dest, b.fleetAt("")) {
			return dest, nil
		}
		return dest, illegal("%s cannot reach %s, by land or by a convoy of the fleets at sea", u, dest)
	}
	if via {
		return dest, illegal("a fleet cannot be convoyed")
	}
	if dest.Coast() == "" {
		if p, _ := m.Province(dest); len(p.Coasts) > 0 {
			var reach []Loc
			for _, c := range p.Coasts {
				if m.Adjacent(Fleet, u.Loc, c) {
					reach = append(reach, c)
				}
			}
			switch len(reach) {
			case 1:
				return reach[0], nil
			case 0:
				return dest, illegal("%s cannot reach %s", u, dest)
			default:
				return dest, illegal("%s must say which coast of %s", u, dest)
			}
		}
	}
	if !m.Adjacent(Fleet, u.Loc, dest) {
		return dest, illegal("%s cannot reach %s", u, dest)
	}
	return dest, nil
}

// couldMove reports whether unit u could be ordered to move to (some
// coast of) province dest, by land or, for an army, by a convoy of the
// fleets at sea other than the one at except: a fleet cannot both convoy
// and support a move (DATC 6.D.31).
func (m *Map) couldMove(b board, u Unit, dest, except Loc) bool {
	if u.Type == Fleet {
		return m.reachesProvince(Fleet, u.Loc, dest)
	}
	if p, ok := m.Province(dest); !ok || p.Kind == Water {
		return false
	}
	return m.Adjacent(Army, u.Loc, dest) || m.convoyRoute(u.Loc, dest, b.fleetAt(except))
}

// fleetAt returns a test for water provinces holding a fleet, other than
// province except.
func (b board) fleetAt(except Loc) func(Loc) bool {
	return func(sea Loc) bool {
		u, ok := b[sea]
		return ok && u.Type == Fleet && sea != except.Province()
	}
}
