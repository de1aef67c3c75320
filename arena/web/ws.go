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
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, ErrClosed)
		return
	}
	if g.viewers >= s.cfg.MaxViewers {
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, fmt.Errorf("web: game %s has %d viewers", g.id, g.viewers))
		return
	}
	g.viewers++
	s.wg.Add(1)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		g.viewers--
		s.mu.Unlock()
		s.wg.Done()
	}()

	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: s.cfg.OriginPatterns})
	if err != nil {
		s.logger.Info("arena web: socket refused", "game", g.id, "err", err)
		return
	}
	c.SetReadLimit(int64(s.cfg.MaxMessageBytes))
	if v.seat >= 0 {
		g.personJoined()
		defer g.personGone()
	}
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	conn := &connection{c: c, timeout: s.cfg.WriteTimeout}
	var wg sync.WaitGroup
	wg.Go(func() {
		defer cancel()
		if err := conn.follow(ctx, g, v); err != nil && ctx.Err() == nil {
			s.logger.Info("arena web: socket writer ended", "game", g.id, "err", err)
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
		} else if m, err := ParseClientMessage(b, s.cfg.MaxMessageBytes); err != nil {
			reply = err
		} else if v.seat < 0 {
			reply = ErrNotPlayer
		} else {
			reply = g.answer(m)
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

func (c *connection) send(ctx context.Context, m ServerMessage) error {
	b, err := json.Marshal(m)
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
		if g.question != nil {
			cp := g.question.q
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
			if openQ != 0 && (q == nil || q.ID != openQ) {
				if err := c.send(ctx, ServerMessage{Type: TypeQuestionClosed, ID: openQ}); err != nil {
					return err
				}
				openQ = 0
			}
			if q != nil && q.ID != openQ {
				if err := c.send(ctx, ServerMessage{Type: TypeQuestion, Question: q}); err != nil {
					return err
				}
				openQ = q.ID
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
