package experience

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/org/agentevolver"
)

// ErrNoSummarizer reports an Update of a LocalPool made without a
// Summarizer: such a pool only serves what is already stored.
var ErrNoSummarizer = errors.New("experience: pool has no summarizer")

// LocalPool is a Pool in process: a Store (usually a Workspace of a
// StoreFile) for retrieval and a Summarizer that distils finished episodes
// into it. It is safe for concurrent use: Update may run in the
// background, for the whole of a training step, while Retrieve serves the
// next rollouts; they share nothing but the Store, which is itself safe
// for concurrent use. Updates are applied one at a time, in call order,
// so a Summarizer need not be safe for concurrent use.
type LocalPool struct {
	store      Store
	summarizer Summarizer
	updateMu   sync.Mutex // serialises Update

	calls, failed, distilled atomic.Int64
}

// PoolStats count a LocalPool's updates since it was made.
type PoolStats struct {
	// SummarizerCalls counts the summariser runs (one per Update with
	// trajectories), Failed the updates that failed (in the summariser or
	// the store), Distilled the experiences the summariser returned.
	SummarizerCalls, Failed, Distilled int64
}

// Stats returns the update counts so far.
func (p *LocalPool) Stats() PoolStats {
	return PoolStats{SummarizerCalls: p.calls.Load(), Failed: p.failed.Load(), Distilled: p.distilled.Load()}
}

var _ Pool = (*LocalPool)(nil)

// NewLocalPool returns a pool over store, updated through summarizer. A
// nil summarizer makes a read-only pool whose Update fails with
// ErrNoSummarizer.
func NewLocalPool(store Store, summarizer Summarizer) *LocalPool {
	return &LocalPool{store: store, summarizer: summarizer}
}

// Store returns the pool's store.
func (p *LocalPool) Store() Store { return p.store }

// Retrieve returns at most k experiences for the task whose initial
// messages are init. The query is the content of the last user message of
// init (of the last message, when none is from the user), not the whole
// list: that message is the task, the one the reference prepends
// experience to, while the system prompt is the same for every task of an
// environment and, being long, would make every query look alike to a
// similarity search. No user text, or k of 0 or less, gives no
// experiences.
func (p *LocalPool) Retrieve(ctx context.Context, init []agentevolver.Message, k int) ([]Experience, error) {
	query := QueryOf(init)
	if query == "" || k <= 0 {
		return nil, nil
	}
	return p.store.Retrieve(ctx, query, k)
}

// QueryOf returns the text a LocalPool searches with for a task whose
// initial messages are init: the content of the last user message, else
// of the last message, else "".
func QueryOf(init []agentevolver.Message) string {
	for i := len(init) - 1; i >= 0; i-- {
		if init[i].Role == agentevolver.RoleUser {
			return init[i].Content
		}
	}
	if len(init) > 0 {
		return init[len(init)-1].Content
	}
	return ""
}

// Update runs the summariser over trajectories and adds what it distils
// to the store. No trajectories, or no experiences distilled, is not an
// error. It fails with ErrNoSummarizer when the pool has none, and
// otherwise with the summariser's or the store's error; experiences are
// added only when the summariser succeeds, all in one Add.
func (p *LocalPool) Update(ctx context.Context, trajectories []agentevolver.Trajectory) error {
	if p.summarizer == nil {
		return ErrNoSummarizer
	}
	if len(trajectories) == 0 {
		return nil
	}
	p.updateMu.Lock()
	defer p.updateMu.Unlock()
	p.calls.Add(1)
	exps, err := p.summarizer.Summarize(ctx, trajectories)
	if err != nil {
		p.failed.Add(1)
		return fmt.Errorf("experience: pool update: summarise %d trajectories: %w", len(trajectories), err)
	}
	p.distilled.Add(int64(len(exps)))
	if len(exps) == 0 {
		return nil
	}
	if err := p.store.Add(ctx, exps); err != nil {
		p.failed.Add(1)
		return fmt.Errorf("experience: pool update: %w", err)
	}
	return nil
}
