package diplomacy

import (
	"bufio"
	_ "embed"
	"fmt"
	"slices"
	"strings"
)

// Kind is a province's terrain.
type Kind uint8

// The kinds of province.
const (
	// Land provinces hold armies only.
	Land Kind = iota + 1
	// Coast provinces hold armies and fleets.
	Coast
	// Water provinces hold fleets only.
	Water
)

// String returns "land", "coast" or "water".
func (k Kind) String() string {
	switch k {
	case Land:
		return "land"
	case Coast:
		return "coast"
	case Water:
		return "water"
	}
	return "?"
}

// Province describes one province of the map.
type Province struct {
	// Code is the three-letter upper-case code ("SPA").
	Code Loc
	// Name is the English name ("Spain").
	Name string
	// Kind is the terrain.
	Kind Kind
	// SupplyCenter reports whether the province is a supply centre.
	SupplyCenter bool
	// Home is the power whose home centre this is, or NoPower.
	Home Power
	// Coasts are the coast locations of a province with several coasts
	// ("SPA/NC", "SPA/SC"), nil for the others.
	Coasts []Loc
}

// Map is a Diplomacy board: provinces, coasts, adjacencies per unit type,
// supply centres, home centres and the starting units. A Map is immutable
// and safe for concurrent use. Standard returns the standard map.
type Map struct {
	provinces []Province
	byCode    map[Loc]int
	army      map[Loc][]Loc // province -> provinces an army can move to
	fleet     map[Loc][]Loc // fleet location -> fleet locations
	homes     [NumPowers + 1][]Loc
	start     []Unit
	names     map[string]Loc // lower-case full names -> province code
}

//go:embed standard_map.txt
var standardMapText string

// standard is the standard map, parsed and validated from the embedded
// data when the package is initialised, together with a game at its
// first phase that NewGame copies.
//
// The data are compiled into the binary, so whether they are valid is
// decided at build time, never by run-time input. Checking them here,
// once, means Standard and NewGame have no error path that could fire in
// the middle of a game or a request: a defective edit of
// standard_map.txt stops every program (and every test binary, see
// TestStandardMapCounts) at start-up with the parse error, which is the only
// place this package panics.
var standard = mustStandard()

func mustStandard() *Game {
	m, err := ParseMap(standardMapText)
	if err != nil {
		panic(fmt.Sprintf("diplomacy: the embedded standard map is invalid: %v", err))
	}
	pos := Position{Phase: FirstPhase, Units: m.StartingUnits(), Centers: map[Loc]Power{}}
	for _, p := range Powers() {
		for _, h := range m.HomeCenters(p) {
			pos.Centers[h] = p
		}
	}
	g, err := NewGameAt(m, pos, Config{})
	if err != nil {
		panic(fmt.Sprintf("diplomacy: the embedded standard map's start is invalid: %v", err))
	}
	return g
}

// Standard returns the standard map (75 provinces, 34 supply centres, the
// seven powers). It is parsed and validated once, from the data file
// embedded in the package, when the package is initialised.
func Standard() *Map { return standard.m }

// Provinces returns the provinces sorted by code. The slice is a copy.
func (m *Map) Provinces() []Province { return slices.Clone(m.provinces) }

// Province returns the province of a location (its coast ignored).
func (m *Map) Province(l Loc) (Province, bool) {
	i, ok := m.byCode[l.Province()]
	if !ok {
		return Province{}, false
	}
	return m.provinces[i], true
}

// SupplyCenters returns the supply centres sorted by code.
func (m *Map) SupplyCenters() []Loc {
	var out []Loc
	for _, p := range m.provinces {
		if p.SupplyCenter {
			out = append(out, p.Code)
		}
	}
	return out
}

// HomeCenters returns a power's home supply centres sorted by code.
func (m *Map) HomeCenters(p Power) []Loc {
	if !p.Valid() {
		return nil
	}
	return slices.Clone(m.homes[p])
}

// StartingUnits returns the units of Spring 1901, by power then location.
func (m *Map) StartingUnits() []Unit { return slices.Clone(m.start) }

// IsLoc reports whether l is a location of the map: a province code or
// one of its coasts.
func (m *Map) IsLoc(l Loc) bool {
	p, ok := m.Province(l)
	if !ok {
		return false
	}
	if !strings.Contains(string(l), "/") {
		return p.Code == l
	}
	return slices.Contains(p.Coasts, l)
}

// CanHold reports whether a unit of type t may stand at l: an army in a
// land or coastal province (never on a coast), a fleet in a water
// province, a coastal province without coasts, or on a coast.
func (m *Map) CanHold(t UnitType, l Loc) bool {
	p, ok := m.Province(l)
	if !ok || !m.IsLoc(l) {
		return false
	}
	switch t {
	case Army:
		return l.Coast() == "" && p.Kind != Water
	case Fleet:
		if p.Kind == Land {
			return false
		}
		return (len(p.Coasts) == 0) == (l.Coast() == "")
	}
	return false
}

// Adjacent reports whether a unit of type t at from can move to to. For
// armies coasts are ignored; for fleets both locations must be exact (a
// fleet reaches "SPA/NC", never "SPA").
func (m *Map) Adjacent(t UnitType, from, to Loc) bool {
	switch t {
	case Army:
		return slices.Contains(m.army[from.Province()], to.Province())
	case Fleet:
		return slices.Contains(m.fleet[from], to)
	}
	return false
}

// Neighbours returns the locations a unit of type t at from can move to,
// sorted. The slice is a copy.
func (m *Map) Neighbours(t UnitType, from Loc) []Loc {
	switch t {
	case Army:
		return slices.Clone(m.army[from.Province()])
	case Fleet:
		return slices.Clone(m.fleet[from])
	}
	return nil
}

// FleetLocs returns the fleet locations of a province: its coasts if it
// has several, else the province itself (nil for a land province).
func (m *Map) FleetLocs(prov Loc) []Loc {
	p, ok := m.Province(prov)
	if !ok || p.Kind == Land {
		return nil
	}
	if len(p.Coasts) > 0 {
		return slices.Clone(p.Coasts)
	}
	return []Loc{p.Code}
}

// reachesProvince reports whether a unit of type t at from can move to
// some location of province prov (for fleets: any of its coasts).
func (m *Map) reachesProvince(t UnitType, from, prov Loc) bool {
	if t == Army {
		return m.Adjacent(Army, from, prov)
	}
	for _, l := range m.fleet[from] {
		if l.Province() == prov.Province() {
			return true
		}
	}
	return false
}

// LookupLoc resolves a location written by a person or a model: a code
// with or without coast in any case ("stp/nc", "STP(NC)", "stp nc") or a
// province's English name ("Paris", "north sea"). It returns the
// canonical location.
func (m *Map) LookupLoc(s string) (Loc, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 40 {
		return "", false
	}
	up := strings.ToUpper(s)
	up = strings.NewReplacer("(", "/", ")", "", " ", "/", ".", "").Replace(up)
	up = strings.Trim(strings.ReplaceAll(up, "//", "/"), "/")
	if l := Loc(up); m.IsLoc(l) {
		return l, true
	}
	if l, ok := m.names[strings.ToLower(s)]; ok {
		return l, true
	}
	return "", false
}

// ParseMap reads map data in the format of the embedded standard map
// (standard_map.txt): a [provinces] table, [army] and [fleet] adjacency
// lists and the [units] of the first phase. It validates the result: known
// codes only, symmetric adjacencies, units on legal locations.
func ParseMap(text string) (*Map, error) {
	m := &Map{byCode: map[Loc]int{}, army: map[Loc][]Loc{}, fleet: map[Loc][]Loc{}, names: map[string]Loc{}}
	section := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	lineNo := 0
	type adjLine struct {
		line     int
		from, to string
	}
	var armyLines, fleetLines []adjLine
	var unitLines []adjLine
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = line[1 : len(line)-1]
			continue
		}
		switch section {
		case "provinces":
			f := strings.Fields(line)
			if len(f) < 6 {
				return nil, fmt.Errorf("%w: line %d: want code kind sc home coasts name", ErrMap, lineNo)
			}
			p := Province{Code: Loc(f[0]), Name: strings.Join(f[5:], " ")}
			switch f[1] {
			case "land":
				p.Kind = Land
			case "coast":
				p.Kind = Coast
			case "water":
				p.Kind = Water
			default:
				return nil, fmt.Errorf("%w: line %d: kind %q", ErrMap, lineNo, f[1])
			}
			p.SupplyCenter = f[2] == "sc"
			if f[3] != "-" {
				h, err := ParsePower(f[3])
				if err != nil {
					return nil, fmt.Errorf("%w: line %d: %w", ErrMap, lineNo, err)
				}
				p.Home = h
			}
			if f[4] != "-" {
				for c := range strings.SplitSeq(f[4], ",") {
					p.Coasts = append(p.Coasts, Loc(f[0]+"/"+c))
				}
			}
			if _, dup := m.byCode[p.Code]; dup || len(p.Code) != 3 || strings.ToUpper(string(p.Code)) != string(p.Code) {
				return nil, fmt.Errorf("%w: line %d: bad or duplicate code %q", ErrMap, lineNo, p.Code)
			}
			if p.Home != NoPower && !p.SupplyCenter {
				return nil, fmt.Errorf("%w: line %d: home centre %s is not a supply centre", ErrMap, lineNo, p.Code)
			}
			m.byCode[p.Code] = len(m.provinces)
			m.provinces = append(m.provinces, p)
			m.names[strings.ToLower(p.Name)] = p.Code
		case "army", "fleet", "units":
			from, to, ok := strings.Cut(line, ":")
			if !ok {
				return nil, fmt.Errorf("%w: line %d: want \"X: ...\"", ErrMap, lineNo)
			}
			l := adjLine{lineNo, strings.TrimSpace(from), to}
			switch section {
			case "army":
				armyLines = append(armyLines, l)
			case "fleet":
				fleetLines = append(fleetLines, l)
			default:
				unitLines = append(unitLines, l)
			}
		default:
			return nil, fmt.Errorf("%w: line %d: outside a section", ErrMap, lineNo)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMap, err)
	}
	slices.SortFunc(m.provinces, func(a, b Province) int { return strings.Compare(string(a.Code), string(b.Code)) })
	for i, p := range m.provinces {
		m.byCode[p.Code] = i
		if p.Home != NoPower {
			m.homes[p.Home] = append(m.homes[p.Home], p.Code)
		}
	}
	for _, l := range armyLines {
		from := Loc(l.from)
		if p, ok := m.Province(from); !ok || from.Coast() != "" || p.Kind == Water {
			return nil, fmt.Errorf("%w: line %d: army adjacency from %q", ErrMap, l.line, l.from)
		}
		for _, t := range strings.Fields(l.to) {
			to := Loc(t)
			if p, ok := m.Province(to); !ok || to.Coast() != "" || p.Kind == Water || to == from {
				return nil, fmt.Errorf("%w: line %d: army adjacency to %q", ErrMap, l.line, t)
			}
			m.army[from] = append(m.army[from], to)
		}
	}
	for _, l := range fleetLines {
		from := Loc(l.from)
		if !m.CanHold(Fleet, from) {
			return nil, fmt.Errorf("%w: line %d: fleet adjacency from %q", ErrMap, l.line, l.from)
		}
		for _, t := range strings.Fields(l.to) {
			to := Loc(t)
			if !m.CanHold(Fleet, to) || to.SameProvince(from) {
				return nil, fmt.Errorf("%w: line %d: fleet adjacency to %q", ErrMap, l.line, t)
			}
			m.fleet[from] = append(m.fleet[from], to)
		}
	}
	for _, adj := range []map[Loc][]Loc{m.army, m.fleet} {
		for from, tos := range adj {
			slices.Sort(tos)
			if len(slices.Compact(slices.Clone(tos))) != len(tos) {
				return nil, fmt.Errorf("%w: duplicate neighbour of %s", ErrMap, from)
			}
			for _, to := range tos {
				if !slices.Contains(adj[to], from) {
					return nil, fmt.Errorf("%w: %s borders %s but not the reverse", ErrMap, from, to)
				}
			}
		}
	}
	for _, l := range unitLines {
		pw, err := ParsePower(l.from)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", ErrMap, l.line, err)
		}
		for u := range strings.SplitSeq(l.to, ",") {
			f := strings.Fields(u)
			if len(f) != 2 {
				return nil, fmt.Errorf("%w: line %d: unit %q", ErrMap, l.line, u)
			}
			t := map[string]UnitType{"A": Army, "F": Fleet}[f[0]]
			unit := Unit{Type: t, Power: pw, Loc: Loc(f[1])}
			if !m.CanHold(t, unit.Loc) {
				return nil, fmt.Errorf("%w: line %d: unit %q cannot stand there", ErrMap, l.line, u)
			}
			m.start = append(m.start, unit)
		}
	}
	return m, nil
}
