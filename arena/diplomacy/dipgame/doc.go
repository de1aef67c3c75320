// Package dipgame plays Diplomacy (the rules engine of package
// arena/diplomacy) between language-model players, as the reference
// AgentEvolver's games/diplomacy does: seven powers, each played by any
// llm.ChatModel (an OpenAI-compatible endpoint, the in-process policy, or
// the Random and Greedy bots of this package, so that games run with no
// model at all).
//
// # Layers
//
//   - the parsers: ParseNegotiation and ParseOrders read a reply with the
//     reference's fallbacks (extension spec §1.3.4), except that a unit
//     never gets two orders; ReadQuestion reads back what a prompt asks,
//     for players that are not language models;
//   - the game: Play runs a game and writes its log (Log, in the shape of
//     the reference's game_log.json); Resume goes on with the game of a
//     log, for example one that stopped with a model error;
//     Config.Observe follows a game as it is played (each phase's board,
//     negotiation round and adjudication; the arena's web page uses it)
//     without changing its results or log;
//   - the players: Random (one random possible order per location) and
//     Greedy (takes neutral and enemy centres, supports its own attacks);
//   - the adapters: ArenaGame for the arena's tournaments and Elo
//     leaderboard, Env for the trainer (one power trained against fixed
//     models; registered as env.type diplomacy by package envs/builtin).
//
// # How a game runs
//
// Play follows the reference's phase loop (§1.3.3). Each power has a
// system prompt (the rules in brief, its goal, an example, the answer
// format: think inside <think>…</think>, then answer) and a history of
// what it saw, shown in the reference's layout (<agent:NAME>text
// </agent:NAME> lines inside <history> tags) and bounded by
// Config.MaxHistoryBytes. Every question ends with the current board
// (the reference's context prompt: the power, the phase, its home
// centres, every power's units and supply centres, and its possible
// orders per location) and the phase's instruction.
//
//  1. Before each movement phase, Config.NegotiationRounds rounds (3 by
//     default): every surviving power is asked at once for a JSON array
//     of messages; when all replies are in, a private message goes to its
//     recipient and its sender and a global one to every power, as
//     "SENDER -> RECIPIENT: content".
//  2. Every power with something to order is asked at once for its
//     orders. What is not a possible order is refused and logged (its
//     unit holds); the accepted orders go to the engine, and every power
//     sees every power's orders in words ("FRANCE orders: [A PAR move to
//     BUR, …]").
//  3. The phase is adjudicated; every power sees the orders that failed,
//     the supply-centre counts and the next phase.
//
// The game ends when a power owns 18 centres or after Config.MaxPhases
// processed phases (20 by default; retreats and adjustments count, as in
// the reference). Each power's reward is 0 if it is eliminated, else
// min(centres/18, 1).
//
// # Decisions where the reference misbehaves (§1.9)
//
//   - The board context is part of every question, every phase; the
//     reference sent it once, at the start (§1.9.12).
//   - The order parser's substring fallback never gives a unit two
//     orders, and an order written inside a longer one ("A PAR - BUR" in
//     "A MAR S A PAR - BUR") is not taken; the reference submitted every
//     possible order found anywhere in the reply. JSON entries are
//     compared after ParseOrder, so case and spacing do not matter.
//   - An empty JSON array in negotiation means "no message"; the
//     reference turned it into a global message "[]".
//   - Prompts are English only and have no literal doubled braces.
//   - Only possible orders reach the engine; the rejected texts are
//     logged in order_logs (always empty in the reference).
//   - A game is a pure function of its seed and its models: calls carry
//     a ChatOptions.Seed derived from the game seed, the power and the
//     call's index; powers without a model play random orders drawn from
//     the seed; logs hold no wall-clock time. With deterministic models
//     the same seed writes the same log bytes, whether powers are asked
//     concurrently or one by one.
//   - A failing game still writes its log, with the error.
package dipgame
