package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/org/agentevolver/arena"
	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
	"github.com/org/agentevolver/llm"
)

// Bounds of a Diplomacy game's settings in a new-game request.
const (
	// MaxDiplomacyPhases bounds DipNewGameRequest.MaxPhases.
	MaxDiplomacyPhases = 100
	// MaxNegotiationRounds bounds DipNewGameRequest.NegotiationRounds.
	MaxNegotiationRounds = 5
)

// DefaultDiplomacyModels are the built-in Diplomacy models: the dipgame
// bots, random (one random possible order per unit) and greedy (takes
// centres, supports its attacks). Neither sends messages.
func DefaultDiplomacyModels() []arena.Entrant {
	return []arena.Entrant{
		{Name: "random", Model: dipgame.Random{}},
		{Name: "greedy", Model: dipgame.Greedy{}},
	}
}

// initDiplomacy checks the Diplomacy models and builds the map.
func (s *Server) initDiplomacy() error {
	models := s.cfg.DiplomacyModels
	if models == nil {
		models = DefaultDiplomacyModels()
	}
	for _, e := range models {
		if e.Name == "" || e.Name == PersonModel || e.Model == nil {
			return fmt.Errorf("%w: diplomacy model %q: want a name other than %q and a model", ErrBadRequest, e.Name, PersonModel)
		}
		if _, dup := s.dipModels[e.Name]; dup {
			return fmt.Errorf("%w: diplomacy model %q given twice", ErrBadRequest, e.Name)
		}
		s.dipModels[e.Name] = e
		s.dipNames = append(s.dipNames, e.Name)
	}
	info, err := standardMapInfo()
	if err != nil {
		return err
	}
	s.mapJSON, err = json.Marshal(info)
	if err != nil {
		return fmt.Errorf("web: encode the map: %w", err)
	}
	return nil
}

func (s *Server) routeDiplomacy(m *http.ServeMux, static fs.FS) {
	m.HandleFunc("GET /diplomacy/{id}", s.page(static, "diplomacy.html"))
	m.HandleFunc("GET /api/diplomacy/options", s.handleDipOptions)
	m.HandleFunc("GET /api/diplomacy/map", s.handleDipMap)
	m.HandleFunc("GET /api/diplomacy/games", s.handleDipList)
	m.HandleFunc("POST /api/diplomacy/games", s.handleDipCreate)
	m.HandleFunc("POST /api/diplomacy/games/{id}/stop", s.handleDipStop)
	m.HandleFunc("GET /api/diplomacy/games/{id}/log", s.handleDipLog)
	m.HandleFunc("GET /ws/diplomacy/{id}", s.handleDipSocket)
}

// DipPageOptions is the answer of GET /api/diplomacy/options: what the
// Diplomacy new-game form offers.
type DipPageOptions struct {
	// Models are the models a power may be played by, by name.
	Models []string `json:"models"`
	// Powers are the seven powers, in the order of a request's Models.
	Powers []string `json:"powers"`
	// MaxPhases and NegotiationRounds are the defaults; MaxMaxPhases and
	// MaxNegotiationRounds their bounds.
	MaxPhases            int `json:"max_phases"`
	NegotiationRounds    int `json:"negotiation_rounds"`
	MaxMaxPhases         int `json:"max_max_phases"`
	MaxNegotiationRounds int `json:"max_negotiation_rounds"`
	// MaxDelayMS bounds DelayMS.
	MaxDelayMS int `json:"max_delay_ms"`
}

func (s *Server) dipDefaults() (phases, rounds int) {
	phases, rounds = s.cfg.Diplomacy.MaxPhases, s.cfg.Diplomacy.NegotiationRounds
	if phases == 0 {
		phases = dipgame.DefaultMaxPhases
	}
	switch {
	case rounds == 0:
		rounds = dipgame.DefaultNegotiationRounds
	case rounds < 0:
		rounds = 0
	}
	return phases, rounds
}

func (s *Server) handleDipOptions(w http.ResponseWriter, _ *http.Request) {
	phases, rounds := s.dipDefaults()
	o := DipPageOptions{Models: s.dipNames, MaxPhases: phases, NegotiationRounds: rounds,
		MaxMaxPhases: MaxDiplomacyPhases, MaxNegotiationRounds: MaxNegotiationRounds, MaxDelayMS: int(MaxDelay / time.Millisecond)}
	for _, p := range diplomacy.Powers() {
		o.Powers = append(o.Powers, p.String())
	}
	writeJSON(w, http.StatusOK, o)
}

func (s *Server) handleDipMap(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "max-age=3600")
	_, _ = w.Write(s.mapJSON)
}

func (s *Server) handleDipList(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, newestFirst(s, s.dgames, (*dipGame).info))
}

// DipNewGameRequest is the body of POST /api/diplomacy/games.
type DipNewGameRequest struct {
	// Models names each power's model, in diplomacy.Powers order
	// (AUSTRIA, ENGLAND, FRANCE, GERMANY, ITALY, RUSSIA, TURKEY; the
	// person's power's entry is ignored). A single name seats that model
	// everywhere.
	Models []string `json:"models"`
	// PersonPower is the power a person plays (participate mode); ""
	// means observe mode.
	PersonPower string `json:"person_power,omitempty"`
	// Seed is the game seed of an observe game; nil draws one. A person
	// game may not name one, as in NewGameRequest.
	Seed *uint64 `json:"seed,omitempty"`
	// MaxPhases ends the game after this many processed phases, 1 to
	// MaxDiplomacyPhases; 0 means the server's default (20).
	MaxPhases int `json:"max_phases,omitempty"`
	// NegotiationRounds before each movement phase, 0 to
	// MaxNegotiationRounds; nil means the server's default (3).
	NegotiationRounds *int `json:"negotiation_rounds,omitempty"`
	// DelayMS delays each model call by this many milliseconds, 0 to
	// MaxDelay (10000), so that a game between bots can be followed.
	DelayMS int `json:"delay_ms,omitempty"`
}

// DipNewGameResponse answers POST /api/diplomacy/games.
type DipNewGameResponse struct {
	// Game describes the new game.
	Game DipGameInfo `json:"game"`
	// Token, in participate mode, is the person's power: the page
	// connects with ?token= to play it. Keep it private.
	Token string `json:"token,omitempty"`
	// URL is the page to open (with the token in participate mode).
	URL string `json:"url"`
}

func (s *Server) handleDipCreate(w http.ResponseWriter, r *http.Request) {
	var req DipNewGameRequest
	if !s.decodeRequest(w, r, &req) {
		return
	}
	resp, err := s.StartDiplomacy(req)
	writeStarted(w, resp, err)
}

// StartDiplomacy starts a Diplomacy game, as POST /api/diplomacy/games
// does. Errors wrap ErrBadRequest, ErrTooManyGames (MaxGames observe games
// or MaxPersonGames person games, of both kinds, are running) or
// ErrClosed.
func (s *Server) StartDiplomacy(req DipNewGameRequest) (DipNewGameResponse, error) {
	person := diplomacy.NoPower
	if req.PersonPower != "" {
		p, err := diplomacy.ParsePower(req.PersonPower)
		if err != nil {
			return DipNewGameResponse{}, fmt.Errorf("%w: unknown power %q", ErrBadRequest, clip(req.PersonPower, 32))
		}
		person = p
	}
	names := req.Models
	if len(names) == 1 {
		names = []string{names[0], names[0], names[0], names[0], names[0], names[0], names[0]}
	}
	if len(names) != diplomacy.NumPowers {
		return DipNewGameResponse{}, fmt.Errorf("%w: %d models for %d powers", ErrBadRequest, len(names), diplomacy.NumPowers)
	}
	if person.Valid() && req.Seed != nil {
		return DipNewGameResponse{}, fmt.Errorf("%w: a person game's seed is drawn by the server (a chosen seed would let the bots' answers be replayed); it is shown once the game is over", ErrBadRequest)
	}
	if req.DelayMS < 0 || int64(req.DelayMS) > int64(MaxDelay/time.Millisecond) {
		return DipNewGameResponse{}, fmt.Errorf("%w: delay %d ms (0 to %d)", ErrBadRequest, req.DelayMS, MaxDelay/time.Millisecond)
	}
	cfg := s.cfg.Diplomacy
	cfg.MaxPhases, cfg.NegotiationRounds = s.dipDefaults()
	if req.MaxPhases != 0 {
		if req.MaxPhases < 1 || req.MaxPhases > MaxDiplomacyPhases {
			return DipNewGameResponse{}, fmt.Errorf("%w: max_phases %d (1 to %d)", ErrBadRequest, req.MaxPhases, MaxDiplomacyPhases)
		}
		cfg.MaxPhases = req.MaxPhases
	}
	if req.NegotiationRounds != nil {
		if n := *req.NegotiationRounds; n < 0 || n > MaxNegotiationRounds {
			return DipNewGameResponse{}, fmt.Errorf("%w: negotiation_rounds %d (0 to %d)", ErrBadRequest, n, MaxNegotiationRounds)
		}
		cfg.NegotiationRounds = *req.NegotiationRounds
	}
	rounds := cfg.NegotiationRounds
	if rounds == 0 {
		cfg.NegotiationRounds = -1 // none
	}
	g := newDipGame(s.cfg)
	g.person, g.created, g.maxPhases, g.rounds = person, time.Now().UTC(), cfg.MaxPhases, rounds
	g.models, g.phase = make([]string, diplomacy.NumPowers), diplomacy.FirstPhase.String()
	seats := make([]llm.ChatModel, diplomacy.NumPowers)
	for i, p := range diplomacy.Powers() {
		if p == person {
			g.models[i] = PersonModel
			seats[i] = dipPerson{g}
			continue
		}
		e, ok := s.dipModels[names[i]]
		if !ok {
			return DipNewGameResponse{}, fmt.Errorf("%w: %s: unknown model %q (the server offers %s)", ErrBadRequest, p, clip(names[i], 64), strings.Join(s.dipNames, ", "))
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
	if person.Valid() {
		g.token = randomHex(16)
	}
	cfg.SeatNames, cfg.GameID, cfg.Observe = g.models, g.id, g.observe
	cfg.Logger = s.logger.With("game", g.id)

	err := s.launch(g.id, person.Valid(), func(cancel context.CancelFunc) {
		g.cancel = cancel
		s.dgames[g.id] = g
	}, func(ctx context.Context, cancel context.CancelFunc) {
		defer close(g.done)
		defer cancel()
		res, err := playDipSafely(ctx, cfg, g.seed, seats, g)
		g.finish(res, err)
		if err != nil {
			s.logger.Info("arena web: diplomacy game ended early", "game", g.id, "err", err)
		} else {
			s.logger.Info("arena web: diplomacy game finished", "game", g.id, "winner", res.Winner.String())
		}
	})
	if err != nil {
		return DipNewGameResponse{}, err
	}
	resp := DipNewGameResponse{Game: g.info(), Token: g.token, URL: "/diplomacy/" + g.id}
	if g.token != "" {
		resp.URL += "?token=" + g.token
	}
	return resp, nil
}

// playDipSafely plays a game and turns a panic (in a user's model, say)
// into an error.
func playDipSafely(ctx context.Context, cfg dipgame.Config, seed uint64, seats []llm.ChatModel, g *dipGame) (res dipgame.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("web: game panicked: %v", p)
		}
	}()
	return dipgame.Play(ctx, cfg, seed, seats, g)
}

func (s *Server) lookupDip(id string) (*dipGame, error) { return lookupIn(s, s.dgames, id) }

func (s *Server) handleDipStop(w http.ResponseWriter, r *http.Request) { stopIn(s, w, r, s.dgames) }

// handleDipLog serves the game's log (dipgame.Log, the reference's
// game_log.json shape) once the game is over.
func (s *Server) handleDipLog(w http.ResponseWriter, r *http.Request) {
	g, err := s.lookupDip(r.PathValue("id"))
	if err != nil {
		writeError(w, http.StatusNotFound, err)
		return
	}
	select {
	case <-g.done:
	default:
		writeError(w, http.StatusConflict, errors.New("web: a Diplomacy game's log is written when the game is over"))
		return
	}
	g.mu.Lock()
	b := append([]byte(nil), g.log.Bytes()...)
	g.mu.Unlock()
	if len(b) == 0 {
		writeError(w, http.StatusNotFound, errors.New("web: the game wrote no log"))
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="diplomacy-%s.json"`, g.id))
	_, _ = w.Write(b)
}

// handleDipSocket serves one WebSocket connection to a Diplomacy game.
func (s *Server) handleDipSocket(w http.ResponseWriter, r *http.Request) {
	if err := checkOrigin(r, s.cfg.OriginPatterns); err != nil {
		writeError(w, http.StatusForbidden, err)
		return
	}
	g, err := s.lookupDip(r.PathValue("id"))
	if err != nil {
		writeError(w, http.StatusNotFound, err)
		return
	}
	v := dipViewer{}
	if tok := r.URL.Query().Get("token"); tok != "" {
		if !tokenMatches(tok, g.token) {
			writeError(w, http.StatusForbidden, fmt.Errorf("%w: wrong token", ErrForbidden))
			return
		}
		v.power = g.person
	}
	v.all = !g.person.Valid()
	c, release := s.accept(w, r, g.id, &g.viewers)
	if c == nil {
		return
	}
	defer release()
	if v.power.Valid() {
		g.place.joined()
		defer g.place.gone()
	}
	s.serveSocket(c, g.id, func(ctx context.Context, conn *connection) error { return followDip(ctx, conn, g, v) },
		func(b []byte) error {
			m, err := ParseDipClientMessage(b, s.cfg.MaxMessageBytes)
			switch {
			case err != nil:
				return err
			case !v.power.Valid():
				return ErrNotPlayer
			}
			return g.answer(m)
		})
}

// followDip sends hello, then every event v may see as it happens, the
// person's questions, and the game's status once caught up and at each
// change, until ctx ends (as follow does for Avalon).
func followDip(ctx context.Context, c *connection, g *dipGame, v dipViewer) error {
	power := v.power.String()
	info := g.info()
	if err := c.sendJSON(ctx, DipServerMessage{Type: TypeHello, Game: &info, Power: &power, All: v.all, MaxMessageBytes: g.maxMsgBytes}); err != nil {
		return err
	}
	sent, openQ, status := 0, 0, ""
	for {
		g.mu.Lock()
		evs := g.events[sent:len(g.events):len(g.events)]
		q, _, _ := g.place.currentLocked()
		var st *DipGameInfo
		if g.status != status {
			gi := g.infoLocked()
			st = &gi
		}
		changed := g.changed
		g.mu.Unlock()

		for _, e := range evs {
			e2 := v.visible(e)
			e2.Seq = sent
			sent++
			if err := c.sendJSON(ctx, DipServerMessage{Type: TypeEvent, Event: &e2}); err != nil {
				return err
			}
		}
		if v.power.Valid() {
			var err error
			openQ, err = c.syncQuestion(ctx, openQ, q != nil, func() int { return q.ID },
				func(id int) any { return DipServerMessage{Type: TypeQuestionClosed, ID: id} },
				func() any { return DipServerMessage{Type: TypeQuestion, Question: q} })
			if err != nil {
				return err
			}
		}
		if st != nil {
			status = st.Status
			if err := c.sendJSON(ctx, DipServerMessage{Type: TypeStatus, Game: st}); err != nil {
				return err
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
