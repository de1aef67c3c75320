package diplomacy

import (
	"fmt"
	"strconv"
)

// Season is the part of a game year.
type Season uint8

// The seasons.
const (
	Spring Season = iota + 1
	Fall
	Winter
)

// PhaseType is what a phase is for.
type PhaseType uint8

// The phase types.
const (
	// Movement phases (spring and fall) take hold, move, support and convoy
	// orders.
	Movement PhaseType = iota + 1
	// Retreats phases follow a movement phase that dislodged units.
	Retreats
	// Adjustments phases (winter) take builds, disbands and waives.
	Adjustments
)

// Phase names a phase of the game; its String is the reference's short
// name: "S1901M", "F1901M", "F1901R", "W1901A".
type Phase struct {
	Season Season    `json:"season"`
	Year   int       `json:"year"`
	Type   PhaseType `json:"type"`
}

// FirstPhase is Spring 1901 Movement.
var FirstPhase = Phase{Season: Spring, Year: 1901, Type: Movement}

// String returns the short name ("S1901M").
func (p Phase) String() string {
	s := map[Season]string{Spring: "S", Fall: "F", Winter: "W"}[p.Season]
	t := map[PhaseType]string{Movement: "M", Retreats: "R", Adjustments: "A"}[p.Type]
	if s == "" || t == "" {
		return "?"
	}
	return s + strconv.Itoa(p.Year) + t
}

// Valid reports whether the phase exists in the game's calendar: spring
// and fall have movement and retreats, winter has adjustments.
func (p Phase) Valid() bool {
	switch p.Season {
	case Spring, Fall:
		return p.Type == Movement || p.Type == Retreats
	case Winter:
		return p.Type == Adjustments
	}
	return false
}

// ParsePhase reads a short phase name such as "S1901M".
func ParsePhase(s string) (Phase, error) {
	if len(s) < 3 || len(s) > 8 {
		return Phase{}, fmt.Errorf("%w: phase %q", ErrSyntax, clip(s))
	}
	var p Phase
	switch s[0] {
	case 'S', 's':
		p.Season = Spring
	case 'F', 'f':
		p.Season = Fall
	case 'W', 'w':
		p.Season = Winter
	}
	switch s[len(s)-1] {
	case 'M', 'm':
		p.Type = Movement
	case 'R', 'r':
		p.Type = Retreats
	case 'A', 'a':
		p.Type = Adjustments
	}
	y, err := strconv.Atoi(s[1 : len(s)-1])
	if err != nil || y < 1 || y > 99999 {
		return Phase{}, fmt.Errorf("%w: phase %q", ErrSyntax, clip(s))
	}
	p.Year = y
	if !p.Valid() {
		return Phase{}, fmt.Errorf("%w: phase %q", ErrSyntax, clip(s))
	}
	return p, nil
}

// MarshalText encodes the short name.
func (p Phase) MarshalText() ([]byte, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("%w: phase %+v", ErrState, p)
	}
	return []byte(p.String()), nil
}

// UnmarshalText decodes a short name.
func (p *Phase) UnmarshalText(b []byte) error {
	v, err := ParsePhase(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// next returns the phase after p in the calendar, without skipping.
func (p Phase) next() Phase {
	switch {
	case p.Type == Movement:
		return Phase{p.Season, p.Year, Retreats}
	case p.Season == Spring:
		return Phase{Fall, p.Year, Movement}
	case p.Season == Fall:
		return Phase{Winter, p.Year, Adjustments}
	default:
		return Phase{Spring, p.Year + 1, Movement}
	}
}
