// Package arena plays tournaments of multi-agent games between language
// models and keeps a persistent Elo leaderboard.
//
// A Game (arena/avalon's ArenaGame, or any implementation) plays one Match
// with one llm.ChatModel per seat and scores each seat in [0, 1]. A
// Tournament assigns Entrants to seats, plays its matches a few at a time
// and records each on a Leaderboard, an embedded go.etcd.io/bbolt file.
// Render prints the standings as a text table. A Batch is the other use,
// the reference's batch evaluation: matches with a fixed seating (for
// Avalon, models chosen per role with avalon.RoleSeating), aggregated per
// role and per model, with no leaderboard.
//
// A game is also a training environment for one of its seats: StartSeat
// runs a game in its own goroutine with a bridge model in the trained
// seat, so that each call of that seat becomes a question (Next) that the
// policy answers (Answer), and Splits gives such an environment its
// train, val and test tasks (avalon.Env and dipgame.Env are built so).
// A Recorder plays a seat with a model and keeps each request and reply,
// for demonstrations and tokenizer corpora.
//
// # What a user does, in order
//
//  1. Open a Leaderboard file (it is created on first use; the Elo
//     parameters are fixed then).
//  2. Describe a Tournament: an ID, the game, the entrants, the number of
//     matches and a seed.
//  3. Run it. If the run is interrupted (cancelled, an endpoint down, the
//     process killed), Run it again with the same ID: recorded matches are
//     skipped and the rest are played.
//  4. Read Standings and Render them.
//
// # Guarantees
//
// Each finished match is committed in one transaction together with its
// rating changes and counts, keyed by (tournament ID, match index): a
// crash loses at most the matches not yet committed, never applies half of
// one, and a match is never counted twice. Matches are committed strictly
// in index order, and seat assignment and match seeds are a pure function
// of the tournament (Tournament.Plan), so with deterministic models the
// final ratings are the same whatever the number of workers and however
// often the run was interrupted and resumed.
//
// # Decisions where the reference misbehaves (extension spec §1.9)
//
//   - Every seat counts (§1.9.9): a model holding several seats of a match
//     is counted once per seat in games, wins and role statistics (the
//     reference kept only its last seat). Matches counts the matches it
//     took part in.
//   - Elo (§1.9.9): every pair of seats held by different models with
//     different scores is one Elo game, won by the higher score; a pair
//     with equal scores is not rated (teammates always tie; the reference
//     made a tie a win or a loss by list order). K is shared out over a
//     seat's opponents (K/(seats-1) per pair; the reference applied K per
//     pair, so a 10-seat match moved ratings up to nine times K), and all
//     changes use the ratings before the match, so seat order does not
//     matter (EloDeltas). A two-seat match is classic Elo.
//   - Ranking ties: Elo, then win rate, then games played, then name.
//   - Seeding (§1.9.10): no global random state; seat assignment balances
//     seat counts as the reference does (weights 1/(seats held + 1)), but
//     over the tournament's own plan rather than the leaderboard's counts
//     at the time a match starts, which depended on thread timing.
//   - Failures: a match whose game fails with a cancellation or
//     llm.ErrUnavailable stops the run and is played again on resume; any
//     other failure (or a panic) is recorded as a failed match that
//     changes no rating (the reference printed it and moved on).
package arena
