package diplomacy_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/org/agentevolver/arena/diplomacy"
)

// datcCase is one DATC case: its number, title, a reason to skip it (""
// to run it) and a script.
//
// A script is a list of lines, run in order:
//
//	phase W1901A                 the phase of the set-up (default S1901M)
//	units POWER: A PAR, F BRE    units of a power in the set-up
//	centers POWER: PAR, BRE      centres of a power in the set-up
//	clearcenters                 no centres (the default set-up gives
//	                             every power its home centres)
//	orders POWER: o1; o2         a power's orders for the current phase
//	process                      adjudicate the phase
//	result M|R|A UNIT: codes     the unit's result in the last movement,
//	                             retreats or adjustments phase has these
//	                             codes ("ok" is success, "void" also holds
//	                             for a unit that had no order)
//	dislodged UNIT by PROV       UNIT was dislodged by a unit from PROV
//	notdislodged UNIT            UNIT is not waiting to retreat
//	owner UNIT: POWER|none|any   who owns the unit now (none: no such
//	                             unit; a unit without coast matches any)
type datcCase struct {
	id, title, skip, script string
}

type datcRun struct {
	t       *testing.T
	m       *diplomacy.Map
	pos     diplomacy.Position
	centers bool
	g       *diplomacy.Game
	last    map[diplomacy.PhaseType]*diplomacy.PhaseRecord
}

func TestDATC(t *testing.T) {
	perSection := map[string][2]int{}
	for _, c := range datcCases {
		sec := c.id[:3]
		t.Run(c.id, func(t *testing.T) {
			if c.skip != "" {
				n := perSection[sec]
				n[1]++
				perSection[sec] = n
				t.Skip(c.skip)
			}
			runDATC(t, c.script)
			if !t.Failed() && !strings.Contains(c.id, "/") { // 6.J.9's second set-up is not another case
				n := perSection[sec]
				n[0]++
				perSection[sec] = n
			}
		})
	}
	for _, sec := range slices.Sorted(maps.Keys(perSection)) {
		t.Logf("DATC %s: %d passed, %d skipped", sec, perSection[sec][0], perSection[sec][1])
	}
}

func runDATC(t *testing.T, script string) {
	t.Helper()
	r := &datcRun{t: t, m: diplomacy.Standard(), last: map[diplomacy.PhaseType]*diplomacy.PhaseRecord{}}
	r.pos = diplomacy.Position{Phase: diplomacy.FirstPhase, Centers: map[diplomacy.Loc]diplomacy.Power{}}
	for _, p := range diplomacy.Powers() {
		for _, h := range r.m.HomeCenters(p) {
			r.pos.Centers[h] = p
		}
	}
	for ln := range strings.SplitSeq(script, "\n") {
		ln = strings.TrimSpace(ln)
		if ln == "" || strings.HasPrefix(ln, "#") {
			continue
		}
		cmd, rest, _ := strings.Cut(ln, " ")
		if err := r.step(cmd, rest); err != nil {
			t.Errorf("%s: %v", ln, err)
		}
	}
}

func (r *datcRun) game() *diplomacy.Game {
	if r.g == nil {
		g, err := diplomacy.NewGameAt(r.m, r.pos, diplomacy.Config{})
		if err != nil {
			r.t.Fatalf("set-up: %v", err)
		}
		r.g = g
	}
	return r.g
}

func (r *datcRun) unit(s string) (diplomacy.UnitType, diplomacy.Loc) {
	f := strings.Fields(s)
	if len(f) != 2 {
		r.t.Fatalf("bad unit %q", s)
	}
	t := diplomacy.Army
	if f[0] == "F" {
		t = diplomacy.Fleet
	}
	return t, diplomacy.Loc(f[1])
}

func matches(u diplomacy.Unit, t diplomacy.UnitType, l diplomacy.Loc) bool {
	if u.Type != t {
		return false
	}
	if l.Coast() != "" {
		return u.Loc == l
	}
	return u.Loc.SameProvince(l)
}

func (r *datcRun) step(cmd, rest string) error {
	head, tail, _ := strings.Cut(rest, ":")
	head, tail = strings.TrimSpace(head), strings.TrimSpace(tail)
	switch cmd {
	case "phase":
		p, err := diplomacy.ParsePhase(rest)
		if err != nil {
			return err
		}
		r.pos.Phase = p
	case "clearcenters":
		r.pos.Centers = map[diplomacy.Loc]diplomacy.Power{}
	case "centers":
		p, err := diplomacy.ParsePower(head)
		if err != nil {
			return err
		}
		for c := range strings.SplitSeq(tail, ",") {
			r.pos.Centers[diplomacy.Loc(strings.TrimSpace(c))] = p
		}
	case "units":
		p, err := diplomacy.ParsePower(head)
		if err != nil {
			return err
		}
		for u := range strings.SplitSeq(tail, ",") {
			t, l := r.unit(strings.TrimSpace(u))
			r.pos.Units = append(r.pos.Units, diplomacy.Unit{Type: t, Power: p, Loc: l})
		}
	case "orders":
		p, err := diplomacy.ParsePower(head)
		if err != nil {
			return err
		}
		g := r.game()
		orders := g.Orders(p)
		for s := range strings.SplitSeq(tail, ";") {
			o, err := diplomacy.ParseOrder(r.m, s)
			if err != nil {
				return err
			}
			orders = append(orders, o)
		}
		_ = g.SetOrders(p, orders) // illegal orders are part of the tests
	case "process":
		g := r.game()
		typ := g.Phase().Type
		rec, err := g.Process()
		if err != nil {
			return err
		}
		r.last[typ] = rec
	case "result":
		typ := map[string]diplomacy.PhaseType{"M": diplomacy.Movement, "R": diplomacy.Retreats, "A": diplomacy.Adjustments}[head[:1]]
		t, l := r.unit(strings.TrimSpace(head[1:]))
		return r.checkResult(typ, t, l, tail)
	case "dislodged", "notdislodged":
		u, by, _ := strings.Cut(rest, " by ")
		t, l := r.unit(u)
		if cmd == "notdislodged" {
			for _, d := range r.game().Dislodged() {
				if matches(d.Unit, t, l) {
					return fmt.Errorf("%s is dislodged", d.Unit)
				}
			}
			return nil
		}
		rec := r.last[diplomacy.Movement]
		if rec == nil {
			return fmt.Errorf("no movement phase processed")
		}
		for _, d := range rec.Dislodged {
			if matches(d.Unit, t, l) {
				if string(d.From) != by {
					return fmt.Errorf("dislodged from %s, want %s", d.From, by)
				}
				return nil
			}
		}
		return fmt.Errorf("not dislodged")
	case "owner":
		t, l := r.unit(head)
		var got []diplomacy.Unit
		for _, u := range r.game().Units() {
			if matches(u, t, l) {
				got = append(got, u)
			}
		}
		switch {
		case tail == "none":
			if len(got) > 0 {
				return fmt.Errorf("found %v of %s", got[0], got[0].Power)
			}
		case len(got) == 0:
			return fmt.Errorf("no such unit (units: %v)", r.game().Units())
		case tail != "any" && got[0].Power.String() != tail:
			return fmt.Errorf("owned by %s", got[0].Power)
		}
	default:
		return fmt.Errorf("unknown command %q", cmd)
	}
	return nil
}

func (r *datcRun) checkResult(typ diplomacy.PhaseType, t diplomacy.UnitType, l diplomacy.Loc, want string) error {
	rec := r.last[typ]
	if rec == nil {
		return fmt.Errorf("no %v phase processed", typ)
	}
	var found []diplomacy.OrderResult
	for _, res := range rec.Results {
		if matches(res.Unit, t, l) {
			found = append(found, res)
		}
	}
	if len(found) == 0 && l.Coast() != "" {
		// An order naming the wrong coast of its own unit (6.B.10, 6.B.11).
		for _, res := range rec.Results {
			if matches(res.Unit, t, l.Province()) {
				found = append(found, res)
			}
		}
	}
	if codes := strings.Fields(want); len(codes) > 1 {
		// One expected result per order given for the unit (6.I.7).
		for _, c := range codes {
			if err := r.checkResult(typ, t, l, c); err != nil {
				return err
			}
		}
		if len(found) != len(codes) {
			return fmt.Errorf("want %d results, got %s", len(codes), describeResults(found))
		}
		return nil
	}
	flags := map[string]diplomacy.Result{"bounce": diplomacy.Bounce, "cut": diplomacy.Cut, "void": diplomacy.Void,
		"no_convoy": diplomacy.NoConvoy, "dislodged": diplomacy.Dislodged, "disrupted": diplomacy.Disrupted, "disband": diplomacy.Disbanded}
	describe := func() string { return describeResults(found) }
	switch want {
	case "ok":
		if typ == diplomacy.Movement && len(found) == 1 && found[0].Result == 0 {
			return nil
		}
		for _, f := range found {
			if typ != diplomacy.Movement && f.Result&^diplomacy.Disbanded == 0 && (typ == diplomacy.Adjustments || f.Result == 0) {
				return nil
			}
		}
		if typ == diplomacy.Retreats && len(found) == 0 {
			return nil
		}
		return fmt.Errorf("want ok, got %s", describe())
	case "void":
		if len(found) == 0 && typ != diplomacy.Movement {
			return nil
		}
		for _, f := range found {
			if f.Result.Has(diplomacy.Void) || f.Given == nil {
				return nil
			}
		}
		return fmt.Errorf("want void, got %s", describe())
	default:
		flag, ok := flags[want]
		if !ok {
			return fmt.Errorf("unknown result %q", want)
		}
		for _, f := range found {
			if f.Result.Has(flag) {
				return nil
			}
		}
		return fmt.Errorf("want %s, got %s", want, describe())
	}
}

func describeResults(found []diplomacy.OrderResult) string {
	var s []string
	for _, f := range found {
		s = append(s, fmt.Sprintf("%v: %v %q", f.Order, f.Result, f.Illegal))
	}
	return strings.Join(s, "; ")
}

// TestDATCComplete checks that the table holds every case of DATC 3.0
// sections 6.A to 6.J, numbered without gaps.
func TestDATCComplete(t *testing.T) {
	want := map[string]int{"6.A": 12, "6.B": 15, "6.C": 9, "6.D": 34, "6.E": 15, "6.F": 25, "6.G": 20, "6.H": 16, "6.I": 7, "6.J": 11}
	seen := map[string]bool{}
	for _, c := range datcCases {
		id, _, _ := strings.Cut(c.id, "/")
		seen[id] = true
	}
	for sec, n := range want {
		for i := 1; i <= n; i++ {
			id := fmt.Sprintf("%s.%d", sec, i)
			if !seen[id] {
				t.Errorf("case %s missing", id)
			}
			delete(seen, id)
		}
	}
	for id := range seen {
		t.Errorf("case %s is not in DATC 3.0", id)
	}
}
