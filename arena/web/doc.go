// Package web serves the arena's web page: Avalon games between models,
// watched live in a browser (observe mode) or played by a person against
// models (participate mode).
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
// new one as it happens (event), the person's open question and its
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
// over.
//
// # Limits and shutdown
//
// New-game bodies are bounded and strictly decoded; sockets and API calls
// from a browser must come from the server's own origin or
// Config.OriginPatterns; each socket write has Config.WriteTimeout; games,
// kept games and viewers per game are bounded. A slow connection lags
// behind the game and never blocks it: connections follow the game's state
// rather than queueing messages. A question to the person waits for as
// long as one of the person's connections is open; once none has been for
// Config.PersonTimeout (the page closed, or never opened), the game stops
// with ErrPersonLeft and frees its place. Close cancels every game (a person's
// pending question included) and connection and waits for their
// goroutines.
package web
