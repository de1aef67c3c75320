package avalon

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

func randomSeats(n int, seed uint64, noise float64) []llm.ChatModel {
	seats := make([]llm.ChatModel, n)
	for i := range seats {
		seats[i] = Random{Seed: seed + uint64(i), Noise: noise}
	}
	return seats
}

// readLog decodes a JSON lines log strictly.
func readLog(t *testing.T, b []byte) []Event {
	t.Helper()
	var out []Event
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var e Event
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

// replay checks that a log is a legal game: it drives a fresh engine with
// the logged actions and compares every logged outcome.
func replay(t *testing.T, cfg Config, events []Event, res Result) {
	t.Helper()
	if len(events) < 2 || events[0].Type != EventGameStart || events[len(events)-1].Type != EventGameEnd {
		t.Fatalf("log does not start and end with the game: %d events", len(events))
	}
	for i, e := range events {
		if e.Seq != i {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
	}
	start := events[0]
	s, err := SetupFor(start.Players)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := NewEngine(s, Deal{Roles: start.Roles, Leader: *start.Leader})
	if err != nil {
		t.Fatal(err)
	}
	roleEvents := 0
	for _, e := range events[1:] {
		switch e.Type {
		case EventRole:
			if *e.Role != start.Roles[*e.Seat] {
				t.Fatalf("seat %d told role %v, dealt %v", *e.Seat, *e.Role, start.Roles[*e.Seat])
			}
			if !slices.Equal(e.Knowledge, Knowledge(start.Roles, *e.Seat)) {
				t.Fatalf("seat %d knowledge %v", *e.Seat, e.Knowledge)
			}
			roleEvents++
		case EventDiscussion:
			if eng.Phase() != PhaseTeamSelection || *e.Quest != eng.Quest() || *e.Proposal != eng.Proposal() {
				t.Fatalf("discussion out of phase: %+v", e)
			}
		case EventTeamProposed:
			if err := eng.ProposeTeam(*e.Seat, e.Team); err != nil {
				t.Fatalf("logged proposal %+v: %v", e, err)
			}
		case EventTeamVote:
			forcedBefore := eng.NextProposalForced()
			approved, forced, err := eng.VoteTeam(e.Votes)
			if err != nil || approved != *e.Approved || forced != e.Forced || forced != forcedBefore {
				t.Fatalf("logged team vote %+v: engine says %v %v %v", e, approved, forced, err)
			}
		case EventQuest:
			if !slices.Equal(e.Team, eng.Team()) {
				t.Fatalf("quest team %v, engine %v", e.Team, eng.Team())
			}
			for k, seat := range e.Team {
				if !e.Votes[k] && start.Roles[seat].Side() == Good && !cfg.AllowGoodFail {
					t.Fatalf("good seat %d failed a quest", seat)
				}
			}
			ok, fails, err := eng.VoteQuest(e.Votes)
			if err != nil || ok != *e.Succeeded || fails != *e.Fails {
				t.Fatalf("logged quest %+v: engine says %v %d %v", e, ok, fails, err)
			}
		case EventAssassination:
			gw, err := eng.Assassinate(*e.Seat, *e.Target)
			if err != nil || gw != *e.GoodWins || *e.TargetRole != start.Roles[*e.Target] {
				t.Fatalf("logged assassination %+v: engine says %v %v", e, gw, err)
			}
		case EventGameEnd:
			if !eng.Done() || *e.GoodWins != eng.GoodWins() || !slices.Equal(e.QuestResults, eng.QuestResults()) {
				t.Fatalf("game end %+v, engine done %v good %v", e, eng.Done(), eng.GoodWins())
			}
		case EventParseFailure, EventFallback, EventCoerced, EventCall:
		default:
			t.Fatalf("unknown event type %q", e.Type)
		}
	}
	if roleEvents != start.Players {
		t.Fatalf("%d role events for %d players", roleEvents, start.Players)
	}
	if res.GoodWins != eng.GoodWins() || !slices.Equal(res.Roles, start.Roles) {
		t.Fatalf("result %+v disagrees with the log", res)
	}
}

func TestGamesAllPlayerCounts(t *testing.T) {
	for n := MinPlayers; n <= MaxPlayers; n++ {
		for _, roles := range []Roles{{}, {Percival: true, Morgana: true, Mordred: n >= 7, Oberon: n >= 10}} {
			for seed := range uint64(4) {
				t.Run(fmt.Sprintf("n%d/roles%v/seed%d", n, roles.Percival, seed), func(t *testing.T) {
					cfg := Config{Players: n, Roles: roles}
					var buf bytes.Buffer
					res, err := Play(context.Background(), cfg, seed, randomSeats(n, seed*100, 0.15), &buf)
					if err != nil {
						t.Fatal(err)
					}
					replay(t, cfg, readLog(t, buf.Bytes()), res)
					if res.Calls == 0 || len(res.QuestResults) < 3 {
						t.Fatalf("result %+v", res)
					}
				})
			}
		}
	}
}

func TestGameReproducible(t *testing.T) {
	run := func(cfg Config, seed uint64) []byte {
		var buf bytes.Buffer
		if _, err := Play(context.Background(), cfg, seed, randomSeats(7, 5, 0.2), &buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	cfg := Config{Players: 7, Roles: Roles{Percival: true, Morgana: true}, LogCalls: true}
	a := run(cfg, 99)
	b := run(cfg, 99)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed, different log bytes")
	}
	seq := cfg
	seq.Sequential = true
	if !bytes.Equal(a, run(seq, 99)) {
		t.Fatal("sequential and concurrent voting logged differently")
	}
	if bytes.Equal(a, run(cfg, 100)) {
		t.Fatal("different seeds, same log")
	}
}

// recorder wraps a model and keeps every request per seat.
type recorder struct {
	inner llm.ChatModel
	mu    sync.Mutex
	reqs  [][]agentevolver.Message
}

func (r *recorder) Chat(ctx context.Context, m []agentevolver.Message, o llm.ChatOptions) (llm.Completion, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, slices.Clone(m))
	r.mu.Unlock()
	return r.inner.Chat(ctx, m, o)
}

func TestVisibilityInPrompts(t *testing.T) {
	for n := MinPlayers; n <= MaxPlayers; n++ {
		roles := Roles{Percival: true, Morgana: true, Mordred: n >= 7, Oberon: n >= 10}
		recs := make([]*recorder, n)
		seats := make([]llm.ChatModel, n)
		for i := range seats {
			recs[i] = &recorder{inner: Random{Seed: uint64(i)}}
			seats[i] = recs[i]
		}
		res, err := Play(context.Background(), Config{Players: n, Roles: roles}, uint64(n), seats, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range recs {
			me := res.Roles[i]
			know := Knowledge(res.Roles, i)
			seen := map[int]bool{}
			for _, k := range know {
				seen[k.Seat] = true
			}
			ownAnswers := false
			for _, req := range r.reqs {
				ownAnswers = ownAnswers || strings.Contains(req[1].Content, "<agent:"+PlayerName(i)+" (private answer)>")
				sys := req[0].Content
				for j := range n {
					_, line, _ := strings.Cut(sys, "# Your role\n")
					line, _, _ = strings.Cut(line, "\n# How")
					mentioned := strings.Contains(line, PlayerName(j)+",") || strings.Contains(line, PlayerName(j)+".") || strings.Contains(line, PlayerName(j)+" ")
					if mentioned != seen[j] {
						t.Fatalf("%d players: seat %d (%v) role text %q; mentions %s: %v, knows: %v", n, i, me, line, PlayerName(j), mentioned, seen[j])
					}
				}
				all := req[1].Content
				for j := range n {
					if j != i && strings.Contains(all, "["+PlayerName(j)+" ONLY]") {
						t.Fatalf("seat %d saw seat %d's private message", i, j)
					}
					// Another seat's answers to private questions (its team
					// choice, votes, quest cards) never reach this seat.
					if j != i && strings.Contains(all, "<agent:"+PlayerName(j)+" (private answer)>") {
						t.Fatalf("seat %d saw seat %d's private answer", i, j)
					}
				}
				// The role reveal of the end never reaches a prompt mid-game,
				// and only the seat's own role is named in its history.
				if strings.Contains(all, "True roles:") {
					t.Fatalf("seat %d saw the true roles", i)
				}
			}
			if !ownAnswers {
				t.Fatalf("seat %d never saw its own private answers", i)
			}
			// Spot checks of the rules.
			switch me {
			case Merlin:
				for _, k := range know {
					if res.Roles[k.Seat].Side() != Evil || res.Roles[k.Seat] == Mordred {
						t.Fatalf("Merlin sees %v", res.Roles[k.Seat])
					}
				}
			case Oberon, Servant:
				if len(know) != 0 {
					t.Fatalf("%v sees %v", me, know)
				}
			case Percival:
				if len(know) != 2 {
					t.Fatalf("Percival sees %v", know)
				}
			}
		}
	}
}

func TestKnowledgeRules(t *testing.T) {
	roles := []Role{Merlin, Percival, Servant, Servant, Servant, Servant, Assassin, Morgana, Mordred, Oberon}
	seats := func(ks []Sighting) []int {
		var out []int
		for _, k := range ks {
			out = append(out, k.Seat)
		}
		return out
	}
	want := map[int][]int{
		0:  {6, 7, 9},    // Merlin: evil but Mordred
		1:  {0, 7},       // Percival: Merlin and Morgana
		2:  nil,          // Servant
		6:  {7, 8},       // Assassin: evil but Oberon
		7:  {6, 8},       // Morgana
		8:  {6, 7},       // Mordred
		9:  nil,          // Oberon
		-1: nil, 10: nil, // out of range
	}
	for seat, w := range want {
		if got := seats(Knowledge(roles, seat)); !slices.Equal(got, w) {
			t.Errorf("seat %d (%v) sees %v, want %v", seat, roleAt(roles, seat), got, w)
		}
	}
	for _, k := range Knowledge(roles, 1) {
		if k.As != SeenMerlinOrMorgana {
			t.Errorf("Percival's sighting %v", k)
		}
	}
}

func roleAt(r []Role, i int) any {
	if i < 0 || i >= len(r) {
		return "none"
	}
	return r[i]
}

func TestScriptedFallbacks(t *testing.T) {
	// Every seat answers gibberish: the game still ends legally, with
	// re-asks and fallbacks logged.
	seats := make([]llm.ChatModel, 5)
	for i := range seats {
		s := NewScripted()
		s.Default = "I refuse to answer that."
		seats[i] = s
	}
	var buf bytes.Buffer
	res, err := Play(context.Background(), Config{MaxRetries: 1}, 3, seats, &buf)
	if err != nil {
		t.Fatal(err)
	}
	events := readLog(t, buf.Bytes())
	replay(t, Config{}, events, res)
	if res.Fallbacks == 0 || res.ParseFailures != 2*res.Fallbacks {
		t.Fatalf("fallbacks %d, parse failures %d", res.Fallbacks, res.ParseFailures)
	}
	// Unreadable team votes are rejections, so only the forced fifth
	// proposals go ahead; unreadable quest cards are successes.
	for _, e := range events {
		if e.Type == EventTeamVote && *e.Approved != e.Forced {
			t.Fatalf("team vote %+v", e)
		}
		if e.Type == EventQuest && !*e.Succeeded {
			t.Fatalf("quest %+v failed without a fail card", e)
		}
	}
	if !slices.Equal(res.QuestResults, []bool{true, true, true}) {
		t.Fatalf("quest results %v", res.QuestResults)
	}
	// The team fallback is the leader and the seats after it.
	for _, e := range events {
		if e.Type == EventTeamProposed {
			leader := *e.Seat
			want := []int{leader, (leader + 1) % 5}
			if sz := len(e.Team); sz == 3 {
				want = append(want, (leader+2)%5)
			}
			slices.Sort(want)
			if !slices.Equal(e.Team, want) {
				t.Fatalf("fallback team %v for leader %d", e.Team, leader)
			}
		}
	}
}

func TestScriptedReask(t *testing.T) {
	// A leader that first answers with prose numbers, then a legal list.
	s := NewScripted("I like Player 3 and Player 4 for Mission 1.", "[3, 4]")
	s.Default = "Yes"
	g, err := newGame(Config{}, 1, []llm.ChatModel{s, s, s, s, s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var team []int
	_, err = g.askParsed(context.Background(), 0, ActionTeam, "pick", "format", func(r string) error {
		var err error
		team, err = ParseTeam(r, 2, 5)
		return err
	})
	if err != nil || !slices.Equal(team, []int{3, 4}) || g.res.ParseFailures != 1 {
		t.Fatalf("team %v err %v failures %d", team, err, g.res.ParseFailures)
	}
	// The re-ask shows the failed reply and says what was wrong.
	last := s.Requests[len(s.Requests)-1]
	if len(last) != 4 || last[2].Role != agentevolver.RoleAssistant || !strings.Contains(last[3].Content, "could not be read") {
		t.Fatalf("re-ask request %+v", last)
	}
}

func TestPlayErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Play(ctx, Config{Players: 4}, 1, randomSeats(4, 0, 0), nil); !errors.Is(err, ErrConfig) {
		t.Errorf("4 players: %v", err)
	}
	if _, err := Play(ctx, Config{}, 1, randomSeats(6, 0, 0), nil); !errors.Is(err, ErrConfig) {
		t.Errorf("6 models for 5 seats: %v", err)
	}
	boom := errors.New("boom")
	seats := randomSeats(5, 0, 0)
	seats[2] = llm.ChatModelFunc(func(context.Context, []agentevolver.Message, llm.ChatOptions) (llm.Completion, error) {
		return llm.Completion{}, boom
	})
	if _, err := Play(ctx, Config{}, 1, seats, nil); !errors.Is(err, ErrModel) || !errors.Is(err, boom) {
		t.Errorf("failing model: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	calls := 0
	seats[2] = llm.ChatModelFunc(func(ctx context.Context, m []agentevolver.Message, o llm.ChatOptions) (llm.Completion, error) {
		calls++
		if calls == 3 {
			cancel()
		}
		return Random{}.Chat(context.Background(), m, o)
	})
	if _, err := Play(cctx, Config{Sequential: true}, 1, seats, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled game: %v", err)
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	w.n++
	if w.n > 3 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestLogWriteError(t *testing.T) {
	_, err := Play(context.Background(), Config{}, 1, randomSeats(5, 0, 0), &failWriter{})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
}

func TestGoodFailCoerced(t *testing.T) {
	// Everyone approves and fails every quest: Good's fails are coerced.
	seats := make([]llm.ChatModel, 5)
	for i := range seats {
		seats[i] = llm.ChatModelFunc(func(ctx context.Context, m []agentevolver.Message, o llm.ChatOptions) (llm.Completion, error) {
			ask := m[1].Content
			switch {
			case strings.Contains(ask, "Play your quest card"):
				return completion("No"), nil
			case strings.Contains(ask, "Do you approve"):
				return completion("Yes"), nil
			}
			return Random{}.Chat(ctx, m, o)
		})
	}
	for _, allow := range []bool{false, true} {
		var buf bytes.Buffer
		cfg := Config{AllowGoodFail: allow}
		res, err := Play(context.Background(), cfg, 11, seats, &buf)
		if err != nil {
			t.Fatal(err)
		}
		events := readLog(t, buf.Bytes())
		replay(t, cfg, events, res)
		coerced := 0
		for _, e := range events {
			if e.Type == EventCoerced {
				coerced++
			}
		}
		if allow != (coerced == 0) {
			t.Fatalf("allow %v: %d coerced", allow, coerced)
		}
		if allow && res.GoodWins {
			t.Fatal("everyone failing every quest, and good won")
		}
	}
}

func TestHistoryBounded(t *testing.T) {
	rec := &recorder{inner: Random{}}
	seats := []llm.ChatModel{rec, Random{Seed: 1}, Random{Seed: 2}, Random{Seed: 3}, Random{Seed: 4}}
	if _, err := Play(context.Background(), Config{MaxHistoryBytes: 2000}, 5, seats, nil); err != nil {
		t.Fatal(err)
	}
	var cut bool
	for _, req := range rec.reqs {
		_, hist, _ := strings.Cut(req[1].Content, "<history>\n")
		hist, _, _ = strings.Cut(hist, "\n</history>")
		if len(hist) > 2000 {
			t.Fatalf("history of %d bytes", len(hist))
		}
		cut = cut || strings.Contains(req[1].Content, "older messages are not shown")
		if !strings.Contains(req[0].Content, "Your role is") {
			t.Fatal("system prompt lost the role")
		}
	}
	if !cut {
		t.Fatal("history never cut")
	}
}
