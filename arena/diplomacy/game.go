package diplomacy

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// WinCenters is the number of supply centres that wins the standard game.
const WinCenters = 18

// Config configures a Game. The zero value is the standard game with no
// phase limit.
type Config struct {
	// MaxPhases ends the game after this many processed phases (movement,
	// retreats and adjustments alike; skipped phases do not count), as
	// the reference's max_phases does. 0 means no limit.
	MaxPhases int `yaml:"max_phases" json:"max_phases,omitempty"`
}

// Position is the state of the board at the start of a phase.
type Position struct {
	Phase Phase `json:"phase"`
	// Units are the units on the board, sorted by location (in a retreats
	// phase: without the dislodged ones).
	Units []Unit `json:"units"`
	// Centers maps each owned supply centre to its owner.
	Centers map[Loc]Power `json:"centers"`
	// Dislodged are the units waiting to retreat (retreats phases only).
	Dislodged []DislodgedUnit `json:"dislodged,omitempty"`
}

// Clone returns a deep copy.
func (p Position) Clone() Position {
	p.Units = slices.Clone(p.Units)
	p.Centers = maps.Clone(p.Centers)
	p.Dislodged = slices.Clone(p.Dislodged)
	for i := range p.Dislodged {
		p.Dislodged[i].Retreats = slices.Clone(p.Dislodged[i].Retreats)
	}
	return p
}

// PhaseRecord is one processed phase of a game's history.
type PhaseRecord struct {
	// Position is the board when the phase was played.
	Position Position `json:"position"`
	// Orders are the orders each power submitted.
	Orders map[Power][]Order `json:"orders"`
	// Results are the adjudicated orders.
	Results []OrderResult `json:"results"`
	// Dislodged are the units dislodged (movement phases).
	Dislodged []DislodgedUnit `json:"dislodged,omitempty"`
}

// Game is a game of Diplomacy as a deterministic state machine: submit
// each power's orders for the current phase, then Process. It never
// draws a random number. A Game is not safe for concurrent use.
type Game struct {
	m         *Map
	cfg       Config
	pos       Position
	orders    map[Power][]Order
	history   []PhaseRecord
	processed int
	done      bool
	winner    Power
}

// NewGame starts a standard game in Spring 1901 with the starting units
// and every power owning its home centres.
func NewGame(cfg Config) *Game {
	g := &Game{m: standard.m, cfg: cfg, pos: standard.pos.Clone(), orders: map[Power][]Order{}}
	g.checkVictory()
	return g
}

// NewGameAt starts a game from any position of map m (a test set-up, a
// saved game). The position is checked: units on legal, distinct
// locations, centres that are supply centres, dislodged units only in a
// retreats phase.
func NewGameAt(m *Map, pos Position, cfg Config) (*Game, error) {
	pos = pos.Clone()
	if !pos.Phase.Valid() {
		return nil, illegalState("phase %v", pos.Phase)
	}
	if err := m.checkUnits(pos.Units); err != nil {
		return nil, err
	}
	if pos.Centers == nil {
		pos.Centers = map[Loc]Power{}
	}
	for c, p := range pos.Centers {
		if pr, ok := m.Province(c); !ok || !pr.SupplyCenter || c.Coast() != "" || !p.Valid() {
			return nil, illegalState("centre %s owned by %v", c, p)
		}
	}
	if len(pos.Dislodged) > 0 && pos.Phase.Type != Retreats {
		return nil, illegalState("dislodged units outside a retreats phase")
	}
	sortUnits(pos.Units)
	g := &Game{m: m, cfg: cfg, pos: pos, orders: map[Power][]Order{}}
	g.checkVictory()
	return g, nil
}

func sortUnits(us []Unit) {
	slices.SortFunc(us, func(x, y Unit) int { return strings.Compare(string(x.Loc), string(y.Loc)) })
}

// Map returns the game's map.
func (g *Game) Map() *Map { return g.m }

// Phase returns the current phase.
func (g *Game) Phase() Phase { return g.pos.Phase }

// Position returns a copy of the current board.
func (g *Game) Position() Position { return g.pos.Clone() }

// Units returns the units on the board, sorted by location.
func (g *Game) Units() []Unit { return slices.Clone(g.pos.Units) }

// Dislodged returns the units waiting to retreat.
func (g *Game) Dislodged() []DislodgedUnit { return g.pos.Clone().Dislodged }

// CenterOwner returns the owner of a supply centre (NoPower if none).
func (g *Game) CenterOwner(c Loc) Power { return g.pos.Centers[c.Province()] }

// Centers returns a power's supply centres, sorted.
func (g *Game) Centers(p Power) []Loc {
	var out []Loc
	for c, o := range g.pos.Centers {
		if o == p {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// Eliminated reports whether a power has no unit and no supply centre.
func (g *Game) Eliminated(p Power) bool {
	if len(g.Centers(p)) > 0 {
		return false
	}
	for _, u := range g.pos.Units {
		if u.Power == p {
			return false
		}
	}
	for _, d := range g.pos.Dislodged {
		if d.Unit.Power == p {
			return false
		}
	}
	return true
}

// Score is the reference's reward of a power: 0 if eliminated, else
// min(centres/18, 1).
func (g *Game) Score(p Power) float64 {
	if g.Eliminated(p) {
		return 0
	}
	return min(float64(len(g.Centers(p)))/WinCenters, 1)
}

// Done reports whether the game is over: a power owns 18 centres, or
// Config.MaxPhases phases were processed.
func (g *Game) Done() bool { return g.done }

// Winner returns the power that owns 18 or more centres, or NoPower.
func (g *Game) Winner() Power { return g.winner }

// History returns the processed phases, oldest first.
func (g *Game) History() []PhaseRecord { return slices.Clone(g.history) }

// Orders returns the orders submitted so far for the current phase.
func (g *Game) Orders(p Power) []Order { return slices.Clone(g.orders[p]) }

// SetOrders replaces power p's orders for the current phase. Every order
// is kept (an illegal one is void at adjudication, and its unit holds or
// is disbanded), but the returned error lists the illegal ones, wrapping
// ErrIllegal, so that a caller can reject them up front. It fails with
// ErrState once the game is over.
func (g *Game) SetOrders(p Power, orders []Order) error {
	if g.done {
		return fmt.Errorf("%w: the game is over", ErrState)
	}
	if !p.Valid() {
		return fmt.Errorf("%w: unknown power %v", ErrState, p)
	}
	g.orders[p] = slices.Clone(orders)
	var errs []error
	for _, o := range orders {
		if err := g.Check(p, o); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", o, err))
		}
	}
	return errors.Join(errs...)
}

// Check reports whether power p may give order o in the current phase
// (nil, or an error wrapping ErrIllegal that says why).
func (g *Game) Check(p Power, o Order) error {
	switch g.pos.Phase.Type {
	case Movement:
		_, err := g.m.checkMovement(newBoard(g.pos.Units), p, o)
		return err
	case Retreats:
		for _, d := range g.pos.Dislodged {
			if d.Unit.Loc.SameProvince(o.Loc) {
				_, err := g.m.checkRetreat(d, p, o)
				return err
			}
		}
		return illegal("no dislodged unit in %s", o.Loc.Province())
	default:
		r, err := g.m.ResolveAdjustments(g.pos.Units, g.pos.Centers, map[Power][]Order{p: {o}})
		if err != nil {
			return err
		}
		if len(r.Results) > 0 && r.Results[0].Result&Void != 0 {
			return fmt.Errorf("%w: %s", ErrIllegal, r.Results[0].Illegal)
		}
		return nil
	}
}

// Process adjudicates the current phase with the submitted orders, moves
// to the next phase that needs orders (an empty retreats phase and an
// adjustments phase with nothing to adjust are skipped), updates supply
// centre ownership after each fall, and ends the game on a win or the
// phase limit. It returns the record of the processed phase.
func (g *Game) Process() (*PhaseRecord, error) {
	if g.done {
		return nil, fmt.Errorf("%w: the game is over", ErrState)
	}
	rec := PhaseRecord{Position: g.pos.Clone(), Orders: map[Power][]Order{}}
	for p, os := range g.orders {
		rec.Orders[p] = slices.Clone(os)
	}
	switch g.pos.Phase.Type {
	case Movement:
		r, err := g.m.Resolve(g.pos.Units, g.orders)
		if err != nil {
			return nil, err
		}
		rec.Results, rec.Dislodged = r.Results, r.Dislodged
		g.pos.Units, g.pos.Dislodged = r.Units, nil
		// A dislodged unit with nowhere to go is disbanded at once, as in
		// the reference library; only the others wait for a retreat.
		for _, d := range r.Dislodged {
			if len(d.Retreats) > 0 {
				g.pos.Dislodged = append(g.pos.Dislodged, d)
				continue
			}
			for i := range rec.Results {
				if rec.Results[i].Unit == d.Unit {
					rec.Results[i].Result |= Disbanded
				}
			}
		}
	case Retreats:
		r, err := g.m.ResolveRetreats(g.pos.Units, g.pos.Dislodged, g.orders)
		if err != nil {
			return nil, err
		}
		rec.Results = r.Results
		g.pos.Units, g.pos.Dislodged = r.Units, nil
	case Adjustments:
		r, err := g.m.ResolveAdjustments(g.pos.Units, g.pos.Centers, g.orders)
		if err != nil {
			return nil, err
		}
		rec.Results = r.Results
		g.pos.Units = r.Units
	}
	g.history = append(g.history, rec)
	g.processed++
	g.orders = map[Power][]Order{}
	g.advance()
	if g.cfg.MaxPhases > 0 && g.processed >= g.cfg.MaxPhases {
		g.done = true
	}
	return &g.history[len(g.history)-1], nil
}

// advance moves to the next phase that needs orders.
func (g *Game) advance() {
	for {
		prev := g.pos.Phase
		g.pos.Phase = prev.next()
		if prev.Season == Fall && g.pos.Phase.Season == Winter {
			g.captureCenters()
			if g.checkVictory() {
				return
			}
		}
		if g.needsOrders() {
			return
		}
	}
}

// needsOrders reports whether the current phase has anything to decide.
func (g *Game) needsOrders() bool {
	switch g.pos.Phase.Type {
	case Retreats:
		return len(g.pos.Dislodged) > 0
	case Adjustments:
		for _, p := range Powers() {
			n := AdjustmentCount(p, g.pos.Units, g.pos.Centers)
			if n < 0 || (n > 0 && len(g.m.BuildSites(p, g.pos.Units, g.pos.Centers)) > 0) {
				return true
			}
		}
		return false
	}
	return true
}

// captureCenters gives each occupied supply centre to the occupier.
func (g *Game) captureCenters() {
	for _, u := range g.pos.Units {
		prov := u.Loc.Province()
		if p, _ := g.m.Province(prov); p.SupplyCenter {
			g.pos.Centers[prov] = u.Power
		}
	}
}

// checkVictory ends the game when a power owns WinCenters centres.
func (g *Game) checkVictory() bool {
	for _, p := range Powers() {
		if len(g.Centers(p)) >= WinCenters {
			g.done, g.winner = true, p
			return true
		}
	}
	return false
}

// Replay rebuilds a game from its history (as History returns it, for
// example decoded from a saved log): it starts at the first record's
// position, submits each record's orders and processes, and checks that
// each phase starts where the log says it did. A log that does not
// replay exactly (edited, truncated inside a phase, from other rules)
// is refused with ErrState; nothing is guessed. The returned game is at
// the phase after the last record, ready for more orders.
func Replay(m *Map, cfg Config, history []PhaseRecord) (*Game, error) {
	if len(history) == 0 {
		return nil, fmt.Errorf("%w: empty history", ErrState)
	}
	g, err := NewGameAt(m, history[0].Position, cfg)
	if err != nil {
		return nil, err
	}
	for i, rec := range history {
		if !samePosition(g.pos, rec.Position) {
			return nil, fmt.Errorf("%w: phase %d (%s) does not start where the log says", ErrState, i, rec.Position.Phase)
		}
		if g.done {
			return nil, fmt.Errorf("%w: the log goes on after the game ended", ErrState)
		}
		for _, p := range Powers() {
			g.orders[p] = slices.Clone(rec.Orders[p])
		}
		if _, err := g.Process(); err != nil {
			return nil, err
		}
	}
	return g, nil
}

func samePosition(a, b Position) bool {
	if a.Phase != b.Phase || !slices.Equal(a.Units, b.Units) || !maps.Equal(a.Centers, b.Centers) || len(a.Dislodged) != len(b.Dislodged) {
		return false
	}
	for i := range a.Dislodged {
		if a.Dislodged[i].Unit != b.Dislodged[i].Unit || a.Dislodged[i].From != b.Dislodged[i].From ||
			!slices.Equal(a.Dislodged[i].Retreats, b.Dislodged[i].Retreats) {
			return false
		}
	}
	return true
}
