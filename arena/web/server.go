package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/org/agentevolver/arena"
	"github.com/org/agentevolver/arena/avalon"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
	"github.com/org/agentevolver/internal/hostcheck"
	"github.com/org/agentevolver/llm"
)

//go:embed static
var staticFiles embed.FS

// Defaults of Config's zero fields.
const (
	DefaultMaxGames        = 8
	DefaultMaxPersonGames  = 4
	DefaultMaxKept         = 32
	DefaultMaxViewers      = 32
	DefaultMaxMessageBytes = 8 << 10
	DefaultWriteTimeout    = 10 * time.Second
	DefaultPersonTimeout   = 5 * time.Minute
	DefaultAnswerTimeout   = 10 * time.Minute
	// MaxDelay bounds the per-move delay a new-game request may ask for.
	MaxDelay = 10 * time.Second
	// maxRequestBytes bounds a new-game request body.
	maxRequestBytes = 16 << 10
	// maxBadMessages is how many bad client messages close a connection.
	maxBadMessages = 16
)

// Config configures a Server. The zero value serves the built-in models.
type Config struct {
	// Models are the models a new game may seat, by name; nil means
	// DefaultModels(). Names must be unique and not PersonModel. Each
	// model may hold several seats of several games at once, so it must be
	// safe for concurrent use (as every llm.ChatModel is).
	Models []arena.Entrant
	// Game is the base configuration of every game; Players and Roles come
	// from the request, SeatNames from the seating, Logger from here.
	Game avalon.Config
	// DiplomacyModels are the models a Diplomacy game may seat, by name;
	// nil means DefaultDiplomacyModels() (the bots random and greedy, so
	// that games run with no model at all). Avalon's baselines read only
	// Avalon's questions, so the two games have lists of their own; a
	// general model (an endpoint) belongs in both. The rules of Models
	// apply.
	DiplomacyModels []arena.Entrant
	// Diplomacy is the base configuration of every Diplomacy game;
	// MaxPhases and NegotiationRounds may be set per game by the request,
	// SeatNames, GameID, Observe and Logger are set by the server.
	Diplomacy dipgame.Config
	// MaxGames bounds the observe games (games without a person, Avalon
	// and Diplomacy together) running at once; 0 means DefaultMaxGames.
	MaxGames int
	// MaxPersonGames bounds the person games running at once, apart from
	// MaxGames, so that games waiting on people who do not answer never
	// take the places of observe games; 0 means DefaultMaxPersonGames.
	MaxPersonGames int
	// MaxKept bounds the games held (finished ones are dropped oldest
	// first); 0 means DefaultMaxKept. It is raised to MaxGames +
	// MaxPersonGames when lower.
	MaxKept int
	// MaxViewers bounds the connections to one game; 0 means
	// DefaultMaxViewers.
	MaxViewers int
	// MaxMessageBytes bounds a client WebSocket message; a larger one
	// closes the connection (status 1009). 0 means DefaultMaxMessageBytes.
	MaxMessageBytes int
	// WriteTimeout bounds each write to a connection; a connection that
	// cannot take a message in time is closed. 0 means DefaultWriteTimeout.
	WriteTimeout time.Duration
	// PersonTimeout is how long a question to the person waits while none
	// of the person's connections is open (the page was closed, or never
	// opened) before the game is stopped with ErrPersonLeft, so that an
	// abandoned game does not hold its place under MaxPersonGames for
	// ever. Reconnecting in time, even without answering, keeps the game
	// (until AnswerTimeout). 0 means DefaultPersonTimeout; a negative value
	// waits until the game is stopped or the server closed, as the
	// original arena does.
	PersonTimeout time.Duration
	// AnswerTimeout bounds how long each question to the person waits for
	// an answer, whether or not the person's page is open, so that a page
	// left open (or a client that holds a socket and never answers) cannot
	// hold a game for ever. When it runs out the game is stopped with
	// ErrNoAnswer (status stopped), which frees its place under
	// MaxPersonGames; no model plays the seat in the person's stead. 0
	// means DefaultAnswerTimeout; a negative value sets no bound.
	AnswerTimeout time.Duration
	// AllowedHosts are the names, besides the server's own, a request's
	// Host header may carry (path.Match patterns of host[:port]; a pattern
	// without a port matches any port): the name of a reverse proxy, or of
	// the machine when the server listens beyond loopback. A request for
	// any other host is refused (403), which defeats DNS rebinding: a page
	// of a foreign site whose name was made to resolve to this server
	// carries that name in Host. The server's own names, always allowed,
	// are the address the connection arrived on and localhost, 127.0.0.1
	// and [::1], each with that address's port.
	AllowedHosts []string
	// OriginPatterns are the browser origins, besides the server's own
	// host, allowed to open sockets, create and stop games (path.Match
	// patterns of host[:port], as in github.com/coder/websocket).
	OriginPatterns []string
	// Logger receives connection and game records; nil discards them.
	Logger *slog.Logger
}

// DefaultModels are the built-in seat models: the avalon package's
// baselines under the names of the arena command's specs.
func DefaultModels() []arena.Entrant {
	return []arena.Entrant{
		{Name: "informed", Model: avalon.Random{Informed: true}},
		{Name: "random", Model: avalon.Random{}},
		{Name: "saboteur", Model: avalon.Random{FailProb: 1}},
		{Name: "cautious", Model: avalon.Random{ApproveProb: 0.2, FailProb: -1}},
	}
}

// Server serves the arena's web page and its games: an http.Handler with
//
//	GET  /                      the game list and new-game form
//	GET  /game/{id}             a game's page (observe; participate with ?token=)
//	GET  /static/...            the page's script and style sheet
//	GET  /api/options           the models and limits the form offers
//	GET  /api/games             the games held, newest first
//	POST /api/games             start a game (NewGameRequest) → NewGameResponse
//	POST /api/games/{id}/stop   stop a running game (a person's: ?token=)
//	GET  /api/games/{id}/log    a game's JSON-lines log (once no person is playing it)
//	GET  /ws/{id}[?token=]      the game's WebSocket (see the package doc)
//
// and the same for Diplomacy games (see "Diplomacy" in the package doc):
//
//	GET  /diplomacy/{id}                  a game's page (participate with ?token=)
//	GET  /api/diplomacy/options           the models and bounds the form offers
//	GET  /api/diplomacy/map               the map the page draws (MapInfo)
//	GET  /api/diplomacy/games             the games held, newest first
//	POST /api/diplomacy/games             start a game (DipNewGameRequest) → DipNewGameResponse
//	POST /api/diplomacy/games/{id}/stop   stop a running game (a person's: ?token=)
//	GET  /api/diplomacy/games/{id}/log    the game's log (dipgame.Log) once it is over
//	GET  /ws/diplomacy/{id}[?token=]      the game's WebSocket
//
// Every request must name the server in its Host header (see
// Config.AllowedHosts); the routes that change state must come from the
// server's own origin or Config.OriginPatterns when they come from a
// browser. Games run in the server's goroutines until they end, are
// stopped or the server is closed. A Server is safe for concurrent use.
type Server struct {
	cfg    Config
	logger *slog.Logger
	mux    *http.ServeMux
	models map[string]arena.Entrant
	names  []string
	// drawSeed draws the seed of a game whose request names none (every
	// person game); tests replace it to deal a known hand.
	drawSeed func() uint64

	dipModels map[string]arena.Entrant
	dipNames  []string
	mapJSON   []byte // the Diplomacy map as the page draws it (MapInfo)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	games  map[string]*game
	dgames map[string]*dipGame
	order  []string // creation order, of both kinds
	closed bool
}

// New returns a Server. Close it to stop its games and connections.
func New(cfg Config) (*Server, error) {
	if cfg.Models == nil {
		cfg.Models = DefaultModels()
	}
	if cfg.MaxGames <= 0 {
		cfg.MaxGames = DefaultMaxGames
	}
	if cfg.MaxPersonGames <= 0 {
		cfg.MaxPersonGames = DefaultMaxPersonGames
	}
	if cfg.MaxKept <= 0 {
		cfg.MaxKept = DefaultMaxKept
	}
	if cfg.MaxKept < cfg.MaxGames+cfg.MaxPersonGames {
		cfg.MaxKept = cfg.MaxGames + cfg.MaxPersonGames
	}
	if cfg.MaxViewers <= 0 {
		cfg.MaxViewers = DefaultMaxViewers
	}
	if cfg.MaxMessageBytes <= 0 {
		cfg.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.PersonTimeout == 0 {
		cfg.PersonTimeout = DefaultPersonTimeout
	}
	if cfg.AnswerTimeout == 0 {
		cfg.AnswerTimeout = DefaultAnswerTimeout
	}
	for _, p := range cfg.OriginPatterns {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("%w: origin pattern %q: %w", ErrBadRequest, p, err)
		}
	}
	for _, p := range cfg.AllowedHosts {
		if p == "" {
			return nil, fmt.Errorf("%w: empty host pattern", ErrBadRequest)
		}
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("%w: host pattern %q: %w", ErrBadRequest, p, err)
		}
	}
	s := &Server{cfg: cfg, logger: cfg.Logger, models: map[string]arena.Entrant{}, games: map[string]*game{}, drawSeed: randomSeed,
		dipModels: map[string]arena.Entrant{}, dgames: map[string]*dipGame{}}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	for _, e := range cfg.Models {
		if e.Name == "" || e.Name == PersonModel || e.Model == nil {
			return nil, fmt.Errorf("%w: model %q: want a name other than %q and a model", ErrBadRequest, e.Name, PersonModel)
		}
		if _, dup := s.models[e.Name]; dup {
			return nil, fmt.Errorf("%w: model %q given twice", ErrBadRequest, e.Name)
		}
		s.models[e.Name] = e
		s.names = append(s.names, e.Name)
	}
	if err := s.initDiplomacy(); err != nil {
		return nil, err
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		return nil, fmt.Errorf("web: embedded files: %w", err)
	}
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", s.page(static, "index.html"))
	m.HandleFunc("GET /game/{id}", s.page(static, "game.html"))
	m.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	m.HandleFunc("GET /api/options", s.handleOptions)
	m.HandleFunc("GET /api/games", s.handleList)
	m.HandleFunc("POST /api/games", s.handleCreate)
	m.HandleFunc("POST /api/games/{id}/stop", s.handleStop)
	m.HandleFunc("GET /api/games/{id}/log", s.handleLog)
	m.HandleFunc("GET /ws/{id}", s.handleSocket)
	s.routeDiplomacy(m, static)
	s.mux = m
	return s, nil
}

// ServeHTTP serves the page, the API and the sockets.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
	if err := s.checkHost(r); err != nil {
		writeError(w, http.StatusForbidden, err)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Close stops every game, closes every connection and waits for their
// goroutines; afterwards new games and sockets are refused (503) while the
// pages and the game list are still served. It returns nil.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	return nil
}

func (s *Server) page(static fs.FS, name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := fs.ReadFile(static, name)
		if err != nil {
			http.Error(w, "page missing", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(b)
	}
}

// PageOptions is the answer of GET /api/options: what the new-game form
// offers.
type PageOptions struct {
	// Models are the seat models a game may use, by name.
	Models []string `json:"models"`
	// MinPlayers and MaxPlayers bound a game's seats.
	MinPlayers int `json:"min_players"`
	MaxPlayers int `json:"max_players"`
	// Roles are the optional roles.
	Roles []string `json:"roles"`
	// MaxDelayMS bounds DelayMS.
	MaxDelayMS int `json:"max_delay_ms"`
}

func (s *Server) handleOptions(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, PageOptions{Models: s.names, MinPlayers: avalon.MinPlayers, MaxPlayers: avalon.MaxPlayers,
		Roles: []string{"percival", "morgana", "mordred", "oberon"}, MaxDelayMS: int(MaxDelay / time.Millisecond)})
}

func (s *Server) handleList(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, newestFirst(s, s.games, (*game).info))
}

// newestFirst describes the games of one kind (Avalon's or Diplomacy's,
// held in games) newest first, by the server's creation order. The games
// are picked under the server's lock and described after it, since info
// takes each game's own lock.
func newestFirst[G any, I any](s *Server, games map[string]G, info func(G) I) []I {
	s.mu.Lock()
	gs := make([]G, 0, len(s.order))
	for i := len(s.order) - 1; i >= 0; i-- {
		if g, ok := games[s.order[i]]; ok {
			gs = append(gs, g)
		}
	}
	s.mu.Unlock()
	out := make([]I, len(gs))
	for i, g := range gs {
		out[i] = info(g)
	}
	return out
}

// NewGameRequest is the body of POST /api/games.
type NewGameRequest struct {
	// Players is the number of seats, 5 to 10; 0 means 5.
	Players int `json:"players"`
	// Models names each seat's model (one per seat; the person's seat's
	// entry is ignored). A single name seats that model everywhere.
	Models []string `json:"models"`
	// PersonSeat is the seat a person plays (participate mode); nil or -1
	// means observe mode.
	PersonSeat *int `json:"person_seat,omitempty"`
	// Seed is the game seed of an observe game; nil draws one. A person
	// game may not name one (ErrBadRequest): the deal is a function of the
	// seed, so a person who chose it could learn the deal from an observe
	// game (or an arena run) with the same seed. The server draws a
	// person game's seed and shows it once the game is over.
	Seed *uint64 `json:"seed,omitempty"`
	// Roles names optional roles: percival, morgana, mordred, oberon.
	Roles []string `json:"roles,omitempty"`
	// DelayMS delays each AI move by this many milliseconds, so that a
	// game can be followed; 0 to MaxDelay (10000).
	DelayMS int `json:"delay_ms,omitempty"`
}

// NewGameResponse answers POST /api/games.
type NewGameResponse struct {
	// Game describes the new game.
	Game GameInfo `json:"game"`
	// Token, in participate mode, is the person's seat: the page connects
	// with ?token= to play it. Keep it private.
	Token string `json:"token,omitempty"`
	// URL is the page to open (with the token in participate mode).
	URL string `json:"url"`
}

func (s *Server) handleCreate(w http.ResponseWriter, r *http.Request) {
	var req NewGameRequest
	if !s.decodeRequest(w, r, &req) {
		return
	}
	resp, err := s.Start(req)
	writeStarted(w, resp, err)
}

// decodeRequest checks a request that starts a game (its origin, a JSON
// content type) and decodes its body strictly into v: one JSON object of
// at most maxRequestBytes with known fields only and nothing after it.
// On failure it has answered and returns false.
func (s *Server) decodeRequest(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := checkOrigin(r, s.cfg.OriginPatterns); err != nil {
		writeError(w, http.StatusForbidden, err)
		return false
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, fmt.Errorf("%w: want Content-Type application/json", ErrBadRequest))
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("%w: %v", ErrBadRequest, err))
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		writeError(w, http.StatusBadRequest, fmt.Errorf("%w: trailing data after the request object", ErrBadRequest))
		return false
	}
	return true
}

// writeStarted answers a request that started a game (resp) or failed.
func writeStarted(w http.ResponseWriter, resp any, err error) {
	switch {
	case errors.Is(err, ErrTooManyGames):
		writeError(w, http.StatusTooManyRequests, err)
	case errors.Is(err, ErrClosed):
		writeError(w, http.StatusServiceUnavailable, err)
	case err != nil:
		writeError(w, http.StatusBadRequest, err)
	default:
		writeJSON(w, http.StatusCreated, resp)
	}
}

// Start starts a game, as POST /api/games does. Errors wrap ErrBadRequest,
// ErrTooManyGames (MaxGames observe games or MaxPersonGames person games
// are running) or ErrClosed.
func (s *Server) Start(req NewGameRequest) (NewGameResponse, error) {
	if req.Players == 0 {
		req.Players = avalon.DefaultPlayers
	}
	setup, err := avalon.SetupFor(req.Players)
	if err != nil {
		return NewGameResponse{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	var roles avalon.Roles
	for _, name := range req.Roles {
		switch name {
		case "percival":
			roles.Percival = true
		case "morgana":
			roles.Morgana = true
		case "mordred":
			roles.Mordred = true
		case "oberon":
			roles.Oberon = true
		default:
			return NewGameResponse{}, fmt.Errorf("%w: unknown role %q", ErrBadRequest, clip(name, 32))
		}
	}
	if _, err := roles.Cast(setup); err != nil {
		return NewGameResponse{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	person := -1
	if req.PersonSeat != nil {
		person = *req.PersonSeat
	}
	if person < -1 || person >= req.Players {
		return NewGameResponse{}, fmt.Errorf("%w: person seat %d of %d players", ErrBadRequest, person, req.Players)
	}
	names := req.Models
	if len(names) == 1 {
		names = slices.Repeat(names, req.Players)
	}
	if len(names) != req.Players {
		return NewGameResponse{}, fmt.Errorf("%w: %d models for %d players", ErrBadRequest, len(names), req.Players)
	}
	if person >= 0 && req.Seed != nil {
		return NewGameResponse{}, fmt.Errorf("%w: a person game's seed is drawn by the server (a chosen seed would reveal the deal); it is shown once the game is over", ErrBadRequest)
	}
	// Compared in milliseconds: converting first would overflow.
	if req.DelayMS < 0 || int64(req.DelayMS) > int64(MaxDelay/time.Millisecond) {
		return NewGameResponse{}, fmt.Errorf("%w: delay %d ms (0 to %d)", ErrBadRequest, req.DelayMS, MaxDelay/time.Millisecond)
	}
	g := newGame(s.cfg)
	g.setup, g.personSeat, g.created, g.models = setup, person, time.Now().UTC(), make([]string, req.Players)
	seats := make([]llm.ChatModel, req.Players)
	for i, n := range names {
		if i == person {
			g.models[i] = PersonModel
			seats[i] = personSeat{g}
			continue
		}
		e, ok := s.models[n]
		if !ok {
			return NewGameResponse{}, fmt.Errorf("%w: seat %d: unknown model %q", ErrBadRequest, i, clip(n, 64))
		}
		g.models[i] = e.Name
		seats[i] = e.Model
		if req.DelayMS > 0 {
			seats[i] = paced{e.Model, time.Duration(req.DelayMS) * time.Millisecond}
		}
	}
	if req.Seed != nil {
		g.seed = *req.Seed
	} else {
		g.seed = s.drawSeed()
	}
	g.id = randomHex(6)
	if person >= 0 {
		g.token = randomHex(16)
	}
	cfg := s.cfg.Game
	cfg.Players, cfg.Roles, cfg.SeatNames = req.Players, roles, g.models
	cfg.Logger = s.logger.With("game", g.id)

	err = s.launch(g.id, person >= 0, func(cancel context.CancelFunc) {
		g.cancel = cancel
		s.games[g.id] = g
	}, func(ctx context.Context, cancel context.CancelFunc) {
		defer close(g.done)
		defer cancel()
		res, err := playSafely(ctx, cfg, g.seed, seats, g)
		g.finish(res, err)
		if err != nil {
			s.logger.Info("arena web: game ended early", "game", g.id, "err", err)
		} else {
			s.logger.Info("arena web: game finished", "game", g.id, "good_wins", res.GoodWins)
		}
	})
	if err != nil {
		return NewGameResponse{}, err
	}
	resp := NewGameResponse{Game: g.info(), Token: g.token, URL: "/game/" + g.id}
	if g.token != "" {
		resp.URL += "?token=" + g.token
	}
	return resp, nil
}

// launch starts a new game within the limits: unless the server is
// closed (ErrClosed) or MaxPersonGames person games (person) or MaxGames
// observe games are running (ErrTooManyGames), it drops old finished
// games, registers the game (add, called under s.mu with the cancel of
// the game's context, puts it in its map) and runs play in a goroutine
// that Close waits for; play must call cancel when it is done.
func (s *Server) launch(id string, person bool, add func(context.CancelFunc), play func(context.Context, context.CancelFunc)) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	observed, played := s.runningLocked()
	if person && played >= s.cfg.MaxPersonGames {
		s.mu.Unlock()
		return fmt.Errorf("%w: %d person games", ErrTooManyGames, played)
	}
	if !person && observed >= s.cfg.MaxGames {
		s.mu.Unlock()
		return fmt.Errorf("%w: %d observe games", ErrTooManyGames, observed)
	}
	s.evictLocked()
	ctx, cancel := context.WithCancel(s.ctx)
	add(cancel)
	s.order = append(s.order, id)
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		play(ctx, cancel)
	}()
	return nil
}

// playSafely plays a game and turns a panic (in a user's model, say) into
// an error.
func playSafely(ctx context.Context, cfg avalon.Config, seed uint64, seats []llm.ChatModel, g *game) (res avalon.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("web: game panicked: %v", p)
		}
	}()
	return avalon.Play(ctx, cfg, seed, seats, g)
}

// runningLocked counts the running observe games and person games, of
// both kinds.
func (s *Server) runningLocked() (observed, played int) {
	for _, other := range s.games {
		switch {
		case other.info().Status != StatusRunning:
		case other.personSeat >= 0:
			played++
		default:
			observed++
		}
	}
	for _, other := range s.dgames {
		switch {
		case other.info().Status != StatusRunning:
		case other.person.Valid():
			played++
		default:
			observed++
		}
	}
	return observed, played
}

// evictLocked drops the oldest finished games (of both kinds) beyond
// MaxKept-1.
func (s *Server) evictLocked() {
	for len(s.order) >= s.cfg.MaxKept {
		idx := -1
		for i, id := range s.order {
			if g, ok := s.games[id]; ok && g.info().Status != StatusRunning && g.viewers == 0 {
				idx = i
				break
			}
			if g, ok := s.dgames[id]; ok && g.info().Status != StatusRunning && g.viewers == 0 {
				idx = i
				break
			}
		}
		if idx < 0 {
			return
		}
		delete(s.games, s.order[idx])
		delete(s.dgames, s.order[idx])
		s.order = slices.Delete(s.order, idx, idx+1)
	}
}

func (s *Server) lookup(id string) (*game, error) { return lookupIn(s, s.games, id) }

// lookupIn finds game id in games (one of the server's maps).
func lookupIn[G any](s *Server, games map[string]G, id string) (G, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := games[id]
	if !ok {
		return g, fmt.Errorf("%w: %q", ErrNoGame, clip(id, 32))
	}
	return g, nil
}

// stoppable is what a stop request needs of a game of either kind.
type stoppable interface {
	// personToken is the person's token, "" in observe mode.
	personToken() string
	stop()
	ended() <-chan struct{}
	publicInfo() any
}

func (g *game) personToken() string       { return g.token }
func (g *game) ended() <-chan struct{}    { return g.done }
func (g *game) publicInfo() any           { return g.info() }
func (g *dipGame) personToken() string    { return g.token }
func (g *dipGame) ended() <-chan struct{} { return g.done }
func (g *dipGame) publicInfo() any        { return g.info() }

func (s *Server) handleStop(w http.ResponseWriter, r *http.Request) { stopIn(s, w, r, s.games) }

// stopIn answers a stop request for a game of games: from an allowed
// origin, with the person's token when the game has one, it stops the
// game and answers its info once it has ended.
func stopIn[G stoppable](s *Server, w http.ResponseWriter, r *http.Request, games map[string]G) {
	if err := checkOrigin(r, s.cfg.OriginPatterns); err != nil {
		writeError(w, http.StatusForbidden, err)
		return
	}
	g, err := lookupIn(s, games, r.PathValue("id"))
	if err != nil {
		writeError(w, http.StatusNotFound, err)
		return
	}
	if tok := g.personToken(); tok != "" && !tokenMatches(r.URL.Query().Get("token"), tok) {
		writeError(w, http.StatusForbidden, fmt.Errorf("%w: stopping a person's game takes its token", ErrForbidden))
		return
	}
	g.stop()
	<-g.ended()
	writeJSON(w, http.StatusOK, g.publicInfo())
}

func (s *Server) handleLog(w http.ResponseWriter, r *http.Request) {
	g, err := s.lookup(r.PathValue("id"))
	if err != nil {
		writeError(w, http.StatusNotFound, err)
		return
	}
	g.mu.Lock()
	hidden := g.personSeat >= 0 && g.status == StatusRunning
	b := slices.Clone(g.log.Bytes())
	g.mu.Unlock()
	if hidden {
		writeError(w, http.StatusForbidden, errors.New("web: the log holds the deal; it is shown once the person's game is over"))
		return
	}
	w.Header().Set("Content-Type", "application/jsonl; charset=utf-8")
	_, _ = w.Write(b)
}

// checkHost refuses a request whose Host header names neither the server
// (the address the connection arrived on, or localhost, 127.0.0.1 or
// [::1] with its port) nor matches Config.AllowedHosts (hostcheck.Check).
func (s *Server) checkHost(r *http.Request) error {
	if err := hostcheck.Check(r, s.cfg.AllowedHosts); err != nil {
		return fmt.Errorf("%w: host %q is not this server's (allow it with Config.AllowedHosts, arena serve --allow-host)", ErrForbidden, clip(r.Host, 64))
	}
	return nil
}

// checkOrigin allows requests without an Origin (not from a browser) and
// browser requests from the server's own host (which checkHost has
// vetted) or an allowed pattern.
func checkOrigin(r *http.Request, patterns []string) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err == nil && strings.EqualFold(u.Host, r.Host) {
		return nil
	}
	if err == nil && u.Host != "" {
		for _, p := range patterns {
			target := u.Host
			if strings.Contains(p, "://") {
				target = u.Scheme + "://" + u.Host
			}
			if ok, _ := path.Match(strings.ToLower(p), strings.ToLower(target)); ok {
				return nil
			}
		}
	}
	return fmt.Errorf("%w: origin %q not allowed", ErrForbidden, clip(origin, 64))
}

// randomSeed draws a game seed from crypto/rand.
func randomSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	var seed uint64
	for _, c := range b {
		seed = seed<<8 | uint64(c)
	}
	return seed
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func tokenMatches(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, map[string]string{"error": err.Error()})
}
