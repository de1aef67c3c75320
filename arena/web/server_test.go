package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/org/agentevolver/arena/avalon"
	"github.com/org/agentevolver/llm"
)

// newTestServer serves a Server over httptest and closes both at the end
// of the test, then checks that no goroutine was left behind. Each setup
// function adjusts the Server before it serves.
func newTestServer(t *testing.T, cfg Config, setup ...func(*Server)) (*Server, *httptest.Server) {
	t.Helper()
	before := runtime.NumGoroutine()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range setup {
		f(s)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
		ts.Close()
		http.DefaultClient.CloseIdleConnections()
		checkNoLeak(t, before)
	})
	return s, ts
}

// checkNoLeak waits for the goroutine count to fall back to before.
func checkNoLeak(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= before {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines left, %d before:\n%s", n, before, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func postGame(t *testing.T, ts *httptest.Server, req NewGameRequest) NewGameResponse {
	t.Helper()
	b, _ := json.Marshal(req)
	resp, err := http.Post(ts.URL+"/api/games", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/games: %s: %s", resp.Status, body)
	}
	var out NewGameResponse
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func dial(t *testing.T, ctx context.Context, ts *httptest.Server, id, token string) *websocket.Conn {
	t.Helper()
	u := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws/" + id
	if token != "" {
		u += "?token=" + token
	}
	c, _, err := websocket.Dial(ctx, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func read(t *testing.T, ctx context.Context, c *websocket.Conn) ServerMessage {
	t.Helper()
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var m ServerMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return m
}

func write(t *testing.T, ctx context.Context, c *websocket.Conn, v any) {
	t.Helper()
	b, ok := v.([]byte)
	if !ok {
		b, _ = json.Marshal(v)
	}
	if err := c.Write(ctx, websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
}

func seeded(s uint64) *uint64 { return &s }
func seatPtr(i int) *int      { return &i }

// dealing makes the server draw seed for every game without one (every
// person game), so that a test knows the deal.
func dealing(seed uint64) func(*Server) {
	return func(s *Server) { s.drawSeed = func() uint64 { return seed } }
}

// TestObserveStreamsTheWholeLog: an observer's events are the game's log,
// secrets included, and two observers see the same stream.
func TestObserveStreamsTheWholeLog(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, ts := newTestServer(t, Config{})
	g := postGame(t, ts, NewGameRequest{Players: 6, Models: []string{"informed"}, Seed: seeded(7), DelayMS: 1})
	var streams [2][]avalon.Event
	for k := range streams {
		c := dial(t, ctx, ts, g.Game.ID, "")
		hello := read(t, ctx, c)
		if hello.Type != TypeHello || !hello.Secrets || *hello.Seat != -1 || hello.Game.Players != 6 {
			t.Fatalf("hello %+v", hello)
		}
		for {
			m := read(t, ctx, c)
			if m.Type == TypeStatus && m.Game.Status != StatusRunning {
				if m.Game.Status != StatusFinished {
					t.Fatalf("status %+v", m.Game)
				}
				break
			}
			if m.Type != TypeEvent && m.Type != TypeStatus {
				t.Fatalf("unexpected %+v", m)
			}
			if m.Type == TypeEvent {
				streams[k] = append(streams[k], *m.Event)
			}
		}
	}
	// The same game played directly writes the same events.
	var want bytes.Buffer
	models := make([]string, 6)
	direct := make([]llm.ChatModel, 6)
	for i := range models {
		models[i] = "informed"
		direct[i] = avalon.Random{Informed: true}
	}
	if _, err := avalon.Play(ctx, avalon.Config{Players: 6, SeatNames: models}, 7, direct, &want); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	for _, e := range streams[0] {
		b, _ := json.Marshal(e)
		got.Write(append(b, '\n'))
	}
	if got.String() != want.String() {
		t.Fatalf("observer stream differs from the log:\n%s\nwant\n%s", got.String(), want.String())
	}
	a, _ := json.Marshal(streams[0])
	b, _ := json.Marshal(streams[1])
	if !bytes.Equal(a, b) {
		t.Fatal("two observers saw different streams")
	}
	// The log endpoint serves the same bytes.
	resp, err := http.Get(ts.URL + "/api/games/" + g.Game.ID + "/log")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != want.String() {
		t.Fatal("log endpoint differs from the log")
	}
}

// answerFor is a legal answer to q: the first seats for a team, approve
// and success, the first other seat as target, a fixed speech.
func answerFor(q *OpenQuestion) ClientMessage {
	m := ClientMessage{Type: TypeAnswer, ID: q.ID}
	switch q.Action {
	case avalon.ActionTeam:
		for i := range q.TeamSize {
			m.Team = append(m.Team, i)
		}
	case avalon.ActionTeamVote, avalon.ActionQuestVote:
		yes := true
		m.Vote = &yes
	case avalon.ActionAssassinate:
		t := (q.Seat + 1) % q.Players
		m.Target = &t
	case avalon.ActionDiscuss:
		text := "I am a person, and I trust Player 0."
		m.Text = &text
	}
	return m
}

// TestPersonPlaysAFullGame: the person's connection gets every question
// with its prompt, answers it, and sees only what the seat may see.
func TestPersonPlaysAFullGame(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, ts := newTestServer(t, Config{}, dealing(3))
	const person = 2
	g := postGame(t, ts, NewGameRequest{Players: 5, Models: []string{"informed"}, PersonSeat: seatPtr(person)})
	if g.Token == "" || g.Game.Seed != nil || !strings.Contains(g.URL, "token=") {
		t.Fatalf("participate answer %+v", g)
	}
	c := dial(t, ctx, ts, g.Game.ID, g.Token)
	watcher := dial(t, ctx, ts, g.Game.ID, "")
	hello := read(t, ctx, c)
	if *hello.Seat != person || hello.Secrets || hello.Game.Seed != nil {
		t.Fatalf("hello %+v", hello)
	}
	asked := map[avalon.Action]int{}
	var ended *avalon.Event
	roles := 0
	for ended == nil {
		m := read(t, ctx, c)
		switch m.Type {
		case TypeQuestion:
			q := m.Question
			if q.Seat != person || len(q.Prompt) < 2 || !strings.Contains(q.Prompt[0].Content, "You are Player 2") {
				t.Fatalf("question %+v", q)
			}
			asked[q.Action]++
			write(t, ctx, c, answerFor(q))
		case TypeEvent:
			e := m.Event
			switch e.Type {
			case avalon.EventGameStart:
				if e.Roles != nil || e.Seed != nil {
					t.Fatalf("game_start leaks the deal: %+v", e)
				}
			case avalon.EventRole:
				roles++
				if *e.Seat != person {
					t.Fatalf("person sees seat %d's role", *e.Seat)
				}
			case avalon.EventQuest:
				if e.Votes != nil {
					t.Fatal("quest cards leaked")
				}
			case avalon.EventDiscussion:
				if *e.Seat == person && e.Text != "I am a person, and I trust Player 0." {
					t.Fatalf("person's words arrived as %q", e.Text)
				}
			case avalon.EventParseFailure, avalon.EventFallback:
				t.Fatalf("person's answer misread: %+v", e)
			case avalon.EventGameEnd:
				ended = e
				if len(e.Roles) != 5 {
					t.Fatal("game_end names no roles")
				}
			}
		case TypeError:
			t.Fatalf("error %q", m.Message)
		}
	}
	if roles != 1 || asked[avalon.ActionDiscuss] == 0 || asked[avalon.ActionTeamVote] == 0 {
		t.Fatalf("roles %d, questions %v", roles, asked)
	}
	// The watcher of a person's game sees no role at all before the end.
	read(t, ctx, watcher) // hello
	for {
		m := read(t, ctx, watcher)
		if m.Type == TypeQuestion {
			t.Fatal("an observer got the person's question")
		}
		if m.Type == TypeEvent && m.Event.Type == avalon.EventRole {
			t.Fatal("an observer of a person's game saw a role")
		}
		if m.Type == TypeStatus && m.Game.Status != StatusRunning {
			break
		}
	}
}

// TestBadMessagesAreRejected: malformed, misplaced and illegal answers get
// an error reply and change nothing; the question stays open.
func TestBadMessagesAreRejected(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, ts := newTestServer(t, Config{}, dealing(1))
	g := postGame(t, ts, NewGameRequest{Players: 5, Models: []string{"random"}, PersonSeat: seatPtr(0)})
	c := dial(t, ctx, ts, g.Game.ID, g.Token)
	var q *OpenQuestion
	for q == nil {
		if m := read(t, ctx, c); m.Type == TypeQuestion {
			q = m.Question
		}
	}
	bad := [][]byte{
		[]byte(`not json`),
		[]byte(`{"type":"answer","id":1,"text":"x"} {"type":"answer"}`),
		[]byte(`{"type":"shout","id":1,"text":"x"}`),
		[]byte(`{"type":"answer","id":1,"text":"x","extra":1}`),
		[]byte(`{"type":"answer","id":1}`),
		[]byte(`{"type":"answer","id":1,"text":"x","vote":true}`),
		[]byte(fmt.Sprintf(`{"type":"answer","id":%d,"text":"x"}`, q.ID+5)),
	}
	switch q.Action {
	case avalon.ActionDiscuss:
		bad = append(bad, []byte(fmt.Sprintf(`{"type":"answer","id":%d,"vote":true}`, q.ID)))
	case avalon.ActionTeam:
		bad = append(bad, []byte(fmt.Sprintf(`{"type":"answer","id":%d,"team":[0,0]}`, q.ID)))
	}
	for _, b := range bad {
		write(t, ctx, c, b)
		m := read(t, ctx, c)
		for m.Type == TypeEvent || m.Type == TypeStatus {
			m = read(t, ctx, c)
		}
		if m.Type != TypeError || m.Message == "" {
			t.Fatalf("%s: got %+v, want an error", b, m)
		}
	}
	// The question is still open: a good answer goes through.
	write(t, ctx, c, answerFor(q))
	for {
		m := read(t, ctx, c)
		if m.Type == TypeError {
			t.Fatalf("good answer refused: %s", m.Message)
		}
		if m.Type == TypeQuestionClosed && m.ID == q.ID {
			break
		}
	}
	// An observer may not answer.
	o := dial(t, ctx, ts, g.Game.ID, "")
	write(t, ctx, o, answerFor(q))
	for {
		m := read(t, ctx, o)
		if m.Type == TypeError {
			if !strings.Contains(m.Message, ErrNotPlayer.Error()) {
				t.Fatalf("observer answer: %q", m.Message)
			}
			break
		}
	}
}

// TestOversizeFrameClosesTheSocket: a frame over MaxMessageBytes closes
// the connection with status 1009.
func TestOversizeFrameClosesTheSocket(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, ts := newTestServer(t, Config{MaxMessageBytes: 1024}, dealing(1))
	g := postGame(t, ts, NewGameRequest{Players: 5, Models: []string{"random"}, PersonSeat: seatPtr(0)})
	c := dial(t, ctx, ts, g.Game.ID, g.Token)
	read(t, ctx, c)
	text := strings.Repeat("a", 4096)
	write(t, ctx, c, ClientMessage{Type: TypeAnswer, ID: 1, Text: &text})
	for {
		_, _, err := c.Read(ctx)
		if err == nil {
			continue
		}
		if s := websocket.CloseStatus(err); s != websocket.StatusMessageTooBig {
			t.Fatalf("closed with %v (%v), want 1009", s, err)
		}
		break
	}
}

// TestOriginAndRequestChecks: other origins may neither open sockets nor
// start games; bad new-game requests are refused with reasons.
func TestOriginAndRequestChecks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, ts := newTestServer(t, Config{})
	g := postGame(t, ts, NewGameRequest{Models: []string{"random"}, Seed: seeded(1)})
	h := http.Header{"Origin": {"http://evil.example"}}
	_, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws/"+g.Game.ID, &websocket.DialOptions{HTTPHeader: h})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-origin socket: %v %v", resp, err)
	}
	_, resp, err = websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws/"+g.Game.ID+"?token=guess", nil)
	if err == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("wrong token: %v %v", resp, err)
	}
	post := func(body, ctype, origin string) int {
		req, _ := http.NewRequest("POST", ts.URL+"/api/games", strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		body, ctype, origin string
		want                int
	}{
		{`{"models":["random"]}`, "application/json", "http://evil.example", http.StatusForbidden},
		{`{"models":["random"]}`, "text/plain", "", http.StatusUnsupportedMediaType},
		{`{"models":["random"]}`, "application/json", ts.URL, http.StatusCreated},
		{`{"players":11,"models":["random"]}`, "application/json", "", http.StatusBadRequest},
		{`{"players":5,"models":["random","random"]}`, "application/json", "", http.StatusBadRequest},
		{`{"models":["gpt-9"]}`, "application/json", "", http.StatusBadRequest},
		{`{"models":["random"],"person_seat":5}`, "application/json", "", http.StatusBadRequest},
		{`{"models":["random"],"roles":["mordred","morgana","oberon"]}`, "application/json", "", http.StatusBadRequest},
		{`{"models":["random"],"delay_ms":999999}`, "application/json", "", http.StatusBadRequest},
		{`{"models":["random"],"x":1}`, "application/json", "", http.StatusBadRequest},
		{`{"models":["random"]` + strings.Repeat(" ", maxRequestBytes) + `}`, "application/json", "", http.StatusBadRequest},
		// A delay whose nanoseconds overflow int64 (it wrapped negative
		// and passed the bound check).
		{`{"models":["random"],"delay_ms":9223372036855}`, "application/json", "", http.StatusBadRequest},
		{`{"models":["random"],"delay_ms":9223372036854775807}`, "application/json", "", http.StatusBadRequest},
		{`{"models":["random"],"delay_ms":10001}`, "application/json", "", http.StatusBadRequest},
		// Trailing data after the object.
		{`{"models":["random"]} {"models":["random"]}`, "application/json", "", http.StatusBadRequest},
		{`{"models":["random"]}x`, "application/json", "", http.StatusBadRequest},
		{`{"models":["random"]}]`, "application/json", "", http.StatusBadRequest},
		{"{\"models\":[\"random\"]}\r\n", "application/json", "", http.StatusCreated},
		// A person game's seed is the server's.
		{`{"models":["random"],"person_seat":0,"seed":7}`, "application/json", "", http.StatusBadRequest},
	} {
		if got := post(tc.body, tc.ctype, tc.origin); got != tc.want {
			t.Errorf("%.60s (%s, origin %q): %d, want %d", tc.body, tc.ctype, tc.origin, got, tc.want)
		}
	}
}

// TestCloseStopsEverything: Close ends a game waiting on a person, its
// sockets and every goroutine (the cleanup counts them).
func TestCloseStopsEverything(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, ts := newTestServer(t, Config{})
	g := postGame(t, ts, NewGameRequest{Models: []string{"random"}, PersonSeat: seatPtr(1)})
	obs := postGame(t, ts, NewGameRequest{Models: []string{"random"}, DelayMS: 1000})
	c := dial(t, ctx, ts, g.Game.ID, g.Token)
	o := dial(t, ctx, ts, obs.Game.ID, "")
	for {
		if m := read(t, ctx, c); m.Type == TypeQuestion {
			break
		}
	}
	read(t, ctx, o)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, conn := range []*websocket.Conn{c, o} {
		for {
			_, _, err := conn.Read(ctx)
			if err != nil {
				break
			}
		}
	}
	if _, err := s.Start(NewGameRequest{Models: []string{"random"}}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Start after Close: %v", err)
	}
	for _, id := range []string{g.Game.ID, obs.Game.ID} {
		gm, _ := s.lookup(id)
		if st := gm.info().Status; st != StatusStopped {
			t.Fatalf("game %s: %s", id, st)
		}
	}
}

// TestStopAndList: a stopped game is listed as stopped.
func TestStopAndList(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	g := postGame(t, ts, NewGameRequest{Models: []string{"random"}, PersonSeat: seatPtr(0)})
	resp, err := http.Post(ts.URL+"/api/games/"+g.Game.ID+"/stop?token="+g.Token, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stop with the token: %s", resp.Status)
	}
	resp, err = http.Get(ts.URL + "/api/games")
	if err != nil {
		t.Fatal(err)
	}
	var list []GameInfo
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || len(list) != 1 || list[0].Status != StatusStopped || list[0].Seed == nil {
		t.Fatalf("list %+v %v", list, err)
	}
	for _, p := range []string{"/", "/game/" + g.Game.ID, "/static/game.js", "/static/style.css", "/static/index.js"} {
		resp, err := http.Get(ts.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", p, resp.Status)
		}
	}
}

// TestPersonReconnects: a person who reloads the page gets the game so far
// and the same open question again, and can answer it.
func TestPersonReconnects(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, ts := newTestServer(t, Config{}, dealing(2))
	g := postGame(t, ts, NewGameRequest{Models: []string{"informed"}, PersonSeat: seatPtr(3)})
	firstQuestion := func(c *websocket.Conn) (*OpenQuestion, int) {
		events := 0
		for {
			m := read(t, ctx, c)
			switch m.Type {
			case TypeEvent:
				events++
			case TypeQuestion:
				return m.Question, events
			}
		}
	}
	c := dial(t, ctx, ts, g.Game.ID, g.Token)
	q1, n1 := firstQuestion(c)
	c.Close(websocket.StatusNormalClosure, "reload")
	c2 := dial(t, ctx, ts, g.Game.ID, g.Token)
	q2, n2 := firstQuestion(c2)
	if q1.ID != q2.ID || q1.Instruction != q2.Instruction || n1 != n2 {
		t.Fatalf("after reconnecting: question %d (%d events), before %d (%d events)", q2.ID, n2, q1.ID, n1)
	}
	write(t, ctx, c2, answerFor(q2))
	for {
		m := read(t, ctx, c2)
		if m.Type == TypeError {
			t.Fatal(m.Message)
		}
		if m.Type == TypeQuestionClosed {
			break
		}
	}
}

// TestAbsentPersonStopsTheGame: a question waits while the person's page
// is open, however long; once no connection of the person's has been open
// for PersonTimeout, the game stops with ErrPersonLeft and frees its place
// under MaxGames. A game the person never opened stops the same way.
func TestAbsentPersonStopsTheGame(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const timeout = 100 * time.Millisecond
	s, ts := newTestServer(t, Config{PersonTimeout: timeout, MaxGames: 1, MaxPersonGames: 1})
	status := func(id string) GameInfo {
		g, err := s.lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		return g.info()
	}
	waitStopped := func(id string) {
		t.Helper()
		for ctx.Err() == nil {
			if gi := status(id); gi.Status != StatusRunning {
				if gi.Status != StatusStopped || !strings.Contains(gi.Error, ErrPersonLeft.Error()) {
					t.Fatalf("game %s: %s (%s), want stopped by %v", id, gi.Status, gi.Error, ErrPersonLeft)
				}
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("game %s still running", id)
	}

	g := postGame(t, ts, NewGameRequest{Models: []string{"informed"}, PersonSeat: seatPtr(0)})
	c := dial(t, ctx, ts, g.Game.ID, g.Token)
	for read(t, ctx, c).Type != TypeQuestion {
	}
	time.Sleep(5 * timeout)
	if gi := status(g.Game.ID); gi.Status != StatusRunning {
		t.Fatalf("with the person's page open: %s (%s)", gi.Status, gi.Error)
	}
	// An observer is not the person: closing the person's page stops it.
	o := dial(t, ctx, ts, g.Game.ID, "")
	c.Close(websocket.StatusNormalClosure, "closed the tab")
	waitStopped(g.Game.ID)
	o.Close(websocket.StatusNormalClosure, "")

	never := postGame(t, ts, NewGameRequest{Models: []string{"random"}, PersonSeat: seatPtr(2)})
	waitStopped(never.Game.ID)
	if _, err := s.Start(NewGameRequest{Models: []string{"random"}, PersonSeat: seatPtr(0)}); err != nil {
		t.Errorf("a new game after the abandoned ones: %v", err)
	}
}

// TestPersonTimeoutNegativeWaits: with a negative PersonTimeout a
// question to an absent person starts no timer and waits for as long as
// the game runs; with a positive one it starts one.
func TestPersonTimeoutNegativeWaits(t *testing.T) {
	for _, timeout := range []time.Duration{-1, time.Hour} {
		s, ts := newTestServer(t, Config{PersonTimeout: timeout})
		g := postGame(t, ts, NewGameRequest{Models: []string{"random"}, PersonSeat: seatPtr(0)})
		gv, err := s.lookup(g.Game.ID)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			gv.mu.Lock()
			asked, timer, status := gv.place.question != nil, gv.place.absence != nil, gv.status
			gv.mu.Unlock()
			if asked {
				if status != StatusRunning || timer != (timeout > 0) {
					t.Errorf("PersonTimeout %v: %s, timer %v", timeout, status, timer)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("PersonTimeout %v: no question to the person", timeout)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}
