package taskgen

import (
	"sync"

	"github.com/org/agentevolver"
)

// ObjectiveMemory remembers the objectives accepted so far for each seed
// task, keyed by task id, so that the summarisation prompt can list them as
// old objectives not to repeat (the reference's
// NaiveTaskObjectiveRetrieval, §4.6). The generation loop refills it after
// every batch with the objectives that survived the realtime filter
// (Replace).
//
// The zero value is an empty memory ready to use. An ObjectiveMemory is
// safe for concurrent use by multiple goroutines; it must not be copied
// after first use.
type ObjectiveMemory struct {
	mu      sync.Mutex
	queries map[string][]string
}

// Add remembers obj under obj.Task.TaskID. Objectives without a query are
// not listed by Queries, so they are not stored.
func (m *ObjectiveMemory) Add(obj agentevolver.TaskObjective) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.add(obj)
}

func (m *ObjectiveMemory) add(obj agentevolver.TaskObjective) {
	if obj.Task.Query == "" {
		return
	}
	if m.queries == nil {
		m.queries = map[string][]string{}
	}
	m.queries[obj.Task.TaskID] = append(m.queries[obj.Task.TaskID], obj.Task.Query)
}

// Reset forgets every objective.
func (m *ObjectiveMemory) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queries = nil
}

// Replace forgets every objective and remembers objs instead, in order, in
// one step: a concurrent Queries sees either the old or the new content,
// never an empty memory in between (the reference's reset followed by one
// add per objective).
func (m *ObjectiveMemory) Replace(objs []agentevolver.TaskObjective) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queries = nil
	for _, o := range objs {
		m.add(o)
	}
}

// Queries returns the queries remembered for the seed task taskID, in the
// order they were added, or nil when there are none. The slice is the
// caller's.
func (m *ObjectiveMemory) Queries(taskID string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	q := m.queries[taskID]
	if len(q) == 0 {
		return nil
	}
	return append([]string(nil), q...)
}

// Len returns the number of objectives remembered, over all seed tasks.
func (m *ObjectiveMemory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, q := range m.queries {
		n += len(q)
	}
	return n
}
