package dipgame_test

import (
	"context"
	"fmt"

	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
	"github.com/org/agentevolver/llm"
)

// A game between the built-in bots, with no model at all: the greedy bot
// plays France, the random bot the others.
func Example() {
	models := make([]llm.ChatModel, diplomacy.NumPowers)
	for i, p := range diplomacy.Powers() {
		models[i] = dipgame.Random{Seed: uint64(i)}
		if p == diplomacy.France {
			models[i] = dipgame.Greedy{}
		}
	}
	res, err := dipgame.Play(context.Background(), dipgame.Config{MaxPhases: 6}, 1, models, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stopped at", res.Phase)
	fmt.Printf("FRANCE: %d centres, score %.3f\n", res.Centers[diplomacy.France-1], res.Score(diplomacy.France))
	// Output:
	// stopped at S1903M
	// FRANCE: 7 centres, score 0.389
}

// The order parser: a JSON answer, and the substring fallback, which
// never gives a unit two orders.
func ExampleParseOrders() {
	g := diplomacy.NewGame(diplomacy.Config{})
	possible := map[diplomacy.Loc][]diplomacy.Order{}
	for _, l := range g.OrderableLocations(diplomacy.France) {
		possible[l] = g.PossibleOrders()[l]
	}
	for _, reply := range []string{
		`PARSABLE OUTPUT: {"orders": ["A PAR - BUR", "a mar s a par - bur", "A PAR H"]}`,
		"I move A PAR - PIC, or rather A PAR - BUR. F BRE - MAO.",
	} {
		ch := dipgame.ParseOrders(g.Map(), reply, possible)
		fmt.Println(ch.Orders, "fallback:", ch.Fallback, "dropped:", len(ch.Dropped))
	}
	// Output:
	// [A PAR - BUR A MAR S A PAR - BUR] fallback: false dropped: 1
	// [A PAR - PIC F BRE - MAO] fallback: true dropped: 1
}

// Negotiation replies: a JSON array of messages, with the reference's
// fallbacks for other text.
func ExampleParseNegotiation() {
	for _, reply := range []string{
		`[{"message_type": "private", "recipient": "germany", "content": "Burgundy stays empty."}, {"message_type": "global", "content": "Peace in the west."}]`,
		"ENGLAND: the Channel is yours.",
	} {
		for _, m := range dipgame.ParseNegotiation(reply, diplomacy.France) {
			fmt.Printf("%s -> %s: %s\n", m.Sender, m.Recipient, m.Content)
		}
	}
	// Output:
	// FRANCE -> GERMANY: Burgundy stays empty.
	// FRANCE -> GLOBAL: Peace in the west.
	// FRANCE -> ENGLAND: the Channel is yours.
}
