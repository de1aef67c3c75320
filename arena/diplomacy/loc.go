package diplomacy

import "strings"

// Loc is a location of the map in the reference's spelling: a province's
// three-letter code in upper case ("PAR"), or a province and one of its
// coasts ("SPA/NC", "STP/SC", "BUL/EC"). Fleets in a province with coasts
// stand on a coast; armies stand in the province.
type Loc string

// Province returns the location without its coast ("SPA/NC" → "SPA").
func (l Loc) Province() Loc {
	if i := strings.IndexByte(string(l), '/'); i >= 0 {
		return l[:i]
	}
	return l
}

// Coast returns the coast part ("NC", "SC", "EC") or "".
func (l Loc) Coast() string {
	if i := strings.IndexByte(string(l), '/'); i >= 0 {
		return string(l[i+1:])
	}
	return ""
}

// SameProvince reports whether two locations lie in one province.
func (l Loc) SameProvince(o Loc) bool { return l.Province() == o.Province() }

// UnitType is an army or a fleet. The zero value is no unit.
type UnitType uint8

// The unit types.
const (
	Army UnitType = iota + 1
	Fleet
)

// String returns "A" or "F" (or "?" for the zero value).
func (t UnitType) String() string {
	switch t {
	case Army:
		return "A"
	case Fleet:
		return "F"
	}
	return "?"
}

// Unit is a power's army or fleet at a location.
type Unit struct {
	Type  UnitType `json:"type"`
	Power Power    `json:"power"`
	Loc   Loc      `json:"loc"`
}

// String returns the reference's spelling, "A PAR" or "F STP/SC".
func (u Unit) String() string { return u.Type.String() + " " + string(u.Loc) }
