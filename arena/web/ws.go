package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// handleSocket serves one WebSocket connection to a game: a writer that
// follows the game's state and a reader of the person's answers.
func (s *Server) handleSocket(w http.ResponseWriter, r *http.Request) {
	if err := checkOrigin(r, s.cfg.OriginPatterns); err != nil {
		writeError(w, http.StatusForbidden, err)
		return
	}
	g, err := s.lookup(r.PathValue("id"))
	if err != nil {
		writeError(w, http.StatusNotFound, err)
		return
	}
	v := viewer{seat: -1}
	if tok := r.URL.Query().Get("token"); tok != "" {
		if !tokenMatches(tok, g.token) {
			writeError(w, http.StatusForbidden, fmt.Errorf("%w: wrong token", ErrForbidden))
			return
		}
		v.seat = g.personSeat
	}
	v.secrets = g.personSeat < 0
	c, release := s.accept(w, r, g.id, &g.viewers)
	if c == nil {
		return
	}
	defer release()
	if v.seat >= 0 {
		g.place.joined()
		defer g.place.gone()
	}
	s.serveSocket(c, g.id, func(ctx context.Context, conn *connection) error { return conn.follow(ctx, g, v) },
		func(b []byte) error {
			m, err := ParseClientMessage(b, s.cfg.MaxMessageBytes)
			switch {
			case err != nil:
				return err
			case v.seat < 0:
				return ErrNotPlayer
			}
			return g.answer(m)
		})
}

// accept counts a viewer of game id (viewers is the game's count,
// guarded by s.mu, bounded by MaxViewers) and accepts the socket, with
// MaxMessageBytes as its read limit. On refusal it has answered and
// returns nil; otherwise release uncounts the viewer once the socket is
// done.
func (s *Server) accept(w http.ResponseWriter, r *http.Request, id string, viewers *int) (c *websocket.Conn, release func()) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, ErrClosed)
		return nil, nil
	}
	if *viewers >= s.cfg.MaxViewers {
		n := *viewers
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, fmt.Errorf("web: game %s has %d viewers", id, n))
		return nil, nil
	}
	*viewers++
	s.wg.Add(1)
	s.mu.Unlock()
	release = func() {
		s.mu.Lock()
		*viewers--
		s.mu.Unlock()
		s.wg.Done()
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: s.cfg.OriginPatterns})
	if err != nil {
		s.logger.Info("arena web: socket refused", "game", id, "err", err)
		release()
		return nil, nil
	}
	c.SetReadLimit(int64(s.cfg.MaxMessageBytes))
	return c, release
}

// serveSocket runs an accepted socket until it or the server closes: a
// writer (follow) and a reader that hands each text frame to handle and
// answers its error with an error message; the connection is closed
// after maxBadMessages of them.
func (s *Server) serveSocket(c *websocket.Conn, id string, follow func(context.Context, *connection) error, handle func([]byte) error) {
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	conn := &connection{c: c, timeout: s.cfg.WriteTimeout}
	var wg sync.WaitGroup
	wg.Go(func() {
		defer cancel()
		if err := follow(ctx, conn); err != nil && ctx.Err() == nil {
			s.logger.Info("arena web: socket writer ended", "game", id, "err", err)
			c.Close(websocket.StatusPolicyViolation, "write failed")
		}
	})
	bad := 0
	for {
		typ, b, err := c.Read(ctx)
		if err != nil {
			break
		}
		var reply error
		if typ != websocket.MessageText {
			reply = fmt.Errorf("%w: binary frame", ErrBadMessage)
		} else {
			reply = handle(b)
		}
		if reply == nil {
			continue
		}
		bad++
		if err := conn.send(ctx, ServerMessage{Type: TypeError, Message: reply.Error()}); err != nil {
			break
		}
		if bad >= maxBadMessages {
			c.Close(websocket.StatusPolicyViolation, "too many bad messages")
			break
		}
	}
	cancel()
	wg.Wait()
	if s.ctx.Err() != nil {
		c.Close(websocket.StatusGoingAway, "server shutting down")
	} else {
		c.Close(websocket.StatusNormalClosure, "")
	}
}

// connection is one socket's write side.
type connection struct {
	c       *websocket.Conn
	timeout time.Duration
}

func (c *connection) send(ctx context.Context, m ServerMessage) error { return c.sendJSON(ctx, m) }

// sendJSON writes v as one text frame within the write timeout.
func (c *connection) sendJSON(ctx context.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("web: encode message: %w", err)
	}
	wctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return c.c.Write(wctx, websocket.MessageText, b)
}

// follow sends hello, then every event v may see as it happens, the
// person's questions, and the game's status once caught up with the
// events and at each change, until ctx ends. Events are numbered per
// viewer: Seq counts the events this viewer is sent, from 0, so that a gap
// never tells where a hidden event happened. (A viewer with secrets sees
// every event, so its numbers are the log's.)
func (c *connection) follow(ctx context.Context, g *game, v viewer) error {
	seat := v.seat
	info := g.info()
	if err := c.send(ctx, ServerMessage{Type: TypeHello, Game: &info, Seat: &seat, Secrets: v.secrets}); err != nil {
		return err
	}
	sent, shown, openQ, status := 0, 0, 0, ""
	for {
		g.mu.Lock()
		evs := g.events[sent:len(g.events):len(g.events)]
		var q *OpenQuestion
		if cp, _, ok := g.place.currentLocked(); ok {
			q = &cp
		}
		var st *GameInfo
		if g.status != status {
			gi := g.infoLocked()
			st = &gi
		}
		changed := g.changed
		g.mu.Unlock()

		for _, e := range evs {
			if e2, ok := v.visible(e); ok {
				e2.Seq = shown
				shown++
				if err := c.send(ctx, ServerMessage{Type: TypeEvent, Event: &e2}); err != nil {
					return err
				}
			}
		}
		sent += len(evs)
		if v.seat >= 0 {
			var err error
			openQ, err = c.syncQuestion(ctx, openQ, q != nil, func() int { return q.ID },
				func(id int) any { return ServerMessage{Type: TypeQuestionClosed, ID: id} },
				func() any { return ServerMessage{Type: TypeQuestion, Question: q} })
			if err != nil {
				return err
			}
		}
		if st != nil {
			status = st.Status
			if err := c.send(ctx, ServerMessage{Type: TypeStatus, Game: st}); err != nil {
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

// syncQuestion brings a person's connection up to date with the open
// question: it sends closed(openQ) when the question it was sent
// (openQ, 0 for none) is no longer open, and opened() when a question
// (has, with id()) is open that it was not sent. It returns the id of the
// question the connection now holds.
func (c *connection) syncQuestion(ctx context.Context, openQ int, has bool, id func() int, closed func(int) any, opened func() any) (int, error) {
	if openQ != 0 && (!has || id() != openQ) {
		if err := c.sendJSON(ctx, closed(openQ)); err != nil {
			return openQ, err
		}
		openQ = 0
	}
	if has && id() != openQ {
		if err := c.sendJSON(ctx, opened()); err != nil {
			return openQ, err
		}
		openQ = id()
	}
	return openQ, nil
}
