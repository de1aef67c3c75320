package experience

import (
	"context"
	"time"

	"github.com/org/agentevolver"
)

// Experience is one distilled lesson: advice or a worked example that may
// help an agent with tasks like the one it came from.
type Experience struct {
	// ID identifies the experience in its store; a store assigns one when
	// it is empty.
	ID string `json:"id"`
	// Text is what is injected into a prompt.
	Text string `json:"text"`
	// Key is the text retrieval compares queries with (the task's query,
	// say); empty means Text.
	Key string `json:"key,omitempty"`
	// TaskID and Score record where the experience came from: the task and
	// the outcome of the episode(s) it was distilled from.
	TaskID string  `json:"task_id,omitempty"`
	Score  float64 `json:"score"`
	// Source names the summariser that made it.
	Source string `json:"source,omitempty"`
	// Created is when it was added.
	Created time.Time `json:"created"`
}

// Store keeps experiences and retrieves the most relevant ones for a
// query. Implementations are safe for concurrent use.
type Store interface {
	// Retrieve returns at most k experiences for query, most relevant
	// first.
	Retrieve(ctx context.Context, query string, k int) ([]Experience, error)
	// Add stores experiences.
	Add(ctx context.Context, exps []Experience) error
}

// Summarizer distils experiences from finished episodes.
type Summarizer interface {
	Summarize(ctx context.Context, trajectories []agentevolver.Trajectory) ([]Experience, error)
}

// Pool is what rollouts and the trainer use: retrieval for a task's
// initial messages, and updates from finished episodes. An embedded pool
// (a Store and a Summarizer in process) and the ReMe service are Pools.
type Pool interface {
	// Retrieve returns at most k experiences for the task whose initial
	// messages (system and user) are init.
	Retrieve(ctx context.Context, init []agentevolver.Message, k int) ([]Experience, error)
	// Update distils trajectories into the pool.
	Update(ctx context.Context, trajectories []agentevolver.Trajectory) error
}
