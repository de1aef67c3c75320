package arena_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/arena"
	"github.com/org/agentevolver/llm"
)

func user(text string) agentevolver.Message {
	return agentevolver.Message{Role: agentevolver.RoleUser, Content: text}
}

// within fails the test when f does not return within d.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
	}
}

// TestSeatRoundTrip plays a three-question game: every question reaches
// Next as the model's request, every answer reaches the game as the
// model's completion, and the end is reported, again and again.
func TestSeatRoundTrip(t *testing.T) {
	var got []llm.Completion // written by the game, read after its end
	s := arena.StartSeat(context.Background(), func(ctx context.Context, m llm.ChatModel) error {
		var buf []agentevolver.Message
		for i := range 3 {
			// The game reuses its slice: Next's questions must not change.
			buf = append(buf[:0], user(fmt.Sprintf("question %d", i)))
			if i == 2 {
				buf = append(buf, user("re-ask"))
			}
			c, err := m.Chat(ctx, buf, llm.ChatOptions{MaxTokens: 7})
			if err != nil {
				return err
			}
			got = append(got, c)
			buf[0].Content = "overwritten"
		}
		return nil
	})
	defer s.Close()
	ctx := context.Background()
	if s.Answer("too early") {
		t.Fatal("Answer before the first question reported a question")
	}
	var questions [][]agentevolver.Message
	for i := range 3 {
		q, over, err := s.Next(ctx)
		if err != nil || over {
			t.Fatalf("question %d: over %v, err %v", i, over, err)
		}
		if s.Asked() != i+1 || s.Over() {
			t.Fatalf("question %d: Asked %d, Over %v", i, s.Asked(), s.Over())
		}
		questions = append(questions, q)
		if !s.Answer(fmt.Sprintf("answer %d", i)) {
			t.Fatalf("question %d: Answer found no question", i)
		}
		if s.Answer("twice") {
			t.Fatalf("question %d: answered twice", i)
		}
	}
	want := [][]agentevolver.Message{
		{user("question 0")},
		{user("question 1")},
		{user("question 2"), user("re-ask")},
	}
	if !reflect.DeepEqual(questions, want) {
		t.Fatalf("questions %v, want %v", questions, want)
	}
	for range 2 {
		q, over, err := s.Next(ctx)
		if err != nil || !over || q != nil {
			t.Fatalf("after the game: question %v, over %v, err %v", q, over, err)
		}
	}
	if !s.Over() || s.Asked() != 3 || s.Answer("late") {
		t.Fatalf("after the game: Over %v, Asked %d", s.Over(), s.Asked())
	}
	for i, c := range got {
		w := llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: fmt.Sprintf("answer %d", i)}, FinishReason: "stop"}
		if !reflect.DeepEqual(c, w) {
			t.Fatalf("completion %d: %+v, want %+v", i, c, w)
		}
	}
	if len(got) != 3 {
		t.Fatalf("the game got %d completions, want 3", len(got))
	}
}

// TestSeatGameError: play's error is Next's at the end, and the game is
// not over.
func TestSeatGameError(t *testing.T) {
	boom := errors.New("boom")
	s := arena.StartSeat(context.Background(), func(context.Context, llm.ChatModel) error {
		return fmt.Errorf("game 7: %w", boom)
	})
	defer s.Close()
	for range 2 {
		q, over, err := s.Next(context.Background())
		if !errors.Is(err, boom) || over || q != nil {
			t.Fatalf("question %v, over %v, err %v; want boom", q, over, err)
		}
	}
	if s.Over() || s.Asked() != 0 {
		t.Fatalf("Over %v, Asked %d", s.Over(), s.Asked())
	}
}

// TestSeatCloseWhilePending: Close returns promptly with a question left
// unanswered, the model's call ends with the context's error, and
// closing again is harmless.
func TestSeatCloseWhilePending(t *testing.T) {
	chatErr := make(chan error, 1)
	s := arena.StartSeat(context.Background(), func(ctx context.Context, m llm.ChatModel) error {
		_, err := m.Chat(ctx, []agentevolver.Message{user("move?")}, llm.ChatOptions{})
		chatErr <- err
		return err
	})
	if _, over, err := s.Next(context.Background()); err != nil || over {
		t.Fatalf("over %v, err %v", over, err)
	}
	within(t, 5*time.Second, "Close", func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if err := <-chatErr; !errors.Is(err, context.Canceled) {
		t.Fatalf("the pending call ended with %v, want context.Canceled", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, _, err := s.Next(context.Background()); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next after Close: %v, want the game's context.Canceled", err)
	}
}

// TestSeatNextContext: Next gives up when its context ends, and the game
// goes on: a later Next still gets the question.
func TestSeatNextContext(t *testing.T) {
	release := make(chan struct{})
	s := arena.StartSeat(context.Background(), func(ctx context.Context, m llm.ChatModel) error {
		<-release // the other seats think for a while
		_, err := m.Chat(ctx, []agentevolver.Message{user("move?")}, llm.ChatOptions{})
		return err
	})
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if q, over, err := s.Next(ctx); !errors.Is(err, context.Canceled) || over || q != nil {
		t.Fatalf("cancelled Next: question %v, over %v, err %v", q, over, err)
	}
	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer dcancel()
	if _, _, err := s.Next(dctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next past its deadline: %v", err)
	}
	if s.Asked() != 0 || s.Over() {
		t.Fatalf("Asked %d, Over %v after cancelled Nexts", s.Asked(), s.Over())
	}
	close(release)
	q, over, err := s.Next(context.Background())
	if err != nil || over || !reflect.DeepEqual(q, []agentevolver.Message{user("move?")}) {
		t.Fatalf("question %v, over %v, err %v", q, over, err)
	}
	s.Answer("pass")
	if _, over, err := s.Next(context.Background()); err != nil || !over {
		t.Fatalf("end: over %v, err %v", over, err)
	}
}

type ctxKey struct{}

// TestSeatDetached: the game outlives the context that started it but
// keeps its values.
func TestSeatDetached(t *testing.T) {
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
	started := make(chan struct{})
	s := arena.StartSeat(ctx, func(gctx context.Context, m llm.ChatModel) error {
		<-started
		if gctx.Value(ctxKey{}) != "v" {
			return errors.New("the game's context lost the value")
		}
		if err := gctx.Err(); err != nil {
			return fmt.Errorf("the game's context ended with the caller's: %w", err)
		}
		_, err := m.Chat(gctx, []agentevolver.Message{user("still there?")}, llm.ChatOptions{})
		return err
	})
	defer s.Close()
	cancel()
	close(started)
	if _, over, err := s.Next(context.Background()); err != nil || over {
		t.Fatalf("over %v, err %v", over, err)
	}
	s.Answer("yes")
	if _, over, err := s.Next(context.Background()); err != nil || !over {
		t.Fatalf("end: over %v, err %v", over, err)
	}
}

// echo answers each request with the content of its last message, or
// fails when that is "fail".
type echo struct{}

func (echo) Chat(_ context.Context, m []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
	last := m[len(m)-1].Content
	if last == "fail" {
		return llm.Completion{}, errors.New("echo: fail")
	}
	return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "re: " + last}}, nil
}

// TestRecorder records concurrent calls (run with -race), skips failed
// ones and yields the demonstration and the corpus.
func TestRecorder(t *testing.T) {
	rec := &arena.Recorder{Model: echo{}}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			msgs := []agentevolver.Message{user(fmt.Sprint(i))}
			if _, err := rec.Chat(context.Background(), msgs, llm.ChatOptions{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if _, err := rec.Chat(context.Background(), []agentevolver.Message{user("fail")}, llm.ChatOptions{}); err == nil {
		t.Fatal("the failing call did not fail")
	}
	reqs, replies := rec.Requests(), rec.Replies()
	if len(reqs) != 8 || len(replies) != 8 {
		t.Fatalf("%d requests, %d replies; want 8 each", len(reqs), len(replies))
	}
	for i := range reqs {
		if replies[i] != "re: "+reqs[i][0].Content {
			t.Fatalf("call %d: request %v, reply %q", i, reqs[i], replies[i])
		}
	}
	demo := rec.Demonstration()
	for i, m := range demo {
		if m.Role != agentevolver.RoleAssistant || m.Content != replies[i] {
			t.Fatalf("demonstration %d: %+v", i, m)
		}
	}
	if len(demo) != 8 {
		t.Fatalf("demonstration of %d messages", len(demo))
	}
}

// TestRecorderCorpus: system prompts once across recordings, every other
// message and every reply in call order.
func TestRecorderCorpus(t *testing.T) {
	sys := agentevolver.Message{Role: agentevolver.RoleSystem, Content: "You are X."}
	a := &arena.Recorder{Model: echo{}}
	b := &arena.Recorder{Model: echo{}}
	ctx := context.Background()
	for _, call := range []struct {
		rec  *arena.Recorder
		msgs []agentevolver.Message
	}{
		{a, []agentevolver.Message{sys, user("hi")}},
		{a, []agentevolver.Message{sys, user("hi")}},
		{b, []agentevolver.Message{sys, user("bye")}},
	} {
		if _, err := call.rec.Chat(ctx, call.msgs, llm.ChatOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	docs := append(a.Corpus(seen), b.Corpus(seen)...)
	want := []string{"You are X.", "hi", "re: hi", "hi", "re: hi", "bye", "re: bye"}
	if !slices.Equal(docs, want) {
		t.Fatalf("corpus %q, want %q", docs, want)
	}
}

// TestSplits pins the task seeds (the listed tasks of avalon and dipgame
// depend on them) and checks the split layout.
func TestSplits(t *testing.T) {
	s := arena.Splits{Seed: 5, Train: 3, Val: 2, Test: 1}
	for _, c := range []struct {
		split string
		n     int
		seed0 uint64
	}{
		{"train", 3, 459870237644266383},
		{"val", 2, 5501083385187895227},
		{"test", 1, 12101732280264055447},
	} {
		n, ok := s.Size(c.split)
		if !ok || n != c.n {
			t.Fatalf("%s: size %d, %v; want %d", c.split, n, ok, c.n)
		}
		seed, ok := s.TaskSeed(c.split, 0)
		if !ok || seed != c.seed0 {
			t.Fatalf("%s: seed %d, %v; want %d", c.split, seed, ok, c.seed0)
		}
	}
	seen := map[uint64]string{}
	for top, split := range []string{"train", "val", "test"} {
		for k := range 100 {
			seed, _ := s.TaskSeed(split, k)
			if seed>>62 != uint64(top) {
				t.Fatalf("%s task %d: seed %#x does not carry the split", split, k, seed)
			}
			if o, dup := seen[seed]; dup {
				t.Fatalf("%s task %d repeats the seed of %s", split, k, o)
			}
			seen[seed] = fmt.Sprint(split, k)
		}
	}
	if _, ok := s.Size("dev"); ok {
		t.Fatal("Size knows split dev")
	}
	if _, ok := s.TaskSeed("dev", 0); ok {
		t.Fatal("TaskSeed knows split dev")
	}
}
