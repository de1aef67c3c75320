package diplomacy

import (
	"slices"
	"strings"
)

// RetreatResult is the adjudication of a retreats phase.
type RetreatResult struct {
	// Results has one entry per dislodged unit, sorted by location; a
	// unit that does not retreat is disbanded (the Disbanded flag).
	Results []OrderResult `json:"results"`
	// Units are the units after the retreats, sorted by location.
	Units []Unit `json:"units"`
}

// ResolveRetreats adjudicates a retreats phase: units are the units that
// were not dislodged, dislodged the units waiting for their retreat (with
// their legal destinations), orders each power's retreat and disband
// orders. A retreat to a province that another unit also retreats to
// fails for both (both are disbanded); a unit without a legal retreat
// order is disbanded. Orders for units that are not dislodged are void.
func (m *Map) ResolveRetreats(units []Unit, dislodged []DislodgedUnit, orders map[Power][]Order) (*RetreatResult, error) {
	if err := m.checkUnits(units); err != nil {
		return nil, err
	}
	dislodged = slices.Clone(dislodged)
	slices.SortFunc(dislodged, func(a, b DislodgedUnit) int { return strings.Compare(string(a.Unit.Loc), string(b.Unit.Loc)) })
	res := make([]OrderResult, len(dislodged))
	dest := make([]Loc, len(dislodged))
	for i, d := range dislodged {
		res[i] = OrderResult{Unit: d.Unit, Order: Order{Type: Disband, Unit: d.Unit.Type, Loc: d.Unit.Loc}}
	}
	find := func(l Loc) int {
		for i, d := range dislodged {
			if d.Unit.Loc.SameProvince(l) {
				return i
			}
		}
		return -1
	}
	for _, p := range Powers() {
		for _, o := range orders[p] {
			i := find(o.Loc)
			if i < 0 {
				continue
			}
			given := o
			res[i].Given = &given
			norm, err := m.checkRetreat(dislodged[i], p, o)
			if err != nil {
				res[i].Illegal = strings.TrimPrefix(err.Error(), ErrIllegal.Error()+": ")
				res[i].Order = Order{Type: Disband, Unit: dislodged[i].Unit.Type, Loc: dislodged[i].Unit.Loc}
				res[i].Result = Void
				dest[i] = ""
				continue
			}
			res[i].Illegal, res[i].Result = "", 0
			res[i].Order = norm
			dest[i] = ""
			if norm.Type == Retreat {
				dest[i] = norm.Dest
			}
		}
	}
	out := &RetreatResult{Units: slices.Clone(units)}
	for i, d := range dislodged {
		if dest[i] == "" {
			res[i].Result |= Disbanded
			continue
		}
		clash := false
		for j := range dislodged {
			if j != i && dest[j] != "" && dest[j].SameProvince(dest[i]) {
				clash = true
			}
		}
		if clash {
			res[i].Result |= Bounce | Disbanded
			continue
		}
		u := d.Unit
		u.Loc = dest[i]
		out.Units = append(out.Units, u)
	}
	slices.SortFunc(out.Units, func(x, y Unit) int { return strings.Compare(string(x.Loc), string(y.Loc)) })
	out.Results = res
	return out, nil
}

// checkRetreat checks a retreats-phase order of power p for dislodged
// unit d and returns it normalised.
func (m *Map) checkRetreat(d DislodgedUnit, p Power, o Order) (Order, error) {
	u := d.Unit
	if u.Power != p {
		return o, illegal("the unit in %s belongs to %s, not %s", u.Loc, u.Power, p)
	}
	if o.Unit != u.Type {
		return o, illegal("the unit in %s is %s, not %s", u.Loc, u, o.Unit)
	}
	o.Loc = u.Loc
	switch o.Type {
	case Disband:
		return o, nil
	case Retreat, Move:
		o.Type = Retreat
		var cands []Loc
		for _, r := range d.Retreats {
			if r == o.Dest || (o.Dest.Coast() == "" && r.SameProvince(o.Dest)) {
				cands = append(cands, r)
			}
		}
		if len(cands) != 1 {
			if len(cands) > 1 {
				return o, illegal("%s must say which coast of %s", u, o.Dest)
			}
			return o, illegal("%s cannot retreat to %s", u, o.Dest)
		}
		o.Dest = cands[0]
		o.Via = false
		return o, nil
	}
	return o, illegal("%s is not a retreat or disband order", o.Type)
}
