package diplomacy

import "strings"

// Result is the outcome of an order as a set of flags; zero is success
// (the reference library's empty result list). The flags are the
// reference's result codes.
type Result uint16

// The result flags.
const (
	// Bounce: a move (or retreat) failed against another unit.
	Bounce Result = 1 << iota
	// Cut: a support was cut.
	Cut
	// Void: the order was illegal, or a support or convoy did not match
	// what the other unit did; it had no effect.
	Void
	// NoConvoy: a move by convoy found no unbroken chain of convoying
	// fleets.
	NoConvoy
	// Dislodged: the unit was dislodged.
	Dislodged
	// Disrupted: a convoying fleet was dislodged, breaking the convoy.
	Disrupted
	// Disbanded: the unit was disbanded (a retreat that failed or was not
	// ordered, or a civil-disorder disband).
	Disbanded
)

var resultNames = []string{"bounce", "cut", "void", "no convoy", "dislodged", "disrupted", "disband"}

// Has reports whether all flags of f are set.
func (r Result) Has(f Result) bool { return r&f == f }

// Codes returns the reference's result codes of r, in a fixed order
// ("bounce", "cut", "void", "no convoy", "dislodged", "disrupted",
// "disband"); nil for success.
func (r Result) Codes() []string {
	var out []string
	for i, n := range resultNames {
		if r&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// String returns the codes joined by ", ", or "ok".
func (r Result) String() string {
	if r == 0 {
		return "ok"
	}
	return strings.Join(r.Codes(), ", ")
}
