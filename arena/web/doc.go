// Package web serves the arena's web page: Avalon and Diplomacy games
// between models, watched live in a browser (observe mode) or played by a
// person against models (participate mode). The Avalon page is described
// first; the Diplomacy page, which shares the server, its limits and its
// rules for people, follows under "Diplomacy".
//
// A Server is an http.Handler. Its page and script are embedded (plain
// HTML, CSS and JavaScript, no build step, nothing fetched from elsewhere).
// POST /api/games starts a game with a model per seat, chosen by name from
// Config.Models; the game runs avalon.Play in the server's goroutine and
// its JSON-lines log is the server's record of the game, so a browser sees
// the same typed events (avalon.Event) as a log reader.
//
// # WebSocket protocol
//
// GET /ws/{id} opens a game's socket; ?token= (from the new-game answer)
// makes it the person's. Every message is one JSON text frame.
//
// The server sends, in order: hello (the GameInfo, the connection's seat or
// -1, and whether it receives secrets), then every event so far and each
// new one as it happens (event; its seq counts the events this connection
// is sent, from 0, so a hidden event leaves no gap), the person's open question and its
// closing (question, question_closed; only to the person's connections),
// and status once the connection has caught up with the events so far and
// again whenever the game finishes, is stopped or fails. Replies to bad
// client messages are error messages; the connection stays open until 16
// of them.
//
// The client sends only answer messages ({"type":"answer","id":N} plus
// exactly one of "team", "vote", "target", "text"), which must fit the open
// question: a team of the quest's size of distinct seats, a vote, a target
// other than the Assassin, or at most MaxSpeechBytes of text. The server
// writes the answer as the reply the game's parsers read ("[0, 3]", "Yes",
// "Player 2", the text), so a person's action is never misread or replaced
// by a fallback. A frame over Config.MaxMessageBytes closes the socket with
// status 1009 (message too big).
//
// # Who sees what
//
// Observers of a game without a person receive every event, secrets
// included (the deal, each seat's knowledge, who played which quest card);
// the page hides them behind a "show hidden information" toggle. In a game
// a person plays, everyone (the person and any observer) receives only what
// is public at the table (discussion, proposals, open team votes, quest
// results as numbers of fails, the assassination and the end, which names
// every role), and the person also receives their own role event and each
// question with the exact messages their seat's model would have been
// sent (avalon.ReadQuestion reads the action from them). The seed, from
// which the deal follows, and the log are withheld until such a game is
// over; the game list counts only its public events meanwhile. A person
// game's seed is always drawn by the server (a request that names one is
// refused), since a person who chose it could read the deal off an observe
// game with the same seed. Only the person (with the token) may stop it.
//
// # Limits and shutdown
//
// Every request must name the server in its Host header (the address the
// connection arrived on, localhost, 127.0.0.1 or [::1] with its port, or
// Config.AllowedHosts), so that a page whose name was rebound to the
// server's address (DNS rebinding) is refused. New-game bodies are bounded
// and strictly decoded (one JSON object, nothing after it); sockets and
// state-changing API calls from a browser must come from the server's own
// origin or Config.OriginPatterns; each socket write has
// Config.WriteTimeout; observe games, person games (apart, so that people
// who do not answer never hold the places of observe games), kept games and
// viewers per game are bounded. The HTTP server around the handler should
// bound reads, writes, idle connections and their number, as arena serve
// does. A slow connection lags behind the game and never blocks it:
// connections follow the game's state rather than queueing messages. A
// question to the person waits while one of the person's connections is
// open, up to Config.AnswerTimeout (page open or not; the game then stops
// with ErrNoAnswer); once none of them has been open for
// Config.PersonTimeout (the page closed, or never opened), the game stops
// with ErrPersonLeft. Either way it frees its place, and no model plays the
// seat instead. Close cancels every game (a person's pending question
// included) and connection and waits for their goroutines.
//
// # Diplomacy
//
// POST /api/diplomacy/games (DipNewGameRequest) starts a game of package
// arena/diplomacy/dipgame with a model per power, by name, from
// Config.DiplomacyModels: by default the bots random and greedy, so that a
// game runs with no model at all (arena serve adds every endpoint --model).
// Avalon's baselines read only Avalon's questions and are not offered.
// The request may set the phase limit (1 to MaxDiplomacyPhases), the
// negotiation rounds (0 to MaxNegotiationRounds), a per-call delay and, in
// participate mode, person_power; the rules of Avalon's requests apply
// (strict decoding, a person game's seed drawn by the server). The game's
// page is /diplomacy/{id}; it draws the board as an SVG map from GET
// /api/diplomacy/map (MapInfo: every province of the engine's map at a
// point of a checked-in schematic, its terrain, supply centre and home,
// and the borders each unit type may cross), with the units (armies and
// fleets in their power's colour, dislodged ones apart), the supply
// centres in their owner's colour and a phase's orders (moves and
// retreats as arrows, supports and convoys as dashed and dotted lines to
// the move they help, holds and builds as rings, disbands crossed out,
// failed orders in red). A list of phases steps back through the game:
// each processed phase shows the board it started from with its orders,
// results and negotiation messages; the current board shows the last
// phase's orders faintly.
//
// GET /ws/diplomacy/{id}[?token=] follows the game as Avalon's socket
// does (DipServerMessage frames: hello, event, question, question_closed,
// status, error). The game reports its progress through
// dipgame.Config.Observe, so events arrive as phases are played: the
// board of each phase (position), each negotiation round (negotiation)
// and each adjudicated phase with its orders and results (phase). Every
// viewer is sent every event, numbered from 0; what is filtered is inside
// them. Observers of a game without a person see everything, every
// private message and refused order included. In a person's game boards,
// orders and results are public (the game announces every power's orders
// to all), a private message is shown only to its sender and recipient
// (so to the person when it is theirs, never to an observer), and refused
// orders only to their power.
//
// The person's power asks through the page what its model would be asked
// (dipgame.ReadQuestion reads the prompt): a negotiation question (answer
// {"type":"messages","id":N,"messages":[{"recipient","content"}]}, up to
// dipgame.MaxMessagesPerReply messages to another power or GLOBAL; an
// empty list sends none) or an orders question with the possible orders
// per location (answer {"type":"orders","id":N,"orders":[...]}, at most
// one per location; units without one hold). An answer may name the
// power, which must be the person's. The server checks the answer against
// the question (a possible order of the person's units, not two for one
// unit, builds and disbands within the power's count; a known recipient
// other than oneself, no empty message), writes it as the reply the
// game's parsers read (`PARSABLE OUTPUT: {"orders": [...]}`, a JSON array
// of messages with <, > and & escaped), and reads that reply back with
// the same parser: what would be read otherwise is refused. Malformed,
// illegal, out-of-turn (no question open, another question's id) and
// wrong-power answers get an error message and change nothing. Only the
// token opens the person's socket, and only the token stops the game;
// Config.AnswerTimeout and Config.PersonTimeout apply as for Avalon. The
// log (dipgame.Log, the reference's game_log.json shape) is served by GET
// /api/diplomacy/games/{id}/log once the game is over (finished, stopped
// or failed; 409 before), and the page links it. Diplomacy games count
// under MaxGames, MaxPersonGames and MaxKept together with Avalon games.
package web
