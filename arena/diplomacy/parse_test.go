package diplomacy_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/org/agentevolver/arena/diplomacy"
)

func TestParseOrder(t *testing.T) {
	m := diplomacy.Standard()
	cases := map[string]string{
		"A PAR - BUR":                            "A PAR - BUR",
		"a par-bur":                              "A PAR - BUR",
		"A Paris move to Burgundy":               "A PAR - BUR",
		"A PAR -> BUR":                           "A PAR - BUR",
		"F NTH C A LON - NWY":                    "F NTH C A LON - NWY",
		"F North Sea convoys A London to Norway": "F NTH C A LON - NWY",
		"F NTH C LON - NWY":                      "F NTH C LON - NWY",
		"A MUN S A BER - SIL":                    "A MUN S A BER - SIL",
		"A MUN supports A BER":                   "A MUN S A BER",
		"A MUN S A BER H":                        "A MUN S A BER",
		"F STP/SC - BOT":                         "F STP/SC - BOT",
		"F STP(SC) - BOT":                        "F STP/SC - BOT",
		"F stp (sc) - bot":                       "F STP/SC - BOT",
		"F MAO - SPA NC":                         "F MAO - SPA/NC",
		"A PAR B":                                "A PAR B",
		"build F STP/NC":                         "F STP/NC B",
		"F LON D":                                "F LON D",
		"A PAR R BUR":                            "A PAR R BUR",
		"A PAR retreats to Picardy":              "A PAR R PIC",
		"WAIVE":                                  "WAIVE",
		"A LON - NWY VIA":                        "A LON - NWY VIA",
		"A LON - NWY via convoy":                 "A LON - NWY VIA",
		"A LON - NWY by convoy":                  "A LON - NWY VIA",
		"F BRE H":                                "F BRE H",
		"  F   BRE   HOLD  ":                     "F BRE H",
		"A St. Petersburg - Moscow":              "A STP - MOS",
	}
	for in, want := range cases {
		o, err := diplomacy.ParseOrder(m, in)
		if err != nil {
			t.Errorf("ParseOrder(%q): %v", in, err)
			continue
		}
		if got := o.String(); got != want {
			t.Errorf("ParseOrder(%q) = %q, want %q", in, got, want)
		}
	}
	bad := []string{"", "PAR - BUR", "A XYZ - BUR", "A PAR - ", "A PAR ZOOM", "A PAR - BUR extra",
		"F NTH C A LON", "A PAR - BUR by", "A", "F SPA/EC H", strings.Repeat("A PAR H ", 40)}
	for _, in := range bad {
		if o, err := diplomacy.ParseOrder(m, in); !errors.Is(err, diplomacy.ErrSyntax) {
			t.Errorf("ParseOrder(%q) = %v, %v; want ErrSyntax", in, o, err)
		}
	}
}

func TestNaturalLanguage(t *testing.T) {
	m := diplomacy.Standard()
	for in, want := range map[string]string{
		"A PAR - BUR":         "A PAR move to BUR",
		"F NTH C A LON - NWY": "F NTH convoy A LON - NWY",
		"A MUN S A BER - SIL": "A MUN support A BER - SIL",
		"F BRE H":             "F BRE hold",
		"A PAR R PIC":         "A PAR retreat to PIC",
		"F LON D":             "F LON disband",
		"A PAR B":             "A PAR build",
	} {
		o, _ := diplomacy.ParseOrder(m, in)
		if got := o.NaturalLanguage(); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestParsePhase(t *testing.T) {
	for _, s := range []string{"S1901M", "F1901M", "F1901R", "S1905R", "W1901A"} {
		p, err := diplomacy.ParsePhase(s)
		if err != nil || p.String() != s {
			t.Errorf("ParsePhase(%q) = %v, %v", s, p, err)
		}
	}
	for _, s := range []string{"", "X1901M", "S1901A", "W1901M", "S19x1M", "S0M", "COMPLETED"} {
		if _, err := diplomacy.ParsePhase(s); !errors.Is(err, diplomacy.ErrSyntax) {
			t.Errorf("ParsePhase(%q): %v, want ErrSyntax", s, err)
		}
	}
	if _, err := diplomacy.ParsePower("prussia"); !errors.Is(err, diplomacy.ErrSyntax) {
		t.Error("ParsePower accepted prussia")
	}
	if p, err := diplomacy.ParsePower(" france "); err != nil || p != diplomacy.France {
		t.Error("ParsePower france")
	}
}

// FuzzParseOrder checks that the parser never panics, bounds its input,
// and that whatever it accepts prints as text it reads back the same.
func FuzzParseOrder(f *testing.F) {
	for _, s := range []string{"A PAR - BUR", "F NTH C A LON - NWY", "A MUN S A BER - SIL", "F STP/SC - BOT",
		"A PAR B", "F LON D", "WAIVE", "A LON - NWY VIA", "F stp (nc) h", "A Paris move to Burgundy", "F NTH C LON - BEL"} {
		f.Add(s)
	}
	m := diplomacy.Standard()
	f.Fuzz(func(t *testing.T, s string) {
		o, err := diplomacy.ParseOrder(m, s)
		if err != nil {
			if !errors.Is(err, diplomacy.ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			if !utf8.ValidString(err.Error()) && utf8.ValidString(s) {
				t.Fatalf("error text not UTF-8: %q", err)
			}
			return
		}
		if len(s) > diplomacy.MaxOrderBytes {
			t.Fatalf("accepted %d bytes", len(s))
		}
		back, err := diplomacy.ParseOrder(m, o.String())
		if err != nil || back != o {
			t.Fatalf("%q -> %q -> %v, %v", s, o.String(), back, err)
		}
	})
}
