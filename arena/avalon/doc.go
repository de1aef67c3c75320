// Package avalon is The Resistance: Avalon as a multi-agent game for
// language-model players: 5 to 10 seats, each played by any llm.ChatModel
// (an OpenAI-compatible endpoint, the in-process policy, or the Scripted
// and Random models of this package).
//
// # Layers
//
// The package has three layers, each usable alone:
//
//   - the rules: SetupFor (the reference's tables of team sizes and fails
//     needed), Roles.Cast and DealRoles (a seeded deal), Knowledge (what
//     each role sees) and Engine, a deterministic state machine of team
//     selection, team vote, quest and assassination that never talks to a
//     model and never draws a random number;
//   - the parsers: ParseTeam, ParseVote, ParseTarget and Public, which read
//     an action out of a free-text reply and cannot be fooled by numbers in
//     prose, negations or thinking sections, and ReadQuestion, which reads
//     back what a seat's prompt asks, for seat models that are not language
//     models (a person at the arena's web page);
//   - the game: Play, which runs the engine with one model per seat, shows
//     each seat only what it may see, re-asks unreadable answers, applies
//     documented fallbacks and writes a log of typed events as JSON lines.
//
// ArenaGame adapts Play to the arena package's tournaments, and Env to
// the trainer's environments (one seat trained with GRPO against fixed
// models; see Env).
//
// # How a game runs
//
// Play follows the reference's orchestration (AgentEvolver
// games/avalon/game.py). Every seat's prompt is a system message (rules,
// its role, what it knows, the answer format: think inside
// <think>…</think>, then answer) and one user message holding its history
// in the reference's layout (<agent:NAME>text</agent:NAME> lines inside
// <history> tags) followed by the question. For each proposal the
// moderator announces the quest, the players speak in turn starting with
// the leader (each sees the others' words without their thinking), the
// leader alone names a team, every player votes (votes are public), the
// team plays quest cards in secret (only the number of fails is
// announced), and after three successes the Assassin names Merlin.
//
// # Decisions where the reference misbehaves (extension spec §1.9)
//
//  1. Team lists (§1.9.1): the reference's list regex never matched, so it
//     took the first integers anywhere in the reply, unchecked. ParseTeam
//     reads bracketed lists (or a reply that is only a list), requires
//     exactly the quest's size, distinct seats in range, and refuses two
//     different legal teams in one reply.
//  2. Votes (§1.9.2): the reference matched substrings ("I do not approve"
//     and "eyes" were approvals). ParseVote matches whole words, applies
//     negation, prefers an explicit "vote: …" and refuses contradictions.
//     Unreadable answers are asked again, up to Config.MaxRetries times,
//     with the parse error explained; then the fallback applies (see
//     Play): team = the leader and the seats after it, team vote = reject,
//     quest card = success, assassination = a seeded draw among the seats
//     the Assassin does not know to be evil. Each is a logged event.
//     The reference let Good players fail quests; here a Good fail is
//     turned into a success (a coerced event) unless Config.AllowGoodFail.
//  3. First leader (§1.9.3): uniform over all seats, including the last.
//  4. Memory factory (§1.9.4): not applicable; a seat's memory is the
//     game's own history of what that seat saw.
//  5. Truncation (§1.9.5): the history shown is bounded by
//     Config.MaxHistoryBytes, dropping the oldest messages (with a note of
//     how many); the rules and the seat's role live in the system prompt
//     and are never dropped, so truncation always ends. Replies are cut at
//     MaxParseBytes. Every message is shown whole.
//  6. Recorded prompts (§1.9.6): with Config.LogCalls every call is logged
//     with the exact messages sent, the full reply and the completion's
//     token ids when the model reports them.
//  7. Training one seat (§1.9.7): Env is the training environment. A
//     task trains exactly one seat (a fixed seat, one drawn per task, or
//     the seat dealt a role); every other seat is a fixed model (the
//     baselines, or any llm.ChatModel in EnvConfig.Models, such as an
//     earlier snapshot of the policy). The trained seat is always asked
//     in the first discussion round, so no episode is empty; an episode
//     whose calls were all skipped has no samples and is not trained on,
//     rather than failing the batch.
//  8. Group weighting (§1.9.8): trained with the per_call context
//     manager, each call of the seat is one sample, and by default the
//     trainer computes GRPO statistics over games, not calls, giving each
//     of a game's k calls 1/k of its advantage
//     (trainer.ComputeEpisodeGRPOAdvantages); the reference's
//     call-weighted groups remain available (rollout.per_call
//     .group_weighting: call).
//  9. The leaderboard (§1.9.9) is the arena package's.
//  10. Seeding (§1.9.10): a game is a pure function of its seed and its
//     models. The deal, the first leader and the fallback draws come from
//     math/rand/v2 PCG generators seeded with the game seed (one stream
//     each); each call's llm.ChatOptions.Seed is derived from the game
//     seed, the seat and the call's index; logs hold no wall-clock times.
//     With deterministic models the same seed writes the same log bytes,
//     whether votes are asked concurrently or one by one.
//  11. and 12. The web interface and Diplomacy are not part of this
//     package.
//  13. Numbering (§1.9.13): prompts show quests and proposals 1-based
//     ("Quest 1 of 5, proposal 2 of 5"); log events keep 0-based indices
//     in their quest and proposal fields. Prompts are English only.
//
// The five-proposal rule is the reference's: the fifth proposal of a quest
// is approved whatever the votes (votes are still asked and shown); there
// is no "five rejections and evil wins" rule.
//
// # Roles and what they see
//
// The default cast is the reference's: Merlin and Servants against the
// Assassin and Minions. Roles adds Percival, Morgana, Mordred and Oberon.
// Merlin sees the evil players except Mordred; Percival sees Merlin and
// Morgana without knowing which is which; evil players other than Oberon
// see each other except Oberon; Oberon and Servants see nothing.
//
// # Logs
//
// The log is JSON lines of Event, one object per line with a "seq" and a
// "type" (game_start, role, discussion, team_proposed, team_vote, quest,
// assassination, parse_failure, fallback, coerced, call, game_end). The
// game_start and role events carry secrets (the deal) for the reader of
// the log; no seat ever sees them.
package avalon
