package diplomacy_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/org/agentevolver/arena/diplomacy"
)

func TestStandardMapCounts(t *testing.T) {
	m := diplomacy.Standard()
	provs := m.Provinces()
	if len(provs) != 75 {
		t.Errorf("%d provinces, want 75", len(provs))
	}
	kinds := map[diplomacy.Kind]int{}
	coasts := 0
	for _, p := range provs {
		kinds[p.Kind]++
		coasts += len(p.Coasts)
	}
	// 14 inland, 42 coastal, 19 sea provinces; 3 provinces with 2 coasts.
	if kinds[diplomacy.Land] != 14 || kinds[diplomacy.Coast] != 42 || kinds[diplomacy.Water] != 19 || coasts != 6 {
		t.Errorf("kinds %v, coasts %d", kinds, coasts)
	}
	if n := len(m.SupplyCenters()); n != 34 {
		t.Errorf("%d supply centres, want 34", n)
	}
	homes := 0
	for _, p := range diplomacy.Powers() {
		h := m.HomeCenters(p)
		want := 3
		if p == diplomacy.Russia {
			want = 4
		}
		if len(h) != want {
			t.Errorf("%s has %d home centres, want %d", p, len(h), want)
		}
		homes += len(h)
	}
	if homes != 22 || len(diplomacy.Powers()) != 7 {
		t.Errorf("%d home centres of %d powers, want 22 of 7", homes, len(diplomacy.Powers()))
	}
	start := m.StartingUnits()
	if len(start) != 22 {
		t.Errorf("%d starting units, want 22", len(start))
	}
	for _, u := range start {
		if p, _ := m.Province(u.Loc); p.Home != u.Power {
			t.Errorf("%s of %s does not start in a home centre", u, u.Power)
		}
	}
	for _, c := range []diplomacy.Loc{"SPA/NC", "SPA/SC", "STP/NC", "STP/SC", "BUL/EC", "BUL/SC"} {
		if !m.IsLoc(c) || !m.CanHold(diplomacy.Fleet, c) || m.CanHold(diplomacy.Army, c) {
			t.Errorf("coast %s not a fleet location", c)
		}
	}
}

// TestAdjacencySymmetric checks every border both ways, per unit type,
// and a few borders that are easy to get wrong.
func TestAdjacencySymmetric(t *testing.T) {
	m := diplomacy.Standard()
	var locs []diplomacy.Loc
	for _, p := range m.Provinces() {
		locs = append(locs, p.Code)
		locs = append(locs, p.Coasts...)
	}
	for _, typ := range []diplomacy.UnitType{diplomacy.Army, diplomacy.Fleet} {
		for _, a := range locs {
			if !m.CanHold(typ, a) {
				continue
			}
			for _, b := range m.Neighbours(typ, a) {
				if !m.Adjacent(typ, b, a) {
					t.Errorf("%s: %s-%s but not %s-%s", typ, a, b, b, a)
				}
			}
		}
	}
	cases := []struct {
		typ      diplomacy.UnitType
		from, to diplomacy.Loc
		want     bool
	}{
		{diplomacy.Army, "PAR", "BUR", true},
		{diplomacy.Army, "PAR", "MAR", false},
		{diplomacy.Army, "LVP", "IRI", false},
		{diplomacy.Fleet, "KIE", "MUN", false},
		{diplomacy.Fleet, "GAS", "SPA/NC", true},
		{diplomacy.Fleet, "GAS", "SPA/SC", false},
		{diplomacy.Fleet, "MAR", "SPA/SC", true},
		{diplomacy.Fleet, "STP/SC", "BOT", true},
		{diplomacy.Fleet, "STP/NC", "BOT", false},
		{diplomacy.Fleet, "BUL/EC", "BLA", true},
		{diplomacy.Fleet, "BUL/SC", "BLA", false},
		{diplomacy.Fleet, "ANK", "SMY", false}, // no shared coastline
		{diplomacy.Army, "ANK", "SMY", true},
		{diplomacy.Fleet, "CON", "BUL/EC", true},
		{diplomacy.Fleet, "CON", "BUL/SC", true},
		{diplomacy.Army, "DEN", "SWE", true},
		{diplomacy.Army, "MUN", "SWI", false},
	}
	for _, c := range cases {
		if got := m.Adjacent(c.typ, c.from, c.to); got != c.want {
			t.Errorf("%s %s-%s: %v, want %v", c.typ, c.from, c.to, got, c.want)
		}
	}
}

func TestParseMapRejects(t *testing.T) {
	ok := "[provinces]\nAAA land - - - Alpha\nBBB land - - - Beta\n[army]\nAAA: BBB\nBBB: AAA\n"
	if _, err := diplomacy.ParseMap(ok); err != nil {
		t.Fatalf("minimal map: %v", err)
	}
	bad := map[string]string{
		"one-way border": "[provinces]\nAAA land - - - Alpha\nBBB land - - - Beta\n[army]\nAAA: BBB\n",
		"unknown code":   "[provinces]\nAAA land - - - Alpha\n[army]\nAAA: ZZZ\n",
		"bad kind":       "[provinces]\nAAA lava - - - Alpha\n",
		"home not sc":    "[provinces]\nAAA land - FRANCE - Alpha\n",
		"army at sea":    "[provinces]\nAAA water - - - Alpha\n[units]\nFRANCE: A AAA\n",
		"no section":     "AAA land - - - Alpha\n",
		"duplicate":      "[provinces]\nAAA land - - - Alpha\nAAA land - - - Alpha\n",
	}
	for name, text := range bad {
		if _, err := diplomacy.ParseMap(text); !errors.Is(err, diplomacy.ErrMap) {
			t.Errorf("%s: got %v, want ErrMap", name, err)
		}
	}
}

func TestLookupLoc(t *testing.T) {
	m := diplomacy.Standard()
	for in, want := range map[string]diplomacy.Loc{
		"par": "PAR", "STP(NC)": "STP/NC", "stp/sc": "STP/SC", "Spa (sc)": "SPA/SC",
		"North Sea": "NTH", "st petersburg": "STP", "gulf of lyon": "LYO",
	} {
		if got, ok := m.LookupLoc(in); !ok || got != want {
			t.Errorf("LookupLoc(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "XYZ", "SPA/EC", "PAR/NC", strings.Repeat("a", 100)} {
		if got, ok := m.LookupLoc(in); ok {
			t.Errorf("LookupLoc(%q) = %q, want none", in, got)
		}
	}
	if !slices.Contains(m.FleetLocs("SPA"), "SPA/NC") || m.FleetLocs("PAR") != nil {
		t.Error("FleetLocs")
	}
}
