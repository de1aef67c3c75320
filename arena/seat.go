package arena

import (
	"context"
	"slices"
	"sync"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/llm"
)

// Seat is one seat of a game played from outside, a question at a time:
// how a game whose seats are llm.ChatModels (avalon.Play, dipgame.Play)
// becomes a training environment for that seat. StartSeat runs the game
// in its own goroutine with the seat's model, a bridge: each call of it
// becomes a question that Next returns, and the call returns the reply
// that Answer gives. Between two questions the game runs on its own
// (the other seats play), so Next also reports the game's end.
//
// Next, Answer, Asked and Over must not be called concurrently with each
// other (an environment instance's methods are serialised); Close may be
// called at any time, from any goroutine, any number of times.
type Seat struct {
	calls  chan seatCall
	done   chan struct{} // closed when play has returned
	cancel context.CancelFunc
	closer sync.Once
	err    error // play's error, written before done closes

	pending *seatCall // the question waiting for its answer
	asked   int
	over    bool
}

// seatCall is one call of the seat's model, waiting for its reply.
type seatCall struct {
	msgs  []agentevolver.Message
	reply chan string // buffered: answering never blocks
}

// StartSeat runs play in a new goroutine and returns its Seat. play
// receives the seat's model, to put in the seat it plays, and a context
// that keeps ctx's values but not its cancellation or deadline (the game
// outlives the request that started it) and that Close cancels; play must
// honour it, and so must the other seats' models, for Close to return
// promptly. The model's calls must come from play or the goroutines it
// waits for; it ignores the ChatOptions and answers with an assistant
// message whose finish reason is "stop". play's error is the error Next
// reports at the game's end.
func StartSeat(ctx context.Context, play func(ctx context.Context, model llm.ChatModel) error) *Seat {
	gctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &Seat{calls: make(chan seatCall), done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(s.done)
		s.err = play(gctx, bridge{calls: s.calls})
	}()
	return s
}

// Next waits until the seat is asked something or the game ends. It
// returns the question, the messages of the model's call (the caller owns
// the slice), to be answered with Answer before the game goes on; or
// over set once the game has ended without error, as often as Next is
// called again; or play's error once it failed; or ctx's error when ctx
// ends first, leaving the game as it was.
func (s *Seat) Next(ctx context.Context) (question []agentevolver.Message, over bool, err error) {
	select {
	case c := <-s.calls:
		s.pending = &c
		s.asked++
		return c.msgs, false, nil
	case <-s.done:
		if s.err != nil {
			return nil, false, s.err
		}
		s.over = true
		return nil, true, nil
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

// Answer replies to the question Next returned last and reports whether
// one was waiting: false when the seat has not been asked anything since
// the last answer (before the first question, after the game's end).
// The game goes on in its goroutine; Next waits for what comes of it.
func (s *Seat) Answer(reply string) bool {
	if s.pending == nil {
		return false
	}
	s.pending.reply <- reply
	s.pending = nil
	return true
}

// Asked returns the number of questions Next has returned so far.
func (s *Seat) Asked() int { return s.asked }

// Over reports whether Next has returned the game's end.
func (s *Seat) Over() bool { return s.over }

// Close cancels the game's context, waits for play to return and returns
// nil. A question left unanswered ends with the context's error in the
// game.
func (s *Seat) Close() error {
	s.closer.Do(func() {
		s.cancel()
		<-s.done
	})
	return nil
}

// bridge is the seat's model: it hands each request to the Seat and
// waits for the reply.
type bridge struct{ calls chan<- seatCall }

// Chat implements llm.ChatModel.
func (b bridge) Chat(ctx context.Context, messages []agentevolver.Message, _ llm.ChatOptions) (llm.Completion, error) {
	c := seatCall{msgs: slices.Clone(messages), reply: make(chan string, 1)}
	select {
	case b.calls <- c:
	case <-ctx.Done():
		return llm.Completion{}, ctx.Err()
	}
	select {
	case text := <-c.reply:
		return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: text}, FinishReason: "stop"}, nil
	case <-ctx.Done():
		return llm.Completion{}, ctx.Err()
	}
}

// Recorder is a seat's model that records what it plays: each request of
// Model and its reply, in the order the replies came. The record serves
// as a demonstration (the replies, sent again to the same deterministic
// game, replay it) and as a text corpus. Set Model before the first call;
// Recorder is safe for concurrent use when Model is. A failed call is not
// recorded.
type Recorder struct {
	// Model plays the seat.
	Model llm.ChatModel

	mu       sync.Mutex
	requests [][]agentevolver.Message
	replies  []string
}

// Chat implements llm.ChatModel: it calls Model and records the request
// and the reply's text.
func (r *Recorder) Chat(ctx context.Context, messages []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
	c, err := r.Model.Chat(ctx, messages, opts)
	if err != nil {
		return c, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, slices.Clone(messages))
	r.replies = append(r.replies, c.Message.Content)
	return c, nil
}

// Requests returns the recorded requests, one per call. The outer slice
// is the caller's; the requests are shared and must not be modified.
func (r *Recorder) Requests() [][]agentevolver.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// Replies returns the recorded replies' texts, one per call.
func (r *Recorder) Replies() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.replies)
}

// Demonstration returns the recorded replies as assistant messages, one
// per call: sent one per step to a fresh instance of the same
// deterministic game, they play it again the same way.
func (r *Recorder) Demonstration() []agentevolver.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]agentevolver.Message, len(r.replies))
	for i, text := range r.replies {
		out[i] = agentevolver.Message{Role: agentevolver.RoleAssistant, Content: text}
	}
	return out
}

// Corpus returns the recorded texts in call order, each request's
// messages and then its reply, for learning a tokenizer. A system
// message whose text is already in seen is left out, and the text of
// every request message returned is added to seen: pass one map to the
// Corpus of several recordings to keep each system prompt once. seen
// must not be nil.
func (r *Recorder) Corpus(seen map[string]bool) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var docs []string
	for i, msgs := range r.requests {
		for _, m := range msgs {
			if m.Role == agentevolver.RoleSystem && seen[m.Content] {
				continue
			}
			seen[m.Content] = true
			docs = append(docs, m.Content)
		}
		docs = append(docs, r.replies[i])
	}
	return docs
}
