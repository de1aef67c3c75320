package dipgame

import (
	"fmt"
	"strings"

	"github.com/org/agentevolver/arena/diplomacy"
)

// The prompts follow the reference's English prompt files
// (G/games/diplomacy/prompts_simple: the power's system prompt, the
// few-shot example, the context prompt, conversation_instructions and the
// movement, retreat and adjustment instructions) in content and order,
// shortened, with the reference's literal doubled braces fixed (§1.9.12).
// The board context (context_prompt) is part of every question, so the
// players see the current board every phase, not only at the start.

// Moderator is the name under which the game's announcements appear in a
// power's history.
const Moderator = "Moderator"

// Markers that start the questions, for readers of prompts (the built-in
// bots, a person at a web page).
const (
	// NegotiationMarker starts a negotiation question.
	NegotiationMarker = "Negotiation Round:"
	// OrdersMarker starts an orders question.
	OrdersMarker = "Submit your orders"
	// BoardMarker starts the board context in a question.
	BoardMarker = "# Board"
)

// systemPrompt is the power's rules, goal, example and answer format.
func systemPrompt(p diplomacy.Power, maxPhases int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are playing %s in a game of Diplomacy on the standard map with seven powers: %s.\n\n", p, powerList())
	b.WriteString("# Goal\n")
	fmt.Fprintf(&b, "Own %d supply centres to win. The game ends after %d phases at the latest; your score is then your supply centres divided by %d (0 if you are eliminated). Expand aggressively: give every unit an order and avoid passive holds.\n\n", diplomacy.WinCenters, maxPhases, diplomacy.WinCenters)
	b.WriteString("# Rules in brief\n")
	b.WriteString("- Each movement phase (S = spring, F = fall, M) has negotiation rounds, then every power writes its orders at once: hold (A PAR H), move (A PAR - BUR), support (A MAR S A PAR - BUR, or A MAR S A PAR to support a hold) and convoy (F NTH C A LON - NWY; the army orders A LON - NWY VIA).\n")
	b.WriteString("- The strongest move into a province wins; ties bounce. Support is cut when the supporting unit is attacked. A dislodged unit retreats (R phases: A PAR R PIC, or F BRE D to disband).\n")
	b.WriteString("- After each fall, a unit on a supply centre takes it. In winter (A phases) a power builds (A PAR B, F BRE B) on its free home centres when it has more centres than units, and disbands (A PAR D) when it has fewer.\n")
	b.WriteString("- Negotiation is cheap talk: nothing binds anyone.\n\n")
	b.WriteString("# Example (FRANCE, S1901M)\n")
	b.WriteString("Units: A PAR, A MAR, F BRE. Thinking: 1) which neutral centres are near (SPA, POR, BEL); 2) who threatens me; 3) which moves can bounce; 4) which supports make an attack succeed; 5) one order per unit.\n")
	b.WriteString("PARSABLE OUTPUT: {\"orders\": [\"A PAR - BUR\", \"A MAR - SPA\", \"F BRE - MAO\"]}\n\n")
	b.WriteString("# Answer format\n")
	b.WriteString("Think first inside <think>...</think>; nobody else sees it. Then write your answer after the thinking section, in the format the question asks for.")
	return b.String()
}

func powerList() string {
	ps := diplomacy.Powers()
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, ", ")
}

// boardContext is the reference's context prompt for p: the power, the
// phase, its home centres, the goal, every power's units and centres and
// p's possible orders.
func boardContext(g *diplomacy.Game, p diplomacy.Power) string {
	return BoardMarker + "\nGoal: Survive and expand.\n" + g.BoardText(p)
}

// negotiationQuestion is the reference's conversation instruction.
// board is the power's boardContext.
func negotiationQuestion(board string, phase diplomacy.Phase, round, rounds int) string {
	var b strings.Builder
	b.WriteString(board)
	b.WriteString("\n---PHASE_INSTRUCTIONS---\n")
	fmt.Fprintf(&b, "Current Phase: %s\n%s %d/%d\n", phase, NegotiationMarker, round, rounds)
	b.WriteString("Write a few strategic messages to the other powers: propose alliances, coordinate moves, warn or mislead. Messages are delivered after every power has written. ")
	b.WriteString("Answer with a single JSON array, for example:\n")
	b.WriteString(`[{"message_type": "private", "recipient": "GERMANY", "content": "Let us keep Burgundy empty."}, {"message_type": "global", "content": "France wants peace in the west."}]`)
	b.WriteString("\nAn empty array [] sends nothing.")
	return b.String()
}

// ordersQuestion is the reference's phase instruction for the phase type;
// board is the power's boardContext.
func ordersQuestion(board string, g *diplomacy.Game, p diplomacy.Power) string {
	var b strings.Builder
	b.WriteString(board)
	b.WriteString("\n---PHASE_INSTRUCTIONS---\n")
	switch g.Phase().Type {
	case diplomacy.Movement:
		b.WriteString("Movement phase: give every unit one order (hold, move, support or convoy). Take neutral and weak enemy centres, support your own attacks, and do not leave home centres open to an attack you can foresee.\n")
	case diplomacy.Retreats:
		b.WriteString("Retreat phase: retreat each dislodged unit (A PAR R PIC) or disband it (A PAR D). A unit without an order is disbanded.\n")
	default:
		n := diplomacy.AdjustmentCount(p, g.Units(), g.Position().Centers)
		if n > 0 {
			fmt.Fprintf(&b, "Adjustment phase: you may build up to %d unit(s) on your free home centres (A PAR B, F BRE B) or WAIVE.\n", n)
		} else {
			fmt.Fprintf(&b, "Adjustment phase: you must disband %d unit(s) (A PAR D); if you do not, the units farthest from your centres are disbanded.\n", -n)
		}
	}
	fmt.Fprintf(&b, "%s for %s as a list of order strings chosen from the possible orders above, for example ['A PAR - BUR', 'F BRE H'], one order per location.\n", OrdersMarker, g.Phase())
	b.WriteString(`Reason first, then end with PARSABLE OUTPUT: {"orders": ["...", "..."]}`)
	return b.String()
}
