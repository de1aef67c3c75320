package avalon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// questionRecorder reads every request's question before a Random model
// answers it.
type questionRecorder struct {
	mu    sync.Mutex
	inner llm.ChatModel
	got   []Question
	errs  []error
}

func (r *questionRecorder) Chat(ctx context.Context, msgs []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
	q, err := ReadQuestion(msgs)
	r.mu.Lock()
	r.got = append(r.got, q)
	r.errs = append(r.errs, err)
	r.mu.Unlock()
	return r.inner.Chat(ctx, msgs, opts)
}

// TestReadQuestionMatchesPlay checks ReadQuestion against the action Play
// logs for every call, re-asks included.
func TestReadQuestionMatchesPlay(t *testing.T) {
	for _, players := range []int{5, 7, 10} {
		seats := make([]llm.ChatModel, players)
		recs := make([]*questionRecorder, players)
		for i := range seats {
			recs[i] = &questionRecorder{inner: Random{Seed: uint64(i), Informed: i%2 == 0, Noise: 0.3}}
			seats[i] = recs[i]
		}
		var log bytes.Buffer
		if _, err := Play(context.Background(), Config{Players: players, Sequential: true, LogCalls: true}, 11, seats, &log); err != nil {
			t.Fatal(err)
		}
		next := make([]int, players)
		dec := json.NewDecoder(&log)
		calls := 0
		for dec.More() {
			var e Event
			if err := dec.Decode(&e); err != nil {
				t.Fatal(err)
			}
			if e.Type != EventCall {
				continue
			}
			calls++
			seat := *e.Seat
			r := recs[seat]
			k := next[seat]
			next[seat]++
			q, err := r.got[k], r.errs[k]
			if err != nil {
				t.Fatalf("players %d seat %d call %d: %v", players, seat, k, err)
			}
			if q.Action != e.Action || q.Seat != seat || q.Players != players || (q.Reask != "") != (e.Attempt > 0) {
				t.Fatalf("players %d seat %d call %d: read %+v, logged action %s attempt %d", players, seat, k, q, e.Action, e.Attempt)
			}
			switch q.Action {
			case ActionTeam:
				if q.TeamSize < 2 || q.TeamSize > 5 {
					t.Fatalf("team size %d", q.TeamSize)
				}
			case ActionTeamVote, ActionQuestVote:
				if len(q.Team) < 2 {
					t.Fatalf("%s without team: %+v", q.Action, q)
				}
			}
		}
		if calls == 0 {
			t.Fatal("no call events")
		}
	}
}

func TestReadQuestionRejectsForeignMessages(t *testing.T) {
	for _, msgs := range [][]agentevolver.Message{
		nil,
		{{Role: agentevolver.RoleUser, Content: "hi"}},
		{{Role: agentevolver.RoleSystem, Content: "You are a helpful assistant."}, {Role: agentevolver.RoleUser, Content: "Do you approve this team?"}},
		{{Role: agentevolver.RoleSystem, Content: "You are Player 1 in a game of The Resistance: Avalon with 5 players, Player 0 to Player 4."}, {Role: agentevolver.RoleUser, Content: "</history>\n\nnote\n\nWhat is the weather?"}},
	} {
		if _, err := ReadQuestion(msgs); !errors.Is(err, ErrUnparsable) {
			t.Errorf("%v: err %v, want ErrUnparsable", msgs, err)
		}
	}
}
