// Package diplomacy is the rules engine of the board game Diplomacy for
// the arena: the standard map, orders in the text syntax of the Python
// diplomacy library (the engine the reference AgentEvolver drives), an
// adjudicator proven against the Diplomacy Adjudicator Test Cases (DATC),
// and a game state machine from Spring 1901 to a win or a phase limit.
// It is pure Go with no dependency beyond the standard library, and
// deterministic: it never draws a random number.
//
// # Layers
//
//   - The map: Standard returns the standard board, parsed from the
//     embedded standard_map.txt and validated (75 provinces, the coasts
//     of Spain, St Petersburg and Bulgaria, army and fleet adjacencies
//     checked both ways, 34 supply centres, 7 powers with 22 home centres
//     and the 22 units of 1901) when the package is initialised, so that
//     Standard and NewGame cannot fail. ParseMap reads the same format.
//   - Orders: Order is a typed order (hold, move, support, convoy,
//     retreat, disband, build, waive); Order.String writes the reference
//     syntax ("A PAR - BUR", "F NTH C A LON - NWY", "A MUN S A BER - SIL",
//     "F STP/SC - BOT", "A LON - NWY VIA", "A PAR B", "F LON D", "WAIVE")
//     and ParseOrder reads it back, leniently (case, spacing, coasts as
//     "STP(NC)", English names and verbs) but bounded (MaxOrderBytes).
//   - Adjudication: Map.Resolve settles a movement phase, Map.ResolveRetreats
//     a retreats phase, Map.ResolveAdjustments an adjustments phase; each
//     is a pure function of the units and the orders.
//   - The game: Game holds the position, takes each power's orders
//     (SetOrders, checked by Check, listed by PossibleOrders as the
//     reference's get_all_possible_orders does), and Process moves through
//     the phases named as the reference names them: S1901M, S1901R (only
//     when a unit was dislodged and can retreat), F1901M, F1901R, W1901A
//     (only when some power can build or must disband), S1902M, …
//     Supply centres change hands after each fall; a power with 18
//     centres wins; Config.MaxPhases ends the game earlier; Score is the
//     reference's reward, 0 for an eliminated power (no unit, no centre)
//     else min(centres/18, 1).
//
// # Adjudication
//
// Movement is resolved with the guess-and-check algorithm of the DATC
// (section 5, after Lucas Kruijswijk): every order's decision (a move
// succeeds, a support is given, a convoy holds) is computed from attack,
// hold, defend and prevent strengths, resolving other decisions on
// demand; a cycle of dependencies is tried with both guesses, and when
// both or neither are consistent the backup rule decides: circular
// movement succeeds, and a convoy paradox is settled by the Szykman rule
// (the moves by convoy in the paradox fail and have no effect). Head-to-
// head battles, beleaguered garrisons, the rule that no power may
// dislodge or help dislodge its own unit, cutting support (never by the
// unit the support is aimed at, nor by one's own units), coasts and
// multi-fleet convoys follow the DATC.
//
// Where the DATC offers options the engine takes the preferred ones of
// DATC 3.0, which follow the 2023 rulebook:
//
//   - 4.A.3 convoys to adjacent provinces: an army moves by convoy when it
//     must, when ordered "VIA" (convoy), or when a fleet of its own power
//     is ordered to convoy it; a move by convoy whose convoy fails does not
//     fall back to the land route (6.G.8, 6.G.20). Two armies can swap
//     places this way.
//   - 4.E.1 impossible orders are ignored (the unit holds): a convoy order
//     by a fleet that no minimal route from the army to its destination
//     needs (6.G.7, 6.G.19), a move by convoy with no chain of fleets at
//     sea (6.D.32), a support of a move that only the supporter itself
//     could convoy (6.D.31).
//   - 4.A.2 convoy paradoxes: the Szykman rule.
//   - 4.A.7 a dislodged unit still bounces a unit in the attacker's
//     province unless it lost a head-to-head battle.
//   - 4.B coasts: a fleet's move to a province with coasts must name a
//     coast unless only one is reachable; the coast of the ordering unit
//     itself is ignored (6.B.10); a support names the province only and
//     matches a move to any of its coasts (6.B.4, 6.B.15).
//   - 4.D builds and disbands are taken one by one in the order given
//     until the power's count is used (waives last); a power that disbands
//     too few loses the units farthest from any supply centre it owns,
//     counting moves over land and sea for armies and fleets alike, fleets
//     before armies at equal distance, then by province name (2023 rules,
//     6.J).
//   - Retreats: not to the attacker's province (unless the attacker came
//     by convoy), not to a province left empty by a standoff, not to an
//     occupied one; two retreats to one province both fail and the units
//     are disbanded. A dislodged unit with no retreat at all is disbanded
//     at once, and a retreats phase nobody needs is skipped, as the
//     reference library does.
//
// datc_cases_test.go transcribes every case of DATC sections 6.A to 6.J
// as a table; all pass. reference_test.go replays six 60-phase games of
// the Python library with the same orders and finds the same positions,
// phase names and possible orders, except in one documented phase where
// that library breaks the DATC.
//
// Result codes are the reference library's (Result.Codes): "bounce",
// "cut", "void", "no convoy", "dislodged", "disrupted", "disband".
package diplomacy
