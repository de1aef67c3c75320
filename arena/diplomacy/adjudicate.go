package diplomacy

import (
	"slices"
	"strings"
)

// OrderResult is the outcome of one unit's order in a phase.
type OrderResult struct {
	// Unit is the ordered unit where it stood.
	Unit Unit `json:"unit"`
	// Order is the order as adjudicated: the power's order normalised, or
	// a hold when the power gave none or an illegal one.
	Order Order `json:"order"`
	// Given is the order the power gave, if any.
	Given *Order `json:"given,omitempty"`
	// Illegal says why the given order was illegal ("" when it was not).
	Illegal string `json:"illegal,omitempty"`
	// Result holds the outcome flags; zero is success.
	Result Result `json:"result"`
}

// DislodgedUnit is a unit dislodged in a movement phase, waiting for its
// retreat.
type DislodgedUnit struct {
	Unit Unit `json:"unit"`
	// From is the province the dislodging unit came from.
	From Loc `json:"from"`
	// Retreats are the locations the unit may retreat to, sorted; empty
	// when it can only disband.
	Retreats []Loc `json:"retreats"`
}

// MovementResult is the adjudication of a movement phase.
type MovementResult struct {
	// Results has one entry per unit, sorted by location.
	Results []OrderResult `json:"results"`
	// Units are the units after the moves, without the dislodged ones,
	// sorted by location.
	Units []Unit `json:"units"`
	// Dislodged are the dislodged units, sorted by location.
	Dislodged []DislodgedUnit `json:"dislodged,omitempty"`
	// Contested are the provinces left empty by a standoff, where no unit
	// may retreat, sorted.
	Contested []Loc `json:"contested,omitempty"`
}

// Resolve adjudicates a movement phase of the standard rules (the 2023
// rulebook with the DATC 3.0 preferences; see the package documentation)
// for units and the orders each power gave. A unit without a legal order
// from its own power holds; when a power orders one unit twice the later
// order counts. The units must stand on legal, distinct locations.
func (m *Map) Resolve(units []Unit, orders map[Power][]Order) (*MovementResult, error) {
	if err := m.checkUnits(units); err != nil {
		return nil, err
	}
	a := newMovement(m, units, orders)
	return a.run(), nil
}

// checkUnits verifies a position: known locations legal for each unit
// type, at most one unit per province, real powers.
func (m *Map) checkUnits(units []Unit) error {
	seen := map[Loc]bool{}
	for _, u := range units {
		if !u.Power.Valid() {
			return illegalState("unit %s has no power", u)
		}
		if !m.CanHold(u.Type, u.Loc) {
			return illegalState("%s cannot stand at %s", u.Type, u.Loc)
		}
		if seen[u.Loc.Province()] {
			return illegalState("two units in %s", u.Loc.Province())
		}
		seen[u.Loc.Province()] = true
	}
	return nil
}

// Decision states of the guess-and-check resolution.
const (
	unresolved uint8 = iota
	guessing
	resolved
)

type movement struct {
	m        *Map
	units    []Unit
	res      []OrderResult
	orders   []Order
	at       map[Loc]int   // province -> unit index
	isMove   []bool        // the effective order is a move
	convoyed []bool        // the move goes by convoy
	into     map[Loc][]int // province -> units moving there
	backers  [][]int       // matching supports of each unit's order
	fleets   [][]int       // convoying fleets of each convoyed move
	state    []uint8
	outcome  []bool
	deps     []int
	noPath   []bool // Szykman: the convoy of this move is broken by a paradox
}

func newMovement(m *Map, units []Unit, orders map[Power][]Order) *movement {
	units = slices.Clone(units)
	slices.SortFunc(units, func(a, b Unit) int { return strings.Compare(string(a.Loc), string(b.Loc)) })
	n := len(units)
	a := &movement{
		m: m, units: units, res: make([]OrderResult, n), orders: make([]Order, n),
		at: map[Loc]int{}, isMove: make([]bool, n), convoyed: make([]bool, n),
		into: map[Loc][]int{}, backers: make([][]int, n), fleets: make([][]int, n),
		state: make([]uint8, n), outcome: make([]bool, n), noPath: make([]bool, n),
	}
	b := newBoard(units)
	for i, u := range units {
		a.at[u.Loc.Province()] = i
		a.res[i].Unit = u
		a.orders[i] = Order{Type: Hold, Unit: u.Type, Loc: u.Loc}
	}
	// Each power's orders, the later replacing the earlier for a unit.
	for _, p := range Powers() {
		for _, o := range orders[p] {
			i, ok := a.at[o.Loc.Province()]
			if !ok || o.Type == Waive || units[i].Power != p {
				// Orders for no unit or another power's unit have no
				// effect (DATC 6.A.6); Game.SetOrders reports them.
				continue
			}
			given := o
			a.res[i].Given = &given
			norm, err := m.checkMovement(b, p, o)
			if err != nil {
				a.res[i].Illegal = strings.TrimPrefix(err.Error(), ErrIllegal.Error()+": ")
				a.res[i].Result = Void
				a.orders[i] = Order{Type: Hold, Unit: units[i].Type, Loc: units[i].Loc}
				continue
			}
			a.res[i].Illegal, a.res[i].Result = "", 0
			a.orders[i] = norm
		}
	}
	for i, o := range a.orders {
		a.res[i].Order = o
		if o.Type == Move {
			a.isMove[i] = true
			a.into[o.Dest.Province()] = append(a.into[o.Dest.Province()], i)
		}
	}
	// Convoying fleets, and whether each army move goes by convoy: when it
	// must (not adjacent), when ordered "via convoy", or when a fleet of
	// its own power is ordered to convoy it (the 2023 rules; DATC 4.A.3).
	for f, o := range a.orders {
		if o.Type != Convoy {
			continue
		}
		j := a.at[o.AuxLoc.Province()]
		if a.isMove[j] && a.orders[j].Dest.Province() == o.Dest {
			a.fleets[j] = append(a.fleets[j], f)
		} else {
			a.res[f].Result |= Void
		}
	}
	for i, o := range a.orders {
		if !a.isMove[i] || o.Unit != Army {
			continue
		}
		if o.Via || !m.Adjacent(Army, o.Loc, o.Dest) {
			a.convoyed[i] = true
			continue
		}
		for _, f := range a.fleets[i] {
			if units[f].Power == units[i].Power {
				a.convoyed[i] = true
			}
		}
	}
	// Supports that match what the other unit does.
	for s, o := range a.orders {
		if o.Type != Support {
			continue
		}
		j := a.at[o.AuxLoc.Province()]
		match := false
		if o.Dest == "" {
			match = !a.isMove[j]
		} else {
			match = a.isMove[j] && a.orders[j].Dest.Province() == o.Dest.Province()
		}
		if match {
			a.backers[j] = append(a.backers[j], s)
		} else {
			a.res[s].Result |= Void
		}
	}
	return a
}

// resolve returns the decision of unit i's order (a move succeeds, a
// support is given, a convoy holds, anything else: the unit stays) with
// the guess-and-check algorithm of the DATC (section 5, after
// Kruijswijk): cyclic dependencies are guessed both ways; one consistent
// outcome is taken, two or none go to the backup rule.
func (a *movement) resolve(i int) bool {
	switch a.state[i] {
	case resolved:
		return a.outcome[i]
	case guessing:
		if !slices.Contains(a.deps, i) {
			a.deps = append(a.deps, i)
		}
		return a.outcome[i]
	}
	old := len(a.deps)
	a.outcome[i], a.state[i] = false, guessing
	first := a.adjudicate(i)
	if len(a.deps) == old {
		if a.state[i] != resolved {
			a.outcome[i], a.state[i] = first, resolved
		}
		return first
	}
	if a.deps[old] != i {
		a.deps = append(a.deps, i)
		a.outcome[i] = first
		return first
	}
	// i heads a cycle: try the other guess.
	for _, d := range a.deps[old:] {
		a.state[d] = unresolved
	}
	a.deps = a.deps[:old]
	a.outcome[i], a.state[i] = true, guessing
	second := a.adjudicate(i)
	if first == second {
		for _, d := range a.deps[old:] {
			a.state[d] = unresolved
		}
		a.deps = a.deps[:old]
		a.outcome[i], a.state[i] = first, resolved
		return first
	}
	a.backup(old)
	return a.resolve(i)
}

// backup applies the backup rule to the cycle recorded in deps[old:]: a
// cycle without a convoying fleet's decision is circular movement and
// every move in it succeeds (a rotation, or a swap by convoy); a cycle
// through a convoying fleet is a convoy paradox, settled by the Szykman
// rule (DATC 4.A.2, preferred): the moves by convoy whose fleets are in
// the cycle fail and have no effect at all, as if their convoys were
// disrupted.
func (a *movement) backup(old int) {
	cycle := slices.Clone(a.deps[old:])
	a.deps = a.deps[:old]
	paradox := false
	for _, d := range cycle {
		if a.orders[d].Type == Convoy {
			paradox = true
		}
	}
	for _, d := range cycle {
		a.state[d] = unresolved
	}
	if !paradox {
		for _, d := range cycle {
			if a.isMove[d] {
				a.outcome[d], a.state[d] = true, resolved
			}
		}
		return
	}
	for _, d := range cycle {
		if a.orders[d].Type != Convoy {
			continue
		}
		if j := a.at[a.orders[d].AuxLoc.Province()]; a.convoyed[j] {
			a.noPath[j] = true
			a.outcome[j], a.state[j] = false, resolved
		}
	}
}

// adjudicate computes unit i's decision from the others' (resolving them
// as needed).
func (a *movement) adjudicate(i int) bool {
	switch a.orders[i].Type {
	case Move:
		return a.moveSucceeds(i)
	case Support:
		return !a.supportCut(i) && !a.dislodged(i)
	default:
		return !a.dislodged(i)
	}
}

// path reports whether mover i can reach its destination: over land, or
// by an unbroken chain of convoying fleets that are not dislodged.
func (a *movement) path(i int) bool {
	if !a.convoyed[i] {
		return true
	}
	if a.noPath[i] || len(a.fleets[i]) == 0 {
		return false
	}
	o := a.orders[i]
	return a.m.convoyRoute(o.Loc, o.Dest, func(sea Loc) bool {
		for _, f := range a.fleets[i] {
			if a.units[f].Loc == sea {
				return a.resolve(f)
			}
		}
		return false
	})
}

// onRoute reports whether the fleet at sea lies on a chain of fleets
// ordered to convoy mover i that links i's province with its
// destination.
func (a *movement) onRoute(i int, sea Loc) bool {
	o := a.orders[i]
	reach := func(prov Loc) bool {
		seen := map[Loc]bool{}
		var queue []Loc
		for _, f := range a.fleets[i] {
			if l := a.units[f].Loc; a.m.touches(l, prov) {
				seen[l] = true
				queue = append(queue, l)
			}
		}
		for len(queue) > 0 {
			cur := queue[0]
			queue = queue[1:]
			if cur == sea {
				return true
			}
			for _, f := range a.fleets[i] {
				if l := a.units[f].Loc; !seen[l] && a.m.Adjacent(Fleet, cur, l) {
					seen[l] = true
					queue = append(queue, l)
				}
			}
		}
		return false
	}
	return reach(o.Loc.Province()) && reach(o.Dest.Province())
}

// headToHead returns the unit that i meets head to head (moving into i's
// province from i's destination, neither by convoy), or -1.
func (a *movement) headToHead(i int) int {
	j, ok := a.at[a.orders[i].Dest.Province()]
	if !ok || !a.isMove[j] || a.convoyed[i] || a.convoyed[j] {
		return -1
	}
	if a.orders[j].Dest.Province() != a.units[i].Loc.Province() {
		return -1
	}
	return j
}

func (a *movement) supportCount(i int, exclude Power) int {
	n := 0
	for _, s := range a.backers[i] {
		if a.units[s].Power != exclude && a.resolve(s) {
			n++
		}
	}
	return n
}

func (a *movement) attackStrength(i int) int {
	if !a.path(i) {
		return 0
	}
	j, occupied := a.at[a.orders[i].Dest.Province()]
	if !occupied || (a.isMove[j] && a.headToHead(i) < 0 && a.resolve(j)) {
		return 1 + a.supportCount(i, NoPower)
	}
	if a.units[j].Power == a.units[i].Power {
		return 0
	}
	return 1 + a.supportCount(i, a.units[j].Power)
}

func (a *movement) holdStrength(prov Loc) int {
	j, ok := a.at[prov]
	if !ok {
		return 0
	}
	if a.isMove[j] {
		if a.resolve(j) {
			return 0
		}
		return 1
	}
	return 1 + a.supportCount(j, NoPower)
}

func (a *movement) preventStrength(i int) int {
	if !a.path(i) {
		return 0
	}
	if j := a.headToHead(i); j >= 0 && a.resolve(j) {
		return 0
	}
	return 1 + a.supportCount(i, NoPower)
}

func (a *movement) moveSucceeds(i int) bool {
	attack := a.attackStrength(i)
	if attack == 0 {
		return false
	}
	dest := a.orders[i].Dest.Province()
	if j := a.headToHead(i); j >= 0 {
		if attack <= 1+a.supportCount(j, NoPower) {
			return false
		}
	} else if attack <= a.holdStrength(dest) {
		return false
	}
	for _, k := range a.into[dest] {
		if k != i && attack <= a.preventStrength(k) {
			return false
		}
	}
	return true
}

// supportCut reports whether support s is cut by an attack of another
// power: any attack with a path, except one from the province the support
// is aimed at (that one cuts only by dislodging, which adjudicate checks).
func (a *movement) supportCut(s int) bool {
	prov := a.units[s].Loc.Province()
	for _, j := range a.into[prov] {
		if a.units[j].Power == a.units[s].Power {
			continue
		}
		if d := a.orders[s].Dest; d != "" && a.units[j].Loc.SameProvince(d) {
			continue
		}
		if a.path(j) {
			return true
		}
	}
	return false
}

// dislodged reports whether unit i is dislodged: it does not move away
// and a move into its province succeeds.
func (a *movement) dislodged(i int) bool {
	if a.isMove[i] && a.resolve(i) {
		return false
	}
	for _, j := range a.into[a.units[i].Loc.Province()] {
		if a.resolve(j) {
			return true
		}
	}
	return false
}

func (a *movement) run() *MovementResult {
	n := len(a.units)
	for i := range n {
		a.resolve(i)
	}
	out := &MovementResult{}
	occupied := map[Loc]bool{}
	var dis []int
	attacker := make([]int, n)
	for i := range n {
		r := &a.res[i]
		o := a.orders[i]
		switch o.Type {
		case Move:
			if !a.outcome[i] {
				if a.convoyed[i] && !a.path(i) {
					r.Result |= NoConvoy
				} else {
					r.Result |= Bounce
				}
			}
		case Support:
			if r.Result&Void == 0 && !a.outcome[i] {
				r.Result |= Cut
			}
			if r.Result&Void == 0 && o.Dest != "" {
				j := a.at[o.AuxLoc.Province()]
				if a.convoyed[j] && !a.path(j) {
					r.Result |= NoConvoy
				}
				// A support that could only help dislodge a unit of the
				// supporter's own power that stays (and bounces no other
				// unit) has no effect at all: void, as the reference
				// library reports it.
				dest := o.Dest.Province()
				if k, ok := a.at[dest]; ok && a.units[k].Power == a.units[i].Power &&
					!(a.isMove[k] && a.headToHead(j) < 0 && a.outcome[k]) && len(a.into[dest]) == 1 {
					r.Result |= Void
				}
			}
		case Convoy:
			// Reporting as the reference library does: a convoy not
			// used (the army went over land) or broken elsewhere in the
			// chain is "no convoy"; one broken by the paradox rule is
			// "disrupted" (a dislodged fleet is marked below).
			if r.Result&Void == 0 {
				j := a.at[o.AuxLoc.Province()]
				switch {
				case !a.convoyed[j]:
					r.Result |= NoConvoy
				case a.noPath[j]:
					r.Result |= Disrupted
				case !a.path(j) && a.outcome[i]:
					r.Result |= NoConvoy
				case !a.onRoute(j, o.Loc):
					r.Result |= NoConvoy
				}
			}
		}
		attacker[i] = -1
		if !(a.isMove[i] && a.outcome[i]) {
			for _, j := range a.into[a.units[i].Loc.Province()] {
				if a.outcome[j] {
					attacker[i] = j
				}
			}
		}
		if attacker[i] >= 0 {
			r.Result |= Dislodged
			if o.Type == Convoy && r.Result&Void == 0 {
				r.Result |= Disrupted
			}
			dis = append(dis, i)
		}
		u := a.units[i]
		if a.isMove[i] && a.outcome[i] {
			u.Loc = o.Dest
		}
		if attacker[i] < 0 {
			out.Units = append(out.Units, u)
			occupied[u.Loc.Province()] = true
		}
	}
	// Standoffs: provinces left empty where at least two units with a
	// path and a non-zero prevent strength tried to move.
	contested := map[Loc]bool{}
	for prov, movers := range a.into {
		if occupied[prov] {
			continue
		}
		strong := 0
		for _, j := range movers {
			if a.preventStrength(j) > 0 {
				strong++
			}
		}
		if strong >= 2 {
			contested[prov] = true
			out.Contested = append(out.Contested, prov)
		}
	}
	slices.Sort(out.Contested)
	for _, i := range dis {
		u := a.units[i]
		j := attacker[i]
		from := a.units[j].Loc.Province()
		d := DislodgedUnit{Unit: u, From: from}
		for _, to := range a.m.Neighbours(u.Type, u.Loc) {
			p := to.Province()
			if occupied[p] || contested[p] || (p == from && !a.convoyed[j]) {
				continue
			}
			d.Retreats = append(d.Retreats, to)
		}
		out.Dislodged = append(out.Dislodged, d)
	}
	slices.SortFunc(out.Units, func(x, y Unit) int { return strings.Compare(string(x.Loc), string(y.Loc)) })
	out.Results = a.res
	return out
}
