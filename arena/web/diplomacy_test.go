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
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
	"github.com/org/agentevolver/llm"
)

func intPtr(i int) *int { return &i }

func postDip(t *testing.T, ts *httptest.Server, req DipNewGameRequest) DipNewGameResponse {
	t.Helper()
	b, _ := json.Marshal(req)
	resp, err := http.Post(ts.URL+"/api/diplomacy/games", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/diplomacy/games: %s: %s", resp.Status, body)
	}
	var out DipNewGameResponse
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func dialDip(t *testing.T, ctx context.Context, ts *httptest.Server, id, token string) *websocket.Conn {
	t.Helper()
	u := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws/diplomacy/" + id
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

func readDip(t *testing.T, ctx context.Context, c *websocket.Conn) DipServerMessage {
	t.Helper()
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var m DipServerMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return m
}

// followToEnd reads a socket until the game's final status and returns
// its events and that status.
func followToEnd(t *testing.T, ctx context.Context, c *websocket.Conn) ([]DipEvent, DipGameInfo) {
	t.Helper()
	var evs []DipEvent
	for {
		m := readDip(t, ctx, c)
		switch m.Type {
		case TypeEvent:
			if m.Event.Seq != len(evs) {
				t.Fatalf("event seq %d after %d events", m.Event.Seq, len(evs))
			}
			evs = append(evs, *m.Event)
		case TypeStatus:
			if m.Game.Status != StatusRunning {
				return evs, *m.Game
			}
		case TypeError:
			t.Fatalf("error message: %s", m.Message)
		}
	}
}

func getBody(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func TestMapCoordsCoverTheMap(t *testing.T) {
	info, err := standardMapInfo()
	if err != nil {
		t.Fatal(err)
	}
	m := diplomacy.Standard()
	if len(info.Provinces) != len(m.Provinces()) || len(info.Powers) != diplomacy.NumPowers {
		t.Fatalf("%d provinces, %d powers", len(info.Provinces), len(info.Powers))
	}
	sc, coasts := 0, 0
	seen := map[MapPoint]string{}
	for _, p := range info.Provinces {
		pts := []MapPoint{p.At}
		for _, c := range p.Coasts {
			pts = append(pts, c)
			coasts++
		}
		for _, pt := range pts {
			if pt.X < 20 || pt.X > MapWidth-20 || pt.Y < 20 || pt.Y > MapHeight-20 {
				t.Errorf("%s: point %v off the canvas", p.Code, pt)
			}
			if other, dup := seen[pt]; dup {
				t.Errorf("%s and %s share the point %v", p.Code, other, pt)
			}
			seen[pt] = p.Code
		}
		if p.SupplyCenter {
			sc++
		}
	}
	if sc != 34 || coasts != 6 {
		t.Fatalf("%d supply centres, %d coasts", sc, coasts)
	}
	// Every army and fleet move of the engine has its edge.
	has := map[[2]string]MapEdge{}
	for _, e := range info.Edges {
		if e.A >= e.B || !e.Army && !e.Fleet {
			t.Fatalf("edge %+v", e)
		}
		has[[2]string{e.A, e.B}] = e
	}
	if e := has[[2]string{"BUR", "PAR"}]; !e.Army || e.Fleet {
		t.Fatalf("BUR-PAR %+v", e)
	}
	if e := has[[2]string{"ENG", "NTH"}]; e.Army || !e.Fleet {
		t.Fatalf("ENG-NTH %+v", e)
	}
	if e := has[[2]string{"MAO", "SPA"}]; !e.Fleet {
		t.Fatalf("MAO-SPA %+v", e)
	}
	// A table with a missing or an unknown location is refused.
	coords, _ := parseMapCoords(mapCoords)
	delete(coords, "STP/NC")
	if _, err := buildMapInfo(m, coords); err == nil || !strings.Contains(err.Error(), "STP/NC") {
		t.Fatalf("missing point: %v", err)
	}
	coords, _ = parseMapCoords(mapCoords + " XYZ 1 2")
	if _, err := buildMapInfo(m, coords); err == nil || !strings.Contains(err.Error(), "XYZ") {
		t.Fatalf("unknown point: %v", err)
	}
	if _, err := parseMapCoords("PAR 1"); err == nil {
		t.Fatal("a broken table was read")
	}
	if _, err := parseMapCoords("PAR 1 2 PAR 3 4"); err == nil {
		t.Fatal("a doubled location was read")
	}
}

// TestDiplomacyObserve: a bots-only game's socket shows every board,
// round and phase as the game plays them, and its log, served once the
// game is over, is byte for byte the log of the same game played without
// the server.
func TestDiplomacyObserve(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, ts := newTestServer(t, Config{})
	models := []string{"greedy", "random", "greedy", "greedy", "random", "greedy", "greedy"}
	g := postDip(t, ts, DipNewGameRequest{Models: models, Seed: seeded(9), MaxPhases: 5, NegotiationRounds: intPtr(1), DelayMS: 5})
	if g.Token != "" || !strings.HasPrefix(g.URL, "/diplomacy/") || g.Game.MaxPhases != 5 || g.Game.NegotiationRounds != 1 {
		t.Fatalf("new game %+v", g)
	}
	c := dialDip(t, ctx, ts, g.Game.ID, "")
	hello := readDip(t, ctx, c)
	if hello.Type != TypeHello || !hello.All || *hello.Power != "" || hello.MaxMessageBytes != DefaultMaxMessageBytes {
		t.Fatalf("hello %+v", hello)
	}
	evs, end := followToEnd(t, ctx, c)
	if end.Status != StatusFinished || end.Phases != 5 || end.Seed == nil || *end.Seed != 9 || !end.Log {
		t.Fatalf("end %+v", end)
	}
	var positions, rounds, phases int
	for _, e := range evs {
		switch e.Type {
		case DipEventPosition:
			positions++
			if len(e.Board.Units) == 0 || len(e.Board.Centers) == 0 {
				t.Fatalf("empty board %+v", e)
			}
		case DipEventNegotiation:
			rounds++
		case DipEventPhase:
			phases++
			if len(e.Orders) == 0 || e.Board == nil || len(e.Centers) == 0 {
				t.Fatalf("phase event %+v", e)
			}
		}
	}
	if positions != 6 || phases != 5 || rounds == 0 {
		t.Fatalf("%d positions, %d rounds, %d phases", positions, rounds, phases)
	}
	first := evs[0]
	if first.Type != DipEventPosition || first.Phase != "S1901M" || len(first.Board.Units) != 22 || first.Board.Centers["PAR"] != "FRANCE" {
		t.Fatalf("first event %+v", first)
	}

	code, body := getBody(t, ts.URL+"/api/diplomacy/games/"+g.Game.ID+"/log")
	if code != http.StatusOK {
		t.Fatalf("log: %d %s", code, body)
	}
	cfg := dipgame.Config{MaxPhases: 5, NegotiationRounds: 1, SeatNames: models, GameID: g.Game.ID}
	seats := make([]llm.ChatModel, diplomacy.NumPowers)
	for i, n := range models {
		seats[i] = map[string]llm.ChatModel{"greedy": dipgame.Greedy{}, "random": dipgame.Random{}}[n]
	}
	var want bytes.Buffer
	if _, err := dipgame.Play(ctx, cfg, 9, seats, &want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, want.Bytes()) {
		t.Fatalf("the served log differs from the game's:\n%s\nwant\n%s", body, want.Bytes())
	}
	var l dipgame.Log
	if err := json.Unmarshal(body, &l); err != nil || len(l.Game.Phases) != 5 || !slices.Equal(l.ModelNames, models) {
		t.Fatalf("log %v: %+v", err, l)
	}
	// The phase events carry the log's orders.
	k := 0
	for _, e := range evs {
		if e.Type != DipEventPhase {
			continue
		}
		if e.Phase != l.Game.Phases[k].Phase {
			t.Fatalf("phase %d: %s, logged %s", k, e.Phase, l.Game.Phases[k].Phase)
		}
		var fromLog []string
		for _, os := range l.Game.Phases[k].Orders {
			fromLog = append(fromLog, os...)
		}
		var shown []string
		for _, o := range e.Orders {
			shown = append(shown, o.Text)
			if o.Given != "" {
				shown = append(shown, o.Given)
			}
		}
		slices.Sort(fromLog)
		slices.Sort(shown)
		for _, o := range fromLog {
			if _, ok := slices.BinarySearch(shown, o); !ok {
				t.Fatalf("phase %s: order %q of the log not shown (%v)", e.Phase, o, shown)
			}
		}
		k++
	}
	// The list shows the game; the map and options are served.
	code, body = getBody(t, ts.URL+"/api/diplomacy/games")
	var list []DipGameInfo
	if code != http.StatusOK || json.Unmarshal(body, &list) != nil || len(list) != 1 || list[0].ID != g.Game.ID {
		t.Fatalf("list %d %s", code, body)
	}
	code, body = getBody(t, ts.URL+"/api/diplomacy/map")
	var mi MapInfo
	if code != http.StatusOK || json.Unmarshal(body, &mi) != nil || len(mi.Provinces) != 75 {
		t.Fatalf("map %d %.200s", code, body)
	}
	code, body = getBody(t, ts.URL+"/api/diplomacy/options")
	var opts DipPageOptions
	if code != http.StatusOK || json.Unmarshal(body, &opts) != nil || !slices.Equal(opts.Models, []string{"random", "greedy"}) || len(opts.Powers) != 7 {
		t.Fatalf("options %d %s", code, body)
	}
	code, body = getBody(t, ts.URL+"/diplomacy/"+g.Game.ID)
	if code != http.StatusOK || !bytes.Contains(body, []byte("diplomacy.js")) {
		t.Fatalf("page %d", code)
	}
	// An Avalon list does not hold Diplomacy games.
	code, body = getBody(t, ts.URL+"/api/games")
	if code != http.StatusOK || strings.TrimSpace(string(body)) != "[]" {
		t.Fatalf("avalon list %d %s", code, body)
	}
}

// dipAnswer is the test person's answer: a private message to GERMANY
// and a global one, or each location's first possible order.
func dipAnswer(q *DipQuestion) DipClientMessage {
	if q.Kind == "negotiation" {
		return DipClientMessage{Type: TypeMessages, ID: q.ID, Power: q.Power, Messages: []DipOutMessage{
			{Recipient: "germany", Content: fmt.Sprintf("  psst <think>%s</think>  ", q.Phase)},
			{Recipient: "GLOBAL", Content: "peace in " + q.Phase},
		}}
	}
	m := DipClientMessage{Type: TypeOrders, ID: q.ID, Power: q.Power, Orders: []string{}}
	builds := q.Adjustment
	for _, lo := range q.Possible {
		o := lo.Orders[0]
		if q.Adjustment < 0 && !strings.HasSuffix(o, " D") {
			continue
		}
		if q.Adjustment > 0 {
			if builds == 0 {
				continue
			}
			builds--
		}
		if q.Adjustment < 0 {
			if builds == 0 {
				continue
			}
			builds++
		}
		m.Orders = append(m.Orders, strings.ToLower(o)) // read leniently, written canonically
	}
	return m
}

// TestDiplomacyPersonPlays: a person plays FRANCE through the socket:
// hostile and mistaken answers are refused with reasons and change
// nothing, the accepted ones reach the game exactly (the log holds them),
// private messages reach only their parties, and the log is withheld
// until the end.
func TestDiplomacyPersonPlays(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, ts := newTestServer(t, Config{}, dealing(3))
	g := postDip(t, ts, DipNewGameRequest{Models: []string{"greedy"}, PersonPower: "france", MaxPhases: 4, NegotiationRounds: intPtr(1)})
	if g.Token == "" || g.Game.PersonPower != "FRANCE" || g.Game.Seed != nil || g.Game.Models[2] != PersonModel {
		t.Fatalf("new game %+v", g)
	}
	// A wrong token opens nothing; an observer may not answer.
	// Another first character, so the token differs whatever it is (a
	// token that began with "00" made the "wrong" one right: 1 run in 256).
	wrong := "0"
	if g.Token[0] == '0' {
		wrong = "1"
	}
	resp, err := http.Get(ts.URL + "/ws/diplomacy/" + g.Game.ID + "?token=" + wrong + g.Token[1:])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("wrong token: %s", resp.Status)
	}
	obs := dialDip(t, ctx, ts, g.Game.ID, "")
	if h := readDip(t, ctx, obs); h.All || *h.Power != "" {
		t.Fatalf("observer hello %+v", h)
	}
	c := dialDip(t, ctx, ts, g.Game.ID, g.Token)
	if h := readDip(t, ctx, c); h.Power == nil || *h.Power != "FRANCE" || h.All {
		t.Fatalf("person hello %+v", h)
	}
	if code, _ := getBody(t, ts.URL+"/api/diplomacy/games/"+g.Game.ID+"/log"); code != http.StatusConflict {
		t.Fatalf("log of a running person game: %d", code)
	}
	// A stop without the token, or with a wrong one, is refused.
	for _, q := range []string{"", "?token=nope"} {
		resp, err := http.Post(ts.URL+"/api/diplomacy/games/"+g.Game.ID+"/stop"+q, "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("stop%s: %s", q, resp.Status)
		}
	}

	expectError := func(m any, want string) {
		t.Helper()
		write(t, ctx, c, m)
		for {
			r := readDip(t, ctx, c)
			if r.Type == TypeError {
				if !strings.Contains(r.Message, want) {
					t.Fatalf("error %q, want %q", r.Message, want)
				}
				return
			}
			if r.Type == TypeQuestionClosed {
				t.Fatal("a refused answer closed the question")
			}
		}
	}
	var sent []DipClientMessage
	hostile := 0
	tried := map[string]bool{}
	var events []DipEvent
	for done := false; !done; {
		m := readDip(t, ctx, c)
		switch m.Type {
		case TypeEvent:
			events = append(events, *m.Event)
		case TypeStatus:
			done = m.Game.Status != StatusRunning
			if done && m.Game.Status != StatusFinished {
				t.Fatalf("status %+v", m.Game)
			}
		case TypeError:
			t.Fatalf("error: %s", m.Message)
		case TypeQuestion:
			q := m.Question
			if q.Power != "FRANCE" || len(q.Prompt) != 2 {
				t.Fatalf("question %+v", q)
			}
			// Out of turn, the wrong power, the wrong kind, bad orders (at
			// most 16 bad messages: more close the socket).
			if hostile == 0 {
				expectError(DipClientMessage{Type: TypeOrders, ID: q.ID + 1, Orders: []string{}}, "is open, not")
				expectError(DipClientMessage{Type: TypeOrders, ID: q.ID, Power: "SPAIN", Orders: []string{}}, "unknown power")
				expectError(DipClientMessage{Type: TypeOrders, ID: q.ID, Power: "GERMANY", Orders: []string{}}, "you play FRANCE")
				expectError([]byte(`{"type":"orders","id":1,"orders":[],"extra":1}`), "unknown field")
				expectError([]byte(`{"type":"shout","id":1}`), "unknown type")
			}
			if !tried[q.Kind] {
				tried[q.Kind] = true
				hostile++
				if q.Kind == "negotiation" {
					expectError(DipClientMessage{Type: TypeOrders, ID: q.ID, Orders: []string{}}, "asks for negotiation")
					expectError(DipClientMessage{Type: TypeMessages, ID: q.ID, Messages: []DipOutMessage{{Recipient: "FRANCE", Content: "me"}}}, "yourself")
					expectError(DipClientMessage{Type: TypeMessages, ID: q.ID, Messages: []DipOutMessage{{Recipient: "ATLANTIS", Content: "hi"}}}, "unknown recipient")
					expectError(DipClientMessage{Type: TypeMessages, ID: q.ID, Messages: []DipOutMessage{{Recipient: "GLOBAL", Content: "  "}}}, "empty")
				} else {
					expectError(DipClientMessage{Type: TypeMessages, ID: q.ID, Messages: []DipOutMessage{}}, "asks for orders")
					expectError(DipClientMessage{Type: TypeOrders, ID: q.ID, Orders: []string{"A PAR - MUN"}}, "not one of your possible orders")
					expectError(DipClientMessage{Type: TypeOrders, ID: q.ID, Orders: []string{"hello there"}}, "not an order")
					expectError(DipClientMessage{Type: TypeOrders, ID: q.ID, Orders: []string{"A PAR H", "A PAR - BUR"}}, "two orders for PAR")
				}
			}
			a := dipAnswer(q)
			sent = append(sent, a)
			write(t, ctx, c, a)
		}
	}
	if hostile != 2 || len(sent) < 4 {
		t.Fatalf("%d questions answered", len(sent))
	}
	_, obsEnd := followToEnd(t, ctx, obs)
	if obsEnd.Status != StatusFinished || obsEnd.Seed == nil || *obsEnd.Seed != 3 {
		t.Fatalf("observer's end %+v", obsEnd)
	}
	// An observer's answer is refused, whatever it says.
	write(t, ctx, obs, DipClientMessage{Type: TypeOrders, ID: 1, Power: "FRANCE", Orders: []string{}})
	for {
		m := readDip(t, ctx, obs)
		if m.Type == TypeError {
			if !strings.Contains(m.Message, ErrNotPlayer.Error()) {
				t.Fatalf("observer's answer: %s", m.Message)
			}
			break
		}
	}

	code, body := getBody(t, ts.URL+"/api/diplomacy/games/"+g.Game.ID+"/log")
	if code != http.StatusOK {
		t.Fatalf("log after the end: %d %s", code, body)
	}
	var l dipgame.Log
	if err := json.Unmarshal(body, &l); err != nil {
		t.Fatal(err)
	}
	// Every answer reached the game as written.
	k := 0
	var privates []dipgame.Message
	for _, pl := range l.Game.Phases {
		for _, nl := range pl.Negotiation {
			var fr []dipgame.Message
			for _, m := range nl.Messages {
				if m.Sender == "FRANCE" {
					fr = append(fr, m)
				}
			}
			a := sent[k]
			k++
			want := []dipgame.Message{
				{Sender: "FRANCE", Recipient: "GERMANY", Content: "psst <think>" + pl.Phase + "</think>"},
				{Sender: "FRANCE", Recipient: "GLOBAL", Content: "peace in " + pl.Phase},
			}
			if a.Type != TypeMessages || !slices.Equal(fr, want) {
				t.Fatalf("%s: FRANCE's messages %v, want %v", pl.Phase, fr, want)
			}
			privates = append(privates, want[0])
		}
		if _, asked := pl.Orders["FRANCE"]; !asked {
			continue
		}
		a := sent[k]
		k++
		var canon []string
		for _, o := range a.Orders {
			op, err := diplomacy.ParseOrder(diplomacy.Standard(), o)
			if err != nil {
				t.Fatal(err)
			}
			canon = append(canon, op.String())
		}
		if !slices.Equal(pl.Orders["FRANCE"], canon) || len(pl.OrderLogs["FRANCE"]) != 0 || slices.Contains(pl.Fallback, "FRANCE") {
			t.Fatalf("%s: FRANCE's orders %v (refused %v), sent %v", pl.Phase, pl.Orders["FRANCE"], pl.OrderLogs["FRANCE"], canon)
		}
	}
	if k != len(sent) || len(privates) == 0 {
		t.Fatalf("%d answers in the log, %d sent", k, len(sent))
	}
	// The person saw their private messages; GERMANY's private answers to
	// others would be hidden (greedy sends none).
	var seenPrivate int
	for _, e := range events {
		for _, m := range e.Messages {
			if m.Recipient == "GERMANY" && m.Sender == "FRANCE" {
				seenPrivate++
			}
		}
	}
	if seenPrivate != len(privates) {
		t.Fatalf("the person saw %d of their %d private messages", seenPrivate, len(privates))
	}
}

// TestDiplomacyObserverOfPersonGame: an observer of a person's game sees
// global messages and the public board but no private message and no
// refused order.
func TestDiplomacyObserverOfPersonGame(t *testing.T) {
	v := dipViewer{}
	p := dipViewer{power: diplomacy.France}
	all := dipViewer{all: true}
	e := DipEvent{Type: DipEventNegotiation, Messages: []dipgame.Message{
		{Sender: "FRANCE", Recipient: "GERMANY", Content: "a"},
		{Sender: "ITALY", Recipient: "GLOBAL", Content: "b"},
		{Sender: "ITALY", Recipient: "FRANCE", Content: "c"},
		{Sender: "ITALY", Recipient: "AUSTRIA", Content: "d"},
	}}
	contents := func(e DipEvent) string {
		var s []string
		for _, m := range e.Messages {
			s = append(s, m.Content)
		}
		return strings.Join(s, "")
	}
	if got := contents(v.visible(e)); got != "b" {
		t.Fatalf("observer sees %q", got)
	}
	if got := contents(p.visible(e)); got != "abc" {
		t.Fatalf("FRANCE sees %q", got)
	}
	if got := contents(all.visible(e)); got != "abcd" {
		t.Fatalf("observer of a bots game sees %q", got)
	}
	ph := DipEvent{Type: DipEventPhase, Rejected: map[string][]diplomacy.Rejection{"FRANCE": {{Text: "x"}}, "ITALY": {{Text: "y"}}}}
	if r := v.visible(ph).Rejected; r != nil {
		t.Fatalf("observer sees refusals %v", r)
	}
	if r := p.visible(ph).Rejected; len(r) != 1 || r["FRANCE"] == nil {
		t.Fatalf("FRANCE sees refusals %v", r)
	}
	if r := all.visible(ph).Rejected; len(r) != 2 {
		t.Fatalf("observer of a bots game sees refusals %v", r)
	}
}

// TestDiplomacyRequests: bad new-game requests are refused with reasons.
func TestDiplomacyRequests(t *testing.T) {
	s, ts := newTestServer(t, Config{})
	for _, tc := range []struct {
		body, want string
	}{
		{`{"models":["greedy"],"person_power":"SPAIN"}`, "unknown power"},
		{`{"models":["greedy","random"]}`, "2 models for 7 powers"},
		{`{"models":["informed"]}`, "unknown model"},
		{`{"models":["greedy"],"person_power":"FRANCE","seed":4}`, "seed is drawn by the server"},
		{`{"models":["greedy"],"delay_ms":100000}`, "delay"},
		{`{"models":["greedy"],"max_phases":1000}`, "max_phases"},
		{`{"models":["greedy"],"max_phases":-1}`, "max_phases"},
		{`{"models":["greedy"],"negotiation_rounds":9}`, "negotiation_rounds"},
		{`{"models":["greedy"],"extra":1}`, "unknown field"},
		{`{"models":["greedy"]} {}`, "trailing data"},
	} {
		resp, err := http.Post(ts.URL+"/api/diplomacy/games", "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: %s %s, want 400 %q", tc.body, resp.Status, b, tc.want)
		}
	}
	// Another origin may not start a game.
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/diplomacy/games", strings.NewReader(`{"models":["greedy"]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://evil.example")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin: %s", resp.Status)
	}
	if code, _ := getBody(t, ts.URL+"/api/diplomacy/games/nope/log"); code != http.StatusNotFound {
		t.Fatalf("unknown game's log: %d", code)
	}
	// A foreign Host (DNS rebinding) is refused on the Diplomacy routes,
	// even with a matching Origin.
	client := hostClient(t, ts)
	for _, path := range []string{"/api/diplomacy/games", "/api/diplomacy/map", "/diplomacy/x", "/ws/diplomacy/x"} {
		method, body := http.MethodGet, ""
		if path == "/api/diplomacy/games" {
			method, body = http.MethodPost, `{"models":["greedy"]}`
		}
		req, _ := http.NewRequest(method, "http://evil.example"+path, strings.NewReader(body))
		req.Header.Set("Origin", "http://evil.example")
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s %s with a foreign Host: %s", method, path, resp.Status)
		}
	}
	// Limits count both games: one observe place, taken by Diplomacy.
	s2, _ := newTestServer(t, Config{MaxGames: 1, MaxPersonGames: 1})
	if _, err := s2.StartDiplomacy(DipNewGameRequest{Models: []string{"greedy"}, DelayMS: 1000}); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Start(NewGameRequest{Models: []string{"random"}, DelayMS: 1000}); !errors.Is(err, ErrTooManyGames) {
		t.Fatalf("an Avalon observe game beside a Diplomacy one: %v", err)
	}
	if _, err := s2.StartDiplomacy(DipNewGameRequest{Models: []string{"greedy"}, PersonPower: "TURKEY"}); err != nil {
		t.Fatalf("a person game beside an observe game: %v", err)
	}
	if _, err := s2.Start(NewGameRequest{Models: []string{"random"}, PersonSeat: seatPtr(0)}); !errors.Is(err, ErrTooManyGames) {
		t.Fatalf("a second person game: %v", err)
	}
	_ = s
}

func TestDiplomacyOversizeFrameClosesTheSocket(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, ts := newTestServer(t, Config{MaxMessageBytes: 1024})
	g := postDip(t, ts, DipNewGameRequest{Models: []string{"greedy"}, PersonPower: "ENGLAND"})
	c := dialDip(t, ctx, ts, g.Game.ID, g.Token)
	readDip(t, ctx, c)
	write(t, ctx, c, DipClientMessage{Type: TypeMessages, ID: 1, Messages: []DipOutMessage{{Recipient: "GLOBAL", Content: strings.Repeat("a", 2000)}}})
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

// TestDiplomacyAnswerTimeout: a person who does not answer stops the game
// (no bot plays the power instead), which frees its place.
func TestDiplomacyAnswerTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, ts := newTestServer(t, Config{AnswerTimeout: 300 * time.Millisecond, MaxPersonGames: 1})
	g := postDip(t, ts, DipNewGameRequest{Models: []string{"random"}, PersonPower: "ITALY"})
	c := dialDip(t, ctx, ts, g.Game.ID, g.Token)
	_, end := followToEnd(t, ctx, c)
	if end.Status != StatusStopped || !strings.Contains(end.Error, ErrNoAnswer.Error()) {
		t.Fatalf("status %+v, want stopped by %v", end, ErrNoAnswer)
	}
	if _, err := s.StartDiplomacy(DipNewGameRequest{Models: []string{"random"}, PersonPower: "ITALY"}); err != nil {
		t.Fatalf("a person game after the timed-out one: %v", err)
	}
	// The stopped game's log is served (it holds the error).
	code, body := getBody(t, ts.URL+"/api/diplomacy/games/"+g.Game.ID+"/log")
	var l dipgame.Log
	if code != http.StatusOK || json.Unmarshal(body, &l) != nil || !strings.Contains(l.Error, ErrNoAnswer.Error()) {
		t.Fatalf("log %d %.300s", code, body)
	}
}

// TestDiplomacyStopWithToken: the person's token stops the game.
func TestDiplomacyStopWithToken(t *testing.T) {
	_, ts := newTestServer(t, Config{})
	g := postDip(t, ts, DipNewGameRequest{Models: []string{"greedy"}, PersonPower: "RUSSIA"})
	resp, err := http.Post(ts.URL+"/api/diplomacy/games/"+g.Game.ID+"/stop?token="+g.Token, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	var gi DipGameInfo
	_ = json.NewDecoder(resp.Body).Decode(&gi)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || gi.Status != StatusStopped || gi.Seed == nil {
		t.Fatalf("stop: %s %+v", resp.Status, gi)
	}
}

// TestDiplomacyAbsentPerson: a person who never opens the page stops the
// game after Config.PersonTimeout, with ErrPersonLeft.
func TestDiplomacyAbsentPerson(t *testing.T) {
	s, _ := newTestServer(t, Config{PersonTimeout: 200 * time.Millisecond})
	g, err := s.StartDiplomacy(DipNewGameRequest{Models: []string{"greedy"}, PersonPower: "AUSTRIA"})
	if err != nil {
		t.Fatal(err)
	}
	dg, err := s.lookupDip(g.Game.ID)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-dg.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the game did not stop")
	}
	if gi := dg.info(); gi.Status != StatusStopped || !strings.Contains(gi.Error, ErrPersonLeft.Error()) {
		t.Fatalf("status %+v, want stopped by %v", gi, ErrPersonLeft)
	}
}
