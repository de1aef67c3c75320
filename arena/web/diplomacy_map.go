package web

import (
	"fmt"
	"slices"
	"strings"

	"github.com/org/agentevolver/arena/diplomacy"
)

// mapCoords places every location of the standard map on the page's
// schematic map, a 1000×760 canvas with north up: a province's point (its
// label, its army and a fleet on it) and, for provinces with several
// coasts, each coast's point (where a fleet there stands). The points
// follow the provinces' rough geography; borders are drawn as lines
// between adjacent points. TestMapCoordsCoverTheMap checks that every
// location of diplomacy.Standard() has a point and nothing else does.
const mapCoords = `
NAO 90 150    NWG 420 60     BAR 700 30
CLY 225 175   EDI 270 180    LVP 235 225   YOR 285 240   WAL 220 285   LON 290 295
IRI 150 255   NTH 365 215    ENG 235 335   SKA 470 205   HEL 405 265
NWY 470 130   SWE 555 150    FIN 640 100   BOT 600 190   BAL 545 245
STP 770 120   STP/NC 750 55  STP/SC 680 160
DEN 470 250   HOL 380 315    BEL 345 345   KIE 450 300   BER 525 295   PRU 595 275
LVN 675 225   MOS 790 230    WAR 625 330   SIL 555 340   MUN 475 380   RUH 415 345
BOH 550 385   GAL 655 385    UKR 745 320   SEV 860 335
PIC 310 370   BRE 235 390    PAR 300 415   BUR 370 420   GAS 260 465   MAR 355 480
MAO 100 430   SPA 205 540    SPA/NC 190 480 SPA/SC 245 590  POR 100 525
WES 290 615   NAF 220 680    TUN 390 680   LYO 345 560
PIE 420 465   TYR 500 430    VIE 580 420   BUD 655 450    TRI 545 480
VEN 465 500   TUS 455 545    ROM 495 580   APU 560 570    NAP 565 625   TYS 430 620
ION 560 700   ADR 525 535    ALB 600 560   SER 640 510    RUM 745 465
BUL 715 530   BUL/EC 765 515 BUL/SC 700 570  GRE 645 605   AEG 690 660
CON 790 575   BLA 865 445    ANK 885 560   ARM 965 535    SMY 820 645
SYR 945 650   EAS 790 715
`

// MapWidth and MapHeight are the schematic map's canvas size.
const (
	MapWidth  = 1000
	MapHeight = 760
)

// MapPoint is a location's point on the schematic map.
type MapPoint struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// MapProvince is one province of the page's map.
type MapProvince struct {
	// Code and Name are the province's code ("SPA") and English name.
	Code string `json:"code"`
	Name string `json:"name"`
	// Kind is "land", "coast" or "water".
	Kind string `json:"kind"`
	// SupplyCenter marks a supply centre; Home names the power whose home
	// centre it is ("" for none).
	SupplyCenter bool   `json:"sc,omitempty"`
	Home         string `json:"home,omitempty"`
	// At is the province's point; Coasts the points of its coasts, by
	// location ("SPA/NC"), for a province with several.
	At     MapPoint            `json:"at"`
	Coasts map[string]MapPoint `json:"coasts,omitempty"`
}

// MapEdge is a border between two adjacent provinces: Army and Fleet say
// which unit types may cross it.
type MapEdge struct {
	A     string `json:"a"`
	B     string `json:"b"`
	Army  bool   `json:"army,omitempty"`
	Fleet bool   `json:"fleet,omitempty"`
}

// MapInfo is the answer of GET /api/diplomacy/map: the standard map as the
// page draws it, from the engine's map and the schematic's points.
type MapInfo struct {
	Width     int           `json:"width"`
	Height    int           `json:"height"`
	Provinces []MapProvince `json:"provinces"`
	Edges     []MapEdge     `json:"edges"`
	// Powers are the seven powers in the engine's order.
	Powers []string `json:"powers"`
}

// parseMapCoords reads mapCoords: "LOC X Y" triples.
func parseMapCoords(text string) (map[diplomacy.Loc]MapPoint, error) {
	f := strings.Fields(text)
	if len(f)%3 != 0 {
		return nil, fmt.Errorf("web: map coordinates: %d fields, want triples", len(f))
	}
	out := map[diplomacy.Loc]MapPoint{}
	for i := 0; i < len(f); i += 3 {
		var p MapPoint
		if _, err := fmt.Sscan(f[i+1], &p.X); err != nil {
			return nil, fmt.Errorf("web: map coordinates of %s: %w", f[i], err)
		}
		if _, err := fmt.Sscan(f[i+2], &p.Y); err != nil {
			return nil, fmt.Errorf("web: map coordinates of %s: %w", f[i], err)
		}
		if _, dup := out[diplomacy.Loc(f[i])]; dup {
			return nil, fmt.Errorf("web: map coordinates: %s given twice", f[i])
		}
		out[diplomacy.Loc(f[i])] = p
	}
	return out, nil
}

// buildMapInfo joins the engine's map with the schematic's points. Every
// location of m must have a point, and every point a location.
func buildMapInfo(m *diplomacy.Map, coords map[diplomacy.Loc]MapPoint) (MapInfo, error) {
	info := MapInfo{Width: MapWidth, Height: MapHeight}
	for _, p := range diplomacy.Powers() {
		info.Powers = append(info.Powers, p.String())
	}
	used := 0
	point := func(l diplomacy.Loc) (MapPoint, error) {
		pt, ok := coords[l]
		if !ok {
			return MapPoint{}, fmt.Errorf("web: no map point for %s", l)
		}
		used++
		return pt, nil
	}
	provs := m.Provinces()
	for _, p := range provs {
		at, err := point(p.Code)
		if err != nil {
			return MapInfo{}, err
		}
		mp := MapProvince{Code: string(p.Code), Name: p.Name, Kind: p.Kind.String(), SupplyCenter: p.SupplyCenter, Home: p.Home.String(), At: at}
		for _, c := range p.Coasts {
			pt, err := point(c)
			if err != nil {
				return MapInfo{}, err
			}
			if mp.Coasts == nil {
				mp.Coasts = map[string]MapPoint{}
			}
			mp.Coasts[string(c)] = pt
		}
		info.Provinces = append(info.Provinces, mp)
	}
	if used != len(coords) {
		var extra []string
		for l := range coords {
			if !m.IsLoc(l) {
				extra = append(extra, string(l))
			}
		}
		slices.Sort(extra)
		return MapInfo{}, fmt.Errorf("web: map points for unknown locations %v", extra)
	}
	edges := map[[2]string]*MapEdge{}
	edge := func(a, b diplomacy.Loc) *MapEdge {
		pa, pb := string(a.Province()), string(b.Province())
		if pa > pb {
			pa, pb = pb, pa
		}
		k := [2]string{pa, pb}
		if edges[k] == nil {
			edges[k] = &MapEdge{A: pa, B: pb}
		}
		return edges[k]
	}
	for _, p := range provs {
		if p.Kind != diplomacy.Water {
			for _, n := range m.Neighbours(diplomacy.Army, p.Code) {
				edge(p.Code, n).Army = true
			}
		}
		for _, l := range m.FleetLocs(p.Code) {
			for _, n := range m.Neighbours(diplomacy.Fleet, l) {
				edge(l, n).Fleet = true
			}
		}
	}
	for _, e := range edges {
		info.Edges = append(info.Edges, *e)
	}
	slices.SortFunc(info.Edges, func(a, b MapEdge) int {
		if c := strings.Compare(a.A, b.A); c != 0 {
			return c
		}
		return strings.Compare(a.B, b.B)
	})
	return info, nil
}

// standardMapInfo is the standard map's MapInfo.
func standardMapInfo() (MapInfo, error) {
	coords, err := parseMapCoords(mapCoords)
	if err != nil {
		return MapInfo{}, err
	}
	return buildMapInfo(diplomacy.Standard(), coords)
}
