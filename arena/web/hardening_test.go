package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// hostClient returns a client that reaches ts whatever host a URL names,
// as a browser does once a foreign name resolves to the server (DNS
// rebinding): the request's Host header is the URL's host.
func hostClient(t *testing.T, ts *httptest.Server) *http.Client {
	t.Helper()
	addr := ts.Listener.Addr().String()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TestHostChecks: a request naming a foreign Host is refused on every
// route, even with a matching Origin (DNS rebinding: game creation, the
// socket, the log, the list); the server's own names pass with its port
// only, and Config.AllowedHosts adds names.
func TestHostChecks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, ts := newTestServer(t, Config{AllowedHosts: []string{"arena.example", "*.lan:8443"}})
	client := hostClient(t, ts)
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	g := postGame(t, ts, NewGameRequest{Models: []string{"random"}, Seed: seeded(1)})
	for {
		if gi := getInfo(t, ts, g.Game.ID); gi.Status != StatusRunning {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	do := func(method, host, path, body string) int {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, method, "http://"+host+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", "http://"+host)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	create := `{"models":["random"]}`
	for _, tc := range []struct {
		host string
		ok   bool
	}{
		{"evil.example:" + port, false},
		{"evil.example", false},
		{"localhost:1", false},
		{"localhost", port == "80"},
		{"127.0.0.2:" + port, false},
		{"arena.example.evil:" + port, false},
		{"x.lan:9", false},
		{"127.0.0.1:" + port, true},
		{"localhost:" + port, true},
		{"LOCALHOST:" + port, true},
		{"[::1]:" + port, true},
		{"arena.example:" + port, true},
		{"arena.example", true},
		{"x.lan:8443", true},
	} {
		routes := []struct {
			method, path, body string
			want               int
		}{
			{"POST", "/api/games", create, http.StatusCreated},
			{"GET", "/api/games/" + g.Game.ID + "/log", "", http.StatusOK},
			{"GET", "/api/games", "", http.StatusOK},
			{"GET", "/", "", http.StatusOK},
		}
		for _, r := range routes {
			want := r.want
			if !tc.ok {
				want = http.StatusForbidden
			}
			if got := do(r.method, tc.host, r.path, r.body); got != want {
				t.Errorf("%s %s with Host %s: %d, want %d", r.method, r.path, tc.host, got, want)
			}
		}
		c, resp, err := websocket.Dial(ctx, "ws://"+tc.host+"/ws/"+g.Game.ID, &websocket.DialOptions{
			HTTPClient: client, HTTPHeader: http.Header{"Origin": {"http://" + tc.host}}})
		if tc.ok {
			if err != nil {
				t.Errorf("socket with Host %s: %v", tc.host, err)
				continue
			}
			c.CloseNow()
		} else if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			if c != nil {
				c.CloseNow()
			}
			t.Errorf("socket with Host %s: %v %v, want 403", tc.host, resp, err)
		}
	}
	if _, err := New(Config{AllowedHosts: []string{"["}}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("bad host pattern: %v", err)
	}
}

// getInfo reads a game's entry in the game list.
func getInfo(t *testing.T, ts *httptest.Server, id string) GameInfo {
	t.Helper()
	resp, err := http.Get(ts.URL + "/api/games")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list []GameInfo
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	for _, gi := range list {
		if gi.ID == id {
			return gi
		}
	}
	t.Fatalf("game %s not listed", id)
	return GameInfo{}
}

// TestStopNeedsToken: a person's game is stopped only with its token
// (a stranger could otherwise stop it and read its deal in the log); an
// observe game is stopped by anyone of the page's origin.
func TestStopNeedsToken(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	g := postGame(t, ts, NewGameRequest{Models: []string{"random"}, PersonSeat: seatPtr(1)})
	stop := func(id, query string) int {
		t.Helper()
		resp, err := http.Post(ts.URL+"/api/games/"+id+"/stop"+query, "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	logStatus := func() int {
		t.Helper()
		resp, err := http.Get(ts.URL + "/api/games/" + g.Game.ID + "/log")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, q := range []string{"", "?token=", "?token=" + strings.Repeat("0", len(g.Token))} {
		if code := stop(g.Game.ID, q); code != http.StatusForbidden {
			t.Fatalf("stop%s: %d, want 403", q, code)
		}
	}
	if gi := getInfo(t, ts, g.Game.ID); gi.Status != StatusRunning || gi.Seed != nil {
		t.Fatalf("after refused stops: %+v", gi)
	}
	if code := logStatus(); code != http.StatusForbidden {
		t.Fatalf("log of a running person game: %d", code)
	}
	if code := stop(g.Game.ID, "?token="+g.Token); code != http.StatusOK {
		t.Fatalf("stop with the token: %d", code)
	}
	if gi := getInfo(t, ts, g.Game.ID); gi.Status != StatusStopped {
		t.Fatalf("after the person's stop: %+v", gi)
	}
	if code := logStatus(); code != http.StatusOK {
		t.Fatalf("log of a stopped person game: %d", code)
	}
	o := postGame(t, ts, NewGameRequest{Models: []string{"random"}, DelayMS: 1000})
	if code := stop(o.Game.ID, ""); code != http.StatusOK {
		t.Fatalf("stop an observe game: %d", code)
	}
}

// TestPersonGameSeedRefused: a person may not choose their game's seed,
// which would tell them the deal of an observe game with that seed.
func TestPersonGameSeedRefused(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	_, err := s.Start(NewGameRequest{Models: []string{"random"}, PersonSeat: seatPtr(0), Seed: seeded(7)})
	if !errors.Is(err, ErrBadRequest) {
		t.Fatalf("person game with a seed: %v", err)
	}
	resp, err := s.Start(NewGameRequest{Models: []string{"random"}, PersonSeat: seatPtr(0)})
	if err != nil || resp.Game.Seed != nil {
		t.Fatalf("person game without a seed: %+v %v", resp, err)
	}
}

// TestSeqPerViewer: the person and an observer of a person's game each see
// consecutive seq numbers from 0, so that no gap shows where a hidden event
// (another seat's role, a coerced quest card) happened; the game list
// counts only public events while the person plays.
func TestSeqPerViewer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, ts := newTestServer(t, Config{}, dealing(3))
	g := postGame(t, ts, NewGameRequest{Players: 5, Models: []string{"informed"}, PersonSeat: seatPtr(2)})
	c := dial(t, ctx, ts, g.Game.ID, g.Token)
	o := dial(t, ctx, ts, g.Game.ID, "")
	follow := func(c *websocket.Conn, answer bool) []int {
		var seqs []int
		first := true
		for {
			m := read(t, ctx, c)
			switch m.Type {
			case TypeQuestion:
				if first {
					first = false
					gv, err := s.lookup(g.Game.ID)
					if err != nil {
						t.Fatal(err)
					}
					info := gv.info()
					gv.mu.Lock()
					total := len(gv.events)
					gv.mu.Unlock()
					if info.Events >= total {
						t.Errorf("a running person game lists %d events of %d: hidden ones are counted", info.Events, total)
					}
				}
				if answer {
					write(t, ctx, c, answerFor(m.Question))
				}
			case TypeEvent:
				seqs = append(seqs, m.Event.Seq)
			case TypeStatus:
				if m.Game.Status != StatusRunning {
					if m.Game.Status != StatusFinished {
						t.Fatalf("status %+v", m.Game)
					}
					return seqs
				}
			case TypeError:
				t.Fatal(m.Message)
			}
		}
	}
	for name, seqs := range map[string][]int{"person": follow(c, true), "observer": follow(o, false)} {
		if len(seqs) == 0 {
			t.Fatalf("%s saw no events", name)
		}
		for i, q := range seqs {
			if q != i {
				t.Fatalf("%s: event %d has seq %d (seqs %v)", name, i, q, seqs)
			}
		}
	}
}

// TestAnswerTimeoutWithOpenSocket: a person whose page stays open but who
// never answers does not hold the game for ever: after AnswerTimeout the
// question closes, the game stops with ErrNoAnswer and frees its place.
func TestAnswerTimeoutWithOpenSocket(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, ts := newTestServer(t, Config{AnswerTimeout: time.Second, MaxPersonGames: 1})
	g := postGame(t, ts, NewGameRequest{Models: []string{"random"}, PersonSeat: seatPtr(0)})
	c := dial(t, ctx, ts, g.Game.ID, g.Token)
	var q *OpenQuestion
	closed := false
	for {
		m := read(t, ctx, c)
		if m.Type == TypeQuestion {
			q = m.Question
		}
		if m.Type == TypeQuestionClosed && q != nil && m.ID == q.ID {
			closed = true
		}
		if m.Type == TypeStatus && m.Game.Status != StatusRunning {
			if m.Game.Status != StatusStopped || !strings.Contains(m.Game.Error, ErrNoAnswer.Error()) {
				t.Fatalf("status %+v, want stopped by %v", m.Game, ErrNoAnswer)
			}
			break
		}
	}
	if q == nil || !closed {
		t.Fatalf("question %v, closed %v", q, closed)
	}
	if _, err := s.Start(NewGameRequest{Models: []string{"random"}, PersonSeat: seatPtr(0)}); err != nil {
		t.Fatalf("a person game after the timed-out one: %v", err)
	}
}

// TestPersonGamesCappedApart: person games and observe games have places
// of their own, so stalled person games never refuse observe games.
func TestPersonGamesCappedApart(t *testing.T) {
	s, _ := newTestServer(t, Config{MaxGames: 1, MaxPersonGames: 1})
	if _, err := s.Start(NewGameRequest{Models: []string{"random"}, PersonSeat: seatPtr(0)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Start(NewGameRequest{Models: []string{"random"}, PersonSeat: seatPtr(1)}); !errors.Is(err, ErrTooManyGames) {
		t.Fatalf("a second person game: %v", err)
	}
	if _, err := s.Start(NewGameRequest{Models: []string{"random"}, DelayMS: 1000}); err != nil {
		t.Fatalf("an observe game beside a person game: %v", err)
	}
	if _, err := s.Start(NewGameRequest{Models: []string{"random"}, DelayMS: 1000}); !errors.Is(err, ErrTooManyGames) {
		t.Fatalf("a second observe game: %v", err)
	}
}
