package diplomacy

import (
	"slices"
	"strings"
)

// AdjustResult is the adjudication of an adjustments phase.
type AdjustResult struct {
	// Results lists the orders in the order given, power by power, then
	// the disbands of civil disorder (with no Given order). A build,
	// disband or waive beyond what the power may do, or illegal, is Void.
	Results []OrderResult `json:"results"`
	// Units are the units after the adjustments, sorted by location.
	Units []Unit `json:"units"`
}

// AdjustmentCount returns how many units a power may build (positive) or
// must disband (negative): its supply centres minus its units.
func AdjustmentCount(p Power, units []Unit, centers map[Loc]Power) int {
	n := 0
	for _, o := range centers {
		if o == p {
			n++
		}
	}
	for _, u := range units {
		if u.Power == p {
			n--
		}
	}
	return n
}

// BuildSites returns where power p may build this winter: its home
// centres that it still owns and that no unit occupies, sorted.
func (m *Map) BuildSites(p Power, units []Unit, centers map[Loc]Power) []Loc {
	b := newBoard(units)
	var out []Loc
	for _, h := range m.homes[p] {
		if _, occ := b.at(h); !occ && centers[h] == p {
			out = append(out, h)
		}
	}
	return out
}

// ResolveAdjustments adjudicates an adjustments phase. Orders are taken
// one by one in the order given (DATC 4.D.4 and 4.D.6, preferred): a
// build counts while the power still has builds left (a waive uses one),
// a disband while it still has disbands left; the rest are void. A power
// that disbands too few loses units by the civil disorder rule of the 2023
// rulebook (DATC 3.0 section 6.J): the units farthest from any supply
// centre the power owns, counting moves over land and sea for both unit
// types, fleets before armies at equal distance, then alphabetically by
// province name. A power that builds too few simply builds fewer.
func (m *Map) ResolveAdjustments(units []Unit, centers map[Loc]Power, orders map[Power][]Order) (*AdjustResult, error) {
	if err := m.checkUnits(units); err != nil {
		return nil, err
	}
	out := &AdjustResult{}
	keep := slices.Clone(units)
	for _, p := range Powers() {
		count := AdjustmentCount(p, units, centers)
		sites := m.BuildSites(p, units, centers)
		built := map[Loc]bool{}
		removed := map[Loc]bool{}
		// Builds and disbands in the order given, then waives: a waive
		// never blocks a build (as in the reference library).
		ordered := slices.Clone(orders[p])
		slices.SortStableFunc(ordered, func(a, b Order) int {
			return boolInt(a.Type == Waive) - boolInt(b.Type == Waive)
		})
		for _, o := range ordered {
			given := o
			r := OrderResult{Given: &given, Order: o, Unit: Unit{Power: p}}
			var err error
			switch {
			case o.Type == Build:
				r.Unit = Unit{Type: o.Unit, Power: p, Loc: o.Loc}
				switch {
				case count <= 0:
					err = illegal("%s has no build left", p)
				case !slices.Contains(sites, o.Loc.Province()):
					err = illegal("%s is not a vacant home centre that %s owns", o.Loc.Province(), p)
				case built[o.Loc.Province()]:
					err = illegal("a unit is already built in %s", o.Loc.Province())
				case !m.CanHold(o.Unit, o.Loc):
					err = illegal("cannot build %s at %s", o.Unit, o.Loc)
				}
				if err == nil {
					count--
					built[o.Loc.Province()] = true
					keep = append(keep, r.Unit)
				}
			case o.Type == Waive:
				if count <= 0 {
					err = illegal("%s has no build to waive", p)
				} else {
					count--
				}
			case o.Type == Disband:
				u, ok := newBoard(units).at(o.Loc)
				r.Unit = Unit{Type: o.Unit, Power: p, Loc: o.Loc}
				switch {
				case count >= 0:
					err = illegal("%s has no unit to disband", p)
				case !ok || u.Power != p || u.Type != o.Unit:
					err = illegal("%s has no %s in %s", p, o.Unit, o.Loc)
				case removed[u.Loc]:
					err = illegal("%s is already disbanded", u)
				}
				if err == nil {
					r.Unit = u
					r.Order.Loc = u.Loc
					count++
					removed[u.Loc] = true
				}
			default:
				err = illegal("%s is not an adjustment order", o.Type)
			}
			if err != nil {
				r.Result = Void
				r.Illegal = strings.TrimPrefix(err.Error(), ErrIllegal.Error()+": ")
			}
			out.Results = append(out.Results, r)
		}
		if count < 0 {
			for _, u := range m.civilDisorder(p, units, centers, removed, -count) {
				removed[u.Loc] = true
				out.Results = append(out.Results, OrderResult{Unit: u, Order: Order{Type: Disband, Unit: u.Type, Loc: u.Loc}, Result: Disbanded})
			}
		}
		keep = slices.DeleteFunc(keep, func(u Unit) bool { return u.Power == p && removed[u.Loc] })
	}
	slices.SortFunc(keep, func(x, y Unit) int { return strings.Compare(string(x.Loc), string(y.Loc)) })
	out.Units = keep
	return out, nil
}

// civilDisorder picks n more of p's units to disband (see
// ResolveAdjustments), skipping those already removed.
func (m *Map) civilDisorder(p Power, units []Unit, centers map[Loc]Power, removed map[Loc]bool, n int) []Unit {
	var owned []Loc
	for c, o := range centers {
		if o == p {
			owned = append(owned, c)
		}
	}
	type cand struct {
		u    Unit
		dist int
		name string
	}
	var cs []cand
	for _, u := range units {
		if u.Power != p || removed[u.Loc] {
			continue
		}
		pr, _ := m.Province(u.Loc)
		cs = append(cs, cand{u, m.distance(u.Loc.Province(), owned), pr.Name})
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.dist != b.dist {
			return b.dist - a.dist
		}
		if a.u.Type != b.u.Type {
			return int(b.u.Type) - int(a.u.Type) // fleets first
		}
		return strings.Compare(a.name, b.name)
	})
	var out []Unit
	for i := 0; i < n && i < len(cs); i++ {
		out = append(out, cs[i].u)
	}
	return out
}

// distance is the fewest moves from province from to any of targets,
// where every border counts, over land or sea (the 2023 rule for civil
// disorder). It is a large number when no target exists.
func (m *Map) distance(from Loc, targets []Loc) int {
	const far = 1 << 20
	if len(targets) == 0 {
		return far
	}
	dist := map[Loc]int{from: 0}
	queue := []Loc{from}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if slices.Contains(targets, cur) {
			return dist[cur]
		}
		for _, n := range m.provinceNeighbours(cur) {
			if _, seen := dist[n]; !seen {
				dist[n] = dist[cur] + 1
				queue = append(queue, n)
			}
		}
	}
	return far
}

// provinceNeighbours returns the provinces bordering prov by land or sea.
func (m *Map) provinceNeighbours(prov Loc) []Loc {
	out := slices.Clone(m.army[prov])
	for _, fl := range m.FleetLocs(prov) {
		for _, n := range m.fleet[fl] {
			if !slices.Contains(out, n.Province()) {
				out = append(out, n.Province())
			}
		}
	}
	slices.Sort(out)
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
