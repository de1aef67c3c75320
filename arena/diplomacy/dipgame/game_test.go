package dipgame_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
	"github.com/org/agentevolver/llm"
)

// scripted answers negotiation questions with neg and order questions
// with orders (or, when orders is empty, with the greedy bot's), and
// records every request.
type scripted struct {
	neg    string
	orders string
	mu     sync.Mutex
	asked  [][]agentevolver.Message
	err    error
}

func (s *scripted) Chat(ctx context.Context, msgs []agentevolver.Message, o llm.ChatOptions) (llm.Completion, error) {
	s.mu.Lock()
	s.asked = append(s.asked, msgs)
	s.mu.Unlock()
	if s.err != nil {
		return llm.Completion{}, s.err
	}
	q, err := dipgame.ReadQuestion(diplomacy.Standard(), msgs)
	if err != nil {
		return llm.Completion{}, err
	}
	text := s.orders
	if q.Negotiation {
		text = s.neg
	} else if text == "" {
		return dipgame.Greedy{}.Chat(ctx, msgs, o)
	}
	return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: text}}, nil
}

func greedySeats() []llm.ChatModel {
	out := make([]llm.ChatModel, diplomacy.NumPowers)
	for i := range out {
		out[i] = dipgame.Greedy{}
	}
	return out
}

func TestPlayLogShapeAndScores(t *testing.T) {
	var buf bytes.Buffer
	models := greedySeats()
	for i := 1; i < len(models); i += 2 {
		models[i] = dipgame.Random{Seed: uint64(i)}
	}
	cfg := dipgame.Config{MaxPhases: 6, NegotiationRounds: 2, SeatNames: []string{"a", "b", "c", "d", "e", "f", "g"}, GameID: "g1"}
	res, err := dipgame.Play(context.Background(), cfg, 3, models, &buf)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"map_name", "game_id", "outcome", "game_log", "model_names", "scores", "history"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("log has no %q", k)
		}
	}
	var l dipgame.Log
	if err := json.Unmarshal(buf.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Game.Phases) != 6 || len(l.History) != 6 {
		t.Fatalf("%d phases, %d history records", len(l.Game.Phases), len(l.History))
	}
	movements := 0
	for _, ph := range l.Game.Phases {
		if strings.HasSuffix(ph.Phase, "M") {
			movements++
			if len(ph.Negotiation) != 2 {
				t.Errorf("%s: %d negotiation rounds", ph.Phase, len(ph.Negotiation))
			}
		} else if len(ph.Negotiation) != 0 {
			t.Errorf("%s: negotiation outside a movement phase", ph.Phase)
		}
		if len(ph.SCCounts) == 0 {
			t.Errorf("%s: no sc_counts", ph.Phase)
		}
	}
	if movements == 0 {
		t.Fatal("no movement phase")
	}
	// Scores are the reference's formula over the final centres.
	for i, p := range diplomacy.Powers() {
		want := min(float64(res.Centers[i])/18, 1) // 0 centres: 0, eliminated or not
		if res.Score(p) != want || l.Scores[p.String()] != want {
			t.Errorf("%s: score %v, log %v, want %v", p, res.Score(p), l.Scores[p.String()], want)
		}
	}
	// The log replays: the history rebuilds the same final position.
	g, err := diplomacy.Replay(diplomacy.Standard(), diplomacy.Config{}, l.History)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range diplomacy.Powers() {
		if len(g.Centers(p)) != res.Centers[i] {
			t.Errorf("replayed %s has %d centres, want %d", p, len(g.Centers(p)), res.Centers[i])
		}
	}
}

func TestPlayDeterministicConcurrentOrNot(t *testing.T) {
	logOf := func(sequential bool) string {
		var buf bytes.Buffer
		models := greedySeats()
		models[2] = dipgame.Random{Seed: 9}
		models[5] = nil // no agent: seeded random orders
		if _, err := dipgame.Play(context.Background(), dipgame.Config{MaxPhases: 5, NegotiationRounds: 1, Sequential: sequential}, 11, models, &buf); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	a, b, c := logOf(false), logOf(true), logOf(false)
	if a != b || a != c {
		t.Error("the same seed wrote different logs")
	}
	if !strings.Contains(a, `"defaulted":["RUSSIA"]`) {
		t.Error("the power without a model is not marked as defaulted")
	}
}

func TestNegotiationDelivery(t *testing.T) {
	fr := &scripted{neg: `[{"message_type": "private", "recipient": "GERMANY", "content": "secret-for-germany"}, {"message_type": "global", "content": "hello-all"}]`}
	models := make([]llm.ChatModel, diplomacy.NumPowers)
	spies := make([]*scripted, diplomacy.NumPowers)
	for i := range models {
		spies[i] = &scripted{neg: "[]"}
		models[i] = spies[i]
	}
	spies[diplomacy.France-1] = fr
	models[diplomacy.France-1] = fr
	if _, err := dipgame.Play(context.Background(), dipgame.Config{MaxPhases: 1, NegotiationRounds: 2}, 1, models, nil); err != nil {
		t.Fatal(err)
	}
	for i, p := range diplomacy.Powers() {
		s := spies[i]
		// Round 1's questions were asked before any message was delivered.
		first := s.asked[0][1].Content
		if strings.Contains(first, "hello-all") {
			t.Errorf("%s saw a message before the round's replies were all in", p)
		}
		second := s.asked[1][1].Content
		if !strings.Contains(second, "FRANCE -> GLOBAL: hello-all") {
			t.Errorf("%s did not get the global message", p)
		}
		sees := strings.Contains(second, "secret-for-germany")
		if want := p == diplomacy.France || p == diplomacy.Germany; sees != want {
			t.Errorf("%s sees the private message: %v, want %v", p, sees, want)
		}
		// The board is in every question.
		for _, req := range s.asked {
			if !strings.Contains(req[1].Content, "# Board\n") || !strings.Contains(req[1].Content, "Possible orders:") {
				t.Fatalf("%s: a question without the board", p)
			}
		}
	}
}

func TestIllegalOrdersRejectedAndLogged(t *testing.T) {
	bad := &scripted{neg: "[]", orders: `{"orders": ["A PAR - MUN", "F BRE - MAO", "F BRE H", "A MAR - XYZ"]}`}
	models := greedySeats()
	models[diplomacy.France-1] = bad
	var buf bytes.Buffer
	res, err := dipgame.Play(context.Background(), dipgame.Config{MaxPhases: 1, NegotiationRounds: -1}, 1, models, &buf)
	if err != nil {
		t.Fatal(err)
	}
	var l dipgame.Log
	if err := json.Unmarshal(buf.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	ph := l.Game.Phases[0]
	if got := ph.Orders["FRANCE"]; len(got) != 1 || got[0] != "F BRE - MAO" {
		t.Errorf("France's orders %v", got)
	}
	if n := len(ph.OrderLogs["FRANCE"]); n != 3 || res.Rejected != 3 {
		t.Errorf("%d refused in the log, %d counted; want 3: %+v", n, res.Rejected, ph.OrderLogs)
	}
	for _, r := range l.History[0].Results {
		if r.Unit.Loc == "PAR" && r.Order.Type != diplomacy.Hold {
			t.Errorf("A PAR did %s, want a hold", r.Order)
		}
	}
}

func TestModelErrorStopsAndLogs(t *testing.T) {
	models := greedySeats()
	boom := errors.New("boom")
	models[3] = &scripted{err: boom}
	var buf bytes.Buffer
	_, err := dipgame.Play(context.Background(), dipgame.Config{}, 1, models, &buf)
	if !errors.Is(err, dipgame.ErrModel) || !errors.Is(err, boom) || !strings.Contains(err.Error(), "GERMANY") {
		t.Fatalf("error %v", err)
	}
	var l dipgame.Log
	if err := json.Unmarshal(buf.Bytes(), &l); err != nil || !strings.Contains(l.Error, "boom") {
		t.Fatalf("log %v (%v)", l.Error, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := dipgame.Play(ctx, dipgame.Config{}, 1, greedySeats(), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestPlayConfigErrors(t *testing.T) {
	if _, err := dipgame.Play(context.Background(), dipgame.Config{}, 1, greedySeats()[:6], nil); !errors.Is(err, dipgame.ErrConfig) {
		t.Errorf("6 models: %v", err)
	}
	if _, err := dipgame.Play(context.Background(), dipgame.Config{SeatNames: []string{"x"}}, 1, greedySeats(), nil); !errors.Is(err, dipgame.ErrConfig) {
		t.Errorf("1 seat name: %v", err)
	}
}

func TestLogCalls(t *testing.T) {
	var buf bytes.Buffer
	if _, err := dipgame.Play(context.Background(), dipgame.Config{MaxPhases: 1, NegotiationRounds: 1, LogCalls: true}, 1, greedySeats(), &buf); err != nil {
		t.Fatal(err)
	}
	var l dipgame.Log
	if err := json.Unmarshal(buf.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Calls) != 14 { // 7 negotiation + 7 orders
		t.Fatalf("%d calls logged", len(l.Calls))
	}
	if l.Calls[0].Action != "negotiation" || l.Calls[7].Action != "orders" || len(l.Calls[0].Prompt) != 2 {
		t.Errorf("calls %+v", l.Calls[0])
	}
}
