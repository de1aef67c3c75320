package diplomacy_test

import (
	"fmt"

	"github.com/org/agentevolver/arena/diplomacy"
)

// A game from the first phase: orders in the reference syntax, then
// Process adjudicates and moves on.
func Example() {
	g := diplomacy.NewGame(diplomacy.Config{})
	m := g.Map()
	for p, orders := range map[diplomacy.Power][]string{
		diplomacy.France:  {"A PAR - BUR", "A MAR S A PAR - BUR", "F BRE - MAO"},
		diplomacy.Germany: {"A MUN - BUR"},
	} {
		var os []diplomacy.Order
		for _, s := range orders {
			o, err := diplomacy.ParseOrder(m, s)
			if err != nil {
				fmt.Println(err)
				return
			}
			os = append(os, o)
		}
		if err := g.SetOrders(p, os); err != nil {
			fmt.Println(err)
		}
	}
	rec, err := g.Process()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rec.Results {
		if r.Given != nil {
			fmt.Printf("%-20s %s\n", r.Order, r.Result)
		}
	}
	fmt.Println("next phase:", g.Phase())
	// Output:
	// F BRE - MAO          ok
	// A MAR S A PAR - BUR  ok
	// A MUN - BUR          bounce
	// A PAR - BUR          ok
	// next phase: F1901M
}

// Orders print in the reference library's syntax; the parser reads it
// back, and also looser forms.
func ExampleParseOrder() {
	m := diplomacy.Standard()
	for _, s := range []string{"F NTH C A LON - NWY", "a mun supports a ber -> sil", "F StP(sc) - BOT", "A London - Norway via convoy", "build F STP/NC", "A PAR - XYZ"} {
		o, err := diplomacy.ParseOrder(m, s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(o)
	}
	// Output:
	// F NTH C A LON - NWY
	// A MUN S A BER - SIL
	// F STP/SC - BOT
	// A LON - NWY VIA
	// F STP/NC B
	// diplomacy: syntax error: "A PAR - XYZ": unknown location "XYZ"
}

// The adjudicator alone: a supported attack dislodges a holding unit,
// which may then retreat anywhere but where the attack came from.
func ExampleMap_Resolve() {
	m := diplomacy.Standard()
	units := []diplomacy.Unit{
		{Type: diplomacy.Army, Power: diplomacy.Germany, Loc: "MUN"},
		{Type: diplomacy.Army, Power: diplomacy.France, Loc: "BUR"},
		{Type: diplomacy.Army, Power: diplomacy.France, Loc: "RUH"},
	}
	move, _ := diplomacy.ParseOrder(m, "A BUR - MUN")
	support, _ := diplomacy.ParseOrder(m, "A RUH S A BUR - MUN")
	res, err := m.Resolve(units, map[diplomacy.Power][]diplomacy.Order{diplomacy.France: {move, support}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("units:", res.Units)
	for _, d := range res.Dislodged {
		fmt.Println("dislodged:", d.Unit, "from", d.From, "may retreat to", d.Retreats)
	}
	// Output:
	// units: [A MUN A RUH]
	// dislodged: A MUN from BUR may retreat to [BER BOH KIE SIL TYR]
}

// Possible orders per province, as the reference lists them for its
// players.
func ExampleGame_PossibleOrders() {
	g := diplomacy.NewGame(diplomacy.Config{})
	for _, o := range g.PossibleOrders()["STP"] {
		fmt.Println(o)
	}
	// Output:
	// F STP/SC - BOT
	// F STP/SC - FIN
	// F STP/SC - LVN
	// F STP/SC H
	// F STP/SC S A MOS - LVN
	// F STP/SC S A WAR - LVN
}

// Submit reads a player's free-text orders, keeps the legal ones and
// says why it refused the others; a unit never gets two orders.
func ExampleGame_Submit() {
	g := diplomacy.NewGame(diplomacy.Config{})
	accepted, rejected, err := g.Submit(diplomacy.England, []string{
		"F LON - NTH", "F LON H", "A LVP - YOR", "F EDI - NWY", "F EDI - NWG",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("accepted:", accepted)
	for _, r := range rejected {
		fmt.Printf("rejected %q: %s\n", r.Text, r.Reason)
	}
	// Output:
	// accepted: [F LON - NTH A LVP - YOR F EDI - NWG]
	// rejected "F LON H": a second order for the unit in LON (kept "F LON - NTH")
	// rejected "F EDI - NWY": illegal order: F EDI cannot reach NWY
}
