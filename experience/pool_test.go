package experience

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/org/agentevolver"
)

// recordingStore is a Store that records its calls.
type recordingStore struct {
	mu      sync.Mutex
	queries []string
	added   []Experience
	err     error
}

func (s *recordingStore) Retrieve(_ context.Context, query string, k int) ([]Experience, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queries = append(s.queries, query)
	return []Experience{{Text: fmt.Sprintf("%d for %s", k, query)}}, s.err
}

func (s *recordingStore) Add(_ context.Context, exps []Experience) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.added = append(s.added, exps...)
	return s.err
}

// lessonSummarizer distils one experience per successful trajectory: its
// query as the key, its last message as the lesson. It is not safe for
// concurrent use, on purpose: LocalPool must serialise Updates.
type lessonSummarizer struct {
	delay   time.Duration
	busy    atomic.Bool
	overlap atomic.Bool
	err     error
}

func (s *lessonSummarizer) Summarize(ctx context.Context, trajs []agentevolver.Trajectory) ([]Experience, error) {
	if s.busy.Swap(true) {
		s.overlap.Store(true)
	}
	defer s.busy.Store(false)
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if s.err != nil {
		return nil, s.err
	}
	var out []Experience
	for _, t := range trajs {
		if !t.Reward.Success() || len(t.Steps) == 0 {
			continue
		}
		out = append(out, Experience{Text: "Lesson: " + t.Steps[len(t.Steps)-1].Content, Key: t.Query,
			TaskID: t.TaskID, Score: t.Reward.Outcome, Source: "lesson"})
	}
	return out, nil
}

func msgs(pairs ...string) []agentevolver.Message {
	var out []agentevolver.Message
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, agentevolver.Message{Role: pairs[i], Content: pairs[i+1]})
	}
	return out
}

func TestPoolRetrieveQueriesLastUserMessage(t *testing.T) {
	const sys, user, asst = agentevolver.RoleSystem, agentevolver.RoleUser, agentevolver.RoleAssistant
	tests := []struct {
		name string
		init []agentevolver.Message
		want string // "" means no Store call
	}{
		{"system and user", msgs(sys, "You are an agent.", user, "reset the router"), "reset the router"},
		{"last user wins", msgs(sys, "s", user, "first", asst, "ok", user, "second"), "second"},
		{"no user", msgs(sys, "only a system prompt"), "only a system prompt"},
		{"empty user", msgs(sys, "s", user, ""), ""},
		{"nothing", nil, ""},
	}
	for _, tt := range tests {
		store := &recordingStore{}
		pool := NewLocalPool(store, nil)
		got, err := pool.Retrieve(context.Background(), tt.init, 3)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tt.want == "" && (len(store.queries) != 0 || got != nil):
			t.Errorf("%s: queried %q, got %v", tt.name, store.queries, got)
		case tt.want != "" && (!slices.Equal(store.queries, []string{tt.want}) || len(got) != 1 || got[0].Text != "3 for "+tt.want):
			t.Errorf("%s: queried %q, got %v; want %q", tt.name, store.queries, got, tt.want)
		}
	}
	store := &recordingStore{}
	if got, err := NewLocalPool(store, nil).Retrieve(context.Background(), msgs(user, "q"), 0); got != nil || err != nil || len(store.queries) != 0 {
		t.Errorf("k=0: %v, %v, queries %q", got, err, store.queries)
	}
	if QueryOf(msgs(sys, "s", user, "task")) != "task" {
		t.Error("QueryOf")
	}
}

func TestPoolUpdate(t *testing.T) {
	ctx := context.Background()
	trajs := []agentevolver.Trajectory{
		{TaskID: "t1", Query: "reset the router", Steps: msgs(agentevolver.RoleAssistant, "restart first"), Reward: agentevolver.NewReward(1, "", 0)},
		{TaskID: "t2", Query: "book a flight", Steps: msgs(agentevolver.RoleAssistant, "gave up"), Reward: agentevolver.NewReward(0, "", 0)},
	}
	store := &recordingStore{}
	pool := NewLocalPool(store, &lessonSummarizer{})
	if err := pool.Update(ctx, trajs); err != nil {
		t.Fatal(err)
	}
	if len(store.added) != 1 || store.added[0].Text != "Lesson: restart first" || store.added[0].Key != "reset the router" {
		t.Fatalf("added %+v", store.added)
	}
	if err := pool.Update(ctx, nil); err != nil {
		t.Errorf("no trajectories: %v", err)
	}
	if err := pool.Update(ctx, trajs[1:]); err != nil || len(store.added) != 1 {
		t.Errorf("nothing distilled: %v, added %d", err, len(store.added))
	}

	if st := pool.Stats(); st != (PoolStats{SummarizerCalls: 2, Distilled: 1}) {
		t.Errorf("stats %+v, want 2 summariser calls (none without trajectories), 1 distilled", st)
	}

	boom := errors.New("summariser down")
	down := NewLocalPool(store, &lessonSummarizer{err: boom})
	if err := down.Update(ctx, trajs); !errors.Is(err, boom) {
		t.Errorf("summariser error: %v", err)
	}
	if st := down.Stats(); st != (PoolStats{SummarizerCalls: 1, Failed: 1}) {
		t.Errorf("summariser down: stats %+v", st)
	}
	full := errors.New("store full")
	fullPool := NewLocalPool(&recordingStore{err: full}, &lessonSummarizer{})
	if err := fullPool.Update(ctx, trajs); !errors.Is(err, full) {
		t.Errorf("store error: %v", err)
	}
	if st := fullPool.Stats(); st != (PoolStats{SummarizerCalls: 1, Failed: 1, Distilled: 1}) {
		t.Errorf("store full: stats %+v", st)
	}
	if err := NewLocalPool(store, nil).Update(ctx, trajs); !errors.Is(err, ErrNoSummarizer) {
		t.Errorf("no summariser: %v", err)
	}
}

// TestPoolUpdateInBackground runs Updates in the background, as the
// trainer does during a step, while rollouts keep retrieving from the same
// workspace; run it with -race.
func TestPoolUpdateInBackground(t *testing.T) {
	ctx := context.Background()
	f, _ := openTestStore(t, StoreOptions{})
	w := mustWorkspace(t, f, "default", NewLocalEmbedder(128))
	if err := w.Add(ctx, []Experience{{Text: "Check the cable first.", Key: "router has no internet"}}); err != nil {
		t.Fatal(err)
	}
	sum := &lessonSummarizer{delay: 5 * time.Millisecond}
	pool := NewLocalPool(w, sum)

	const updates, rollouts = 6, 8
	var wg sync.WaitGroup
	errs := make(chan error, updates+rollouts)
	for u := range updates {
		wg.Go(func() {
			traj := agentevolver.Trajectory{TaskID: fmt.Sprint("task", u), Query: fmt.Sprintf("router task number %d", u),
				Steps: msgs(agentevolver.RoleAssistant, fmt.Sprintf("fix %d worked", u)), Reward: agentevolver.NewReward(1, "", 0)}
			if err := pool.Update(ctx, []agentevolver.Trajectory{traj}); err != nil {
				errs <- err
			}
		})
	}
	for r := range rollouts {
		wg.Go(func() {
			init := msgs(agentevolver.RoleSystem, "You are an agent.", agentevolver.RoleUser, fmt.Sprintf("router task number %d", r))
			for range 5 {
				got, err := pool.Retrieve(ctx, init, 3)
				if err != nil {
					errs <- err
					return
				}
				if len(got) == 0 {
					errs <- errors.New("no experience retrieved")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if sum.overlap.Load() {
		t.Error("the summariser ran concurrently")
	}
	if w.Len() != 1+updates {
		t.Fatalf("Len = %d, want %d", w.Len(), 1+updates)
	}
	got, err := pool.Retrieve(ctx, msgs(agentevolver.RoleUser, "router task number 4"), 1)
	if err != nil || len(got) != 1 || got[0].Text != "Lesson: fix 4 worked" {
		t.Fatalf("after the updates: %+v, %v", got, err)
	}
}
