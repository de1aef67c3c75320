package taskgen

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/org/agentevolver"
)

func TestObjectiveMemory(t *testing.T) {
	obj := func(id, q string) agentevolver.TaskObjective {
		return agentevolver.TaskObjective{Task: agentevolver.Task{TaskID: id, Query: q}}
	}
	tests := []struct {
		name string
		run  func(m *ObjectiveMemory)
		want map[string][]string
		n    int
	}{
		{"zero value", func(*ObjectiveMemory) {}, map[string][]string{"a": nil}, 0},
		{"insertion order per task", func(m *ObjectiveMemory) {
			m.Add(obj("a", "q2"))
			m.Add(obj("b", "x"))
			m.Add(obj("a", "q1"))
			m.Add(obj("a", "q2"))
		}, map[string][]string{"a": {"q2", "q1", "q2"}, "b": {"x"}, "c": nil}, 4},
		{"empty queries not listed", func(m *ObjectiveMemory) { m.Add(obj("a", "")) }, map[string][]string{"a": nil}, 0},
		{"reset", func(m *ObjectiveMemory) {
			m.Add(obj("a", "q"))
			m.Reset()
			m.Add(obj("b", "r"))
		}, map[string][]string{"a": nil, "b": {"r"}}, 1},
		{"replace", func(m *ObjectiveMemory) {
			m.Add(obj("a", "old"))
			m.Replace([]agentevolver.TaskObjective{obj("a", "n1"), obj("b", "n2"), obj("a", "n3")})
		}, map[string][]string{"a": {"n1", "n3"}, "b": {"n2"}}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m ObjectiveMemory
			tt.run(&m)
			for id, want := range tt.want {
				if got := m.Queries(id); !slices.Equal(got, want) || (want == nil) != (got == nil) {
					t.Errorf("Queries(%q) = %#v, want %#v", id, got, want)
				}
			}
			if m.Len() != tt.n {
				t.Errorf("Len = %d, want %d", m.Len(), tt.n)
			}
		})
	}
}

func TestObjectiveMemoryCallerOwnsQueries(t *testing.T) {
	var m ObjectiveMemory
	m.Add(agentevolver.TaskObjective{Task: agentevolver.Task{TaskID: "a", Query: "q"}})
	m.Queries("a")[0] = "changed"
	if got := m.Queries("a"); got[0] != "q" {
		t.Errorf("Queries shares its slice: %v", got)
	}
}

// Run with -race.
func TestObjectiveMemoryConcurrent(t *testing.T) {
	var m ObjectiveMemory
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				id := fmt.Sprint(i % 3)
				m.Add(agentevolver.TaskObjective{Task: agentevolver.Task{TaskID: id, Query: fmt.Sprint(g, "-", i)}})
				_ = m.Queries(id)
				if i%50 == 0 {
					m.Replace([]agentevolver.TaskObjective{{Task: agentevolver.Task{TaskID: id, Query: "r"}}})
				}
				_ = m.Len()
			}
		})
	}
	wg.Wait()
	m.Reset()
	if m.Len() != 0 {
		t.Errorf("Len after Reset = %d", m.Len())
	}
}
