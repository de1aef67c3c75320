package dipgame

import (
	"cmp"
	"context"
	"encoding/json"
	"hash/fnv"
	"math/rand/v2"
	"slices"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/llm"
)

// Random is a baseline player: one uniformly random possible order per
// orderable location, and no negotiation messages. It reads what is asked
// from this package's prompts (ReadQuestion); it is not a general chat
// model. Its answer is a pure function of Seed, the request and the
// request's ChatOptions.Seed, so it is safe for concurrent use, may play
// several powers, and replays a seeded game exactly.
type Random struct {
	// Seed varies the choices.
	Seed uint64
}

// Greedy is a baseline player that expands: each unit moves towards the
// nearest supply centre it does not own (taking neutral and enemy centres,
// staying on one in the fall to capture it), no two of its units move to
// one province, and units that have nothing better to do support the
// power's attacks on occupied or contested provinces. It retreats towards
// centres, builds on free home centres and disbands the units farthest
// from any centre to take. It sends no negotiation messages. Like Random
// it is deterministic and safe for concurrent use.
type Greedy struct{}

var (
	_ llm.ChatModel = Random{}
	_ llm.ChatModel = Greedy{}
)

// Chat answers the request.
func (r Random) Chat(ctx context.Context, messages []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
	if err := ctx.Err(); err != nil {
		return llm.Completion{}, err
	}
	q, err := ReadQuestion(diplomacy.Standard(), messages)
	if err != nil || q.Negotiation {
		return completion("[]"), nil
	}
	rng := requestRand(r.Seed, messages, opts)
	var orders []string
	for _, loc := range sortedLocs(q.Possible) {
		if os := q.Possible[loc]; len(os) > 0 {
			orders = append(orders, os[rng.IntN(len(os))].String())
		}
	}
	return ordersCompletion(orders), nil
}

// Chat answers the request.
func (Greedy) Chat(ctx context.Context, messages []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
	if err := ctx.Err(); err != nil {
		return llm.Completion{}, err
	}
	m := diplomacy.Standard()
	q, err := ReadQuestion(m, messages)
	if err != nil || q.Negotiation {
		return completion("[]"), nil
	}
	return ordersCompletion(GreedyOrders(m, q)), nil
}

func requestRand(seed uint64, messages []agentevolver.Message, opts llm.ChatOptions) *rand.Rand {
	h := fnv.New64a()
	for _, msg := range messages {
		h.Write([]byte(msg.Role))
		h.Write([]byte{0})
		h.Write([]byte(msg.Content))
		h.Write([]byte{0})
	}
	var s2 uint64
	if opts.Seed != nil {
		s2 = uint64(*opts.Seed)
	}
	return rand.New(rand.NewPCG(seed^h.Sum64(), s2))
}

func completion(text string) llm.Completion {
	return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: text}, FinishReason: "stop"}
}

func ordersCompletion(orders []string) llm.Completion {
	if orders == nil {
		orders = []string{}
	}
	b, _ := json.Marshal(map[string][]string{"orders": orders})
	return completion("PARSABLE OUTPUT: " + string(b))
}

func sortedLocs[V any](m map[diplomacy.Loc]V) []diplomacy.Loc {
	out := make([]diplomacy.Loc, 0, len(m))
	for l := range m {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// GreedyOrders are Greedy's orders for question q.
func GreedyOrders(m *diplomacy.Map, q Question) []string {
	gp := newGreedyPlan(m, q)
	switch q.Phase.Type {
	case diplomacy.Movement:
		return gp.movement()
	case diplomacy.Retreats:
		return gp.retreats()
	}
	return gp.adjustments()
}

type greedyPlan struct {
	m    *diplomacy.Map
	q    Question
	dist map[diplomacy.UnitType]map[diplomacy.Loc]int // distance to the nearest centre to take
	occ  map[diplomacy.Loc]diplomacy.Unit             // province -> unit
}

func newGreedyPlan(m *diplomacy.Map, q Question) *greedyPlan {
	gp := &greedyPlan{m: m, q: q, dist: map[diplomacy.UnitType]map[diplomacy.Loc]int{}, occ: map[diplomacy.Loc]diplomacy.Unit{}}
	for _, u := range q.Units {
		gp.occ[u.Loc.Province()] = u
	}
	for _, t := range []diplomacy.UnitType{diplomacy.Army, diplomacy.Fleet} {
		d := map[diplomacy.Loc]int{}
		var queue []diplomacy.Loc
		for _, c := range m.SupplyCenters() {
			if !gp.wanted(c) {
				continue
			}
			locs := []diplomacy.Loc{c}
			if t == diplomacy.Fleet {
				locs = m.FleetLocs(c)
			}
			for _, l := range locs {
				if m.CanHold(t, l) {
					d[l] = 0
					queue = append(queue, l)
				}
			}
		}
		for len(queue) > 0 {
			l := queue[0]
			queue = queue[1:]
			for _, n := range m.Neighbours(t, l) {
				if _, seen := d[n]; !seen {
					d[n] = d[l] + 1
					queue = append(queue, n)
				}
			}
		}
		gp.dist[t] = d
	}
	return gp
}

// wanted reports whether c is a supply centre the power does not own.
func (gp *greedyPlan) wanted(c diplomacy.Loc) bool {
	p, ok := gp.m.Province(c)
	return ok && p.SupplyCenter && gp.q.Centers[c.Province()] != gp.q.Power
}

// distance is how far a unit of type t at l is from a centre to take (99
// when none is reachable).
func (gp *greedyPlan) distance(t diplomacy.UnitType, l diplomacy.Loc) int {
	if d, ok := gp.dist[t][l]; ok {
		return d
	}
	return 99
}

func (gp *greedyPlan) enemyAt(prov diplomacy.Loc) bool {
	u, ok := gp.occ[prov]
	return ok && u.Power != gp.q.Power
}

// contested reports whether an enemy unit could move into prov.
func (gp *greedyPlan) contested(prov diplomacy.Loc) bool {
	for _, u := range gp.q.Units {
		if u.Power == gp.q.Power {
			continue
		}
		for _, n := range gp.m.Neighbours(u.Type, u.Loc) {
			if n.Province() == prov {
				return true
			}
		}
	}
	return false
}

// value scores the unit of type t ending the phase at dest.
func (gp *greedyPlan) value(t diplomacy.UnitType, dest diplomacy.Loc, moving bool) float64 {
	prov := dest.Province()
	if gp.wanted(prov) {
		switch {
		case !moving && gp.q.Phase.Season == diplomacy.Fall:
			return 12 // stay to take it
		case !moving:
			return 4
		case gp.enemyAt(prov):
			return 7
		}
		return 10
	}
	v := 5 - float64(gp.distance(t, dest))
	if !moving {
		v -= 0.5
	}
	return v
}

func (gp *greedyPlan) movement() []string {
	type cand struct {
		o diplomacy.Order
		v float64
	}
	var cands []cand
	for _, loc := range sortedLocs(gp.q.Possible) {
		for _, o := range gp.q.Possible[loc] {
			switch {
			case o.Type == diplomacy.Hold:
				cands = append(cands, cand{o, gp.value(o.Unit, o.Loc, false)})
			case o.Type == diplomacy.Move && !o.Via:
				if u, ok := gp.occ[o.Dest.Province()]; ok && u.Power == gp.q.Power {
					continue // never bounce one's own unit
				}
				cands = append(cands, cand{o, gp.value(o.Unit, o.Dest, true)})
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(b.v, a.v) })
	chosen := map[diplomacy.Loc]cand{}
	target := map[diplomacy.Loc]bool{}
	for _, c := range cands {
		from := c.o.Loc.Province()
		if _, done := chosen[from]; done {
			continue
		}
		dest := from
		if c.o.Type == diplomacy.Move {
			dest = c.o.Dest.Province()
		}
		if target[dest] {
			continue
		}
		chosen[from], target[dest] = c, true
	}
	// Supports: the best attacks on occupied or contested provinces get a
	// supporter whose own order is worth less than the support.
	const supportValue = 6.5
	var attacks []cand
	for _, c := range chosen {
		if c.o.Type == diplomacy.Move && (gp.enemyAt(c.o.Dest.Province()) || gp.contested(c.o.Dest.Province())) {
			attacks = append(attacks, c)
		}
	}
	slices.SortFunc(attacks, func(a, b cand) int {
		return cmp.Or(cmp.Compare(b.v, a.v), cmp.Compare(a.o.Loc, b.o.Loc))
	})
	supporting := map[diplomacy.Loc]bool{}
	for _, a := range attacks {
		if supporting[a.o.Loc.Province()] {
			continue // the attacker now supports
		}
		best := diplomacy.Loc("")
		var bestOrder diplomacy.Order
		for _, loc := range sortedLocs(gp.q.Possible) {
			if loc == a.o.Loc.Province() || supporting[loc] || chosen[loc].v >= supportValue {
				continue
			}
			for _, o := range gp.q.Possible[loc] {
				if o.Type == diplomacy.Support && o.AuxLoc.Province() == a.o.Loc.Province() && o.Dest.Province() == a.o.Dest.Province() {
					if best == "" || chosen[loc].v < chosen[best].v {
						best, bestOrder = loc, o
					}
				}
			}
		}
		if best != "" {
			chosen[best] = cand{bestOrder, supportValue}
			supporting[best] = true
		}
	}
	var out []string
	for _, loc := range sortedLocs(chosen) {
		out = append(out, chosen[loc].o.String())
	}
	return out
}

func (gp *greedyPlan) retreats() []string {
	var out []string
	for _, loc := range sortedLocs(gp.q.Possible) {
		var best *diplomacy.Order
		bestV := -1e9
		for _, o := range gp.q.Possible[loc] {
			v := -50.0 // disband
			if o.Type == diplomacy.Retreat {
				v = gp.value(o.Unit, o.Dest, true)
			}
			if v > bestV {
				best, bestV = &o, v
			}
		}
		if best != nil {
			out = append(out, best.String())
		}
	}
	return out
}

func (gp *greedyPlan) adjustments() []string {
	n := gp.q.adjustment()
	var out []string
	if n > 0 {
		armies, fleets := 0, 0
		for _, u := range gp.q.Units {
			if u.Power == gp.q.Power {
				if u.Type == diplomacy.Fleet {
					fleets++
				} else {
					armies++
				}
			}
		}
		for _, loc := range sortedLocs(gp.q.Possible) {
			if n == 0 {
				break
			}
			var army, fleet *diplomacy.Order
			for _, o := range gp.q.Possible[loc] {
				if o.Type != diplomacy.Build {
					continue
				}
				if o.Unit == diplomacy.Army {
					army = &o
				} else if fleet == nil || gp.distance(diplomacy.Fleet, o.Loc) < gp.distance(diplomacy.Fleet, fleet.Loc) {
					fleet = &o
				}
			}
			pick := army
			if pick == nil || (fleet != nil && 2*fleets < armies) {
				pick = fleet
			}
			if pick == nil {
				continue
			}
			if pick.Unit == diplomacy.Fleet {
				fleets++
			} else {
				armies++
			}
			out = append(out, pick.String())
			n--
		}
		return out
	}
	type far struct {
		o diplomacy.Order
		d int
	}
	var ds []far
	for _, loc := range sortedLocs(gp.q.Possible) {
		for _, o := range gp.q.Possible[loc] {
			if o.Type == diplomacy.Disband {
				ds = append(ds, far{o, gp.distance(o.Unit, o.Loc)})
			}
		}
	}
	slices.SortStableFunc(ds, func(a, b far) int { return cmp.Compare(b.d, a.d) })
	for i := 0; i < -n && i < len(ds); i++ {
		out = append(out, ds[i].o.String())
	}
	return out
}
