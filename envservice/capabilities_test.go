package envservice

import (
	"context"
	"errors"
	"testing"
)

// gradedEnv is testEnv with one optional capability: task difficulties.
type gradedEnv struct {
	*testEnv
}

var errNoTask = errors.New("no such task")

func (gradedEnv) TaskMetadata(_ context.Context, taskID string) (TaskMetadata, error) {
	switch taskID {
	case "t1":
		return TaskMetadata{Difficulty: 1}, nil
	case "t2", "t3":
		return TaskMetadata{Difficulty: 2}, nil
	}
	return TaskMetadata{}, errNoTask
}

var _ TaskMetadataProvider = gradedEnv{}

func TestManagerEnvironment(t *testing.T) {
	ctx := context.Background()
	plain, graded := newTestEnv(), gradedEnv{newTestEnv()}
	m := NewManager(ManagerConfig{})
	defer m.Close()
	if err := m.Register("plain", plain); err != nil {
		t.Fatal(err)
	}
	if err := m.Register("graded", graded); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name       string
		want       Environment
		found      bool
		difficulty int // of task t2; 0: no TaskMetadataProvider
	}{
		{"plain", plain, true, 0},
		{"graded", graded, true, 2},
		{"missing", nil, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, ok := m.Environment(tt.name)
			if ok != tt.found || env != tt.want {
				t.Fatalf("Environment(%q) = %v, %v; want %v, %v", tt.name, env, ok, tt.want, tt.found)
			}
			if !ok {
				return
			}
			meta, ok := env.(TaskMetadataProvider)
			if ok != (tt.difficulty > 0) {
				t.Fatalf("TaskMetadataProvider asserted: %v", ok)
			}
			if !ok {
				return
			}
			md, err := meta.TaskMetadata(ctx, "t2")
			if err != nil || md.Difficulty != tt.difficulty {
				t.Errorf("TaskMetadata(t2) = %+v, %v", md, err)
			}
			if _, err := meta.TaskMetadata(ctx, "t9"); !errors.Is(err, errNoTask) {
				t.Errorf("TaskMetadata(t9) error = %v", err)
			}
		})
	}
	// The capabilities testEnv lacks are absent whichever way it is held.
	env, _ := m.Environment("plain")
	if _, ok := env.(Expert); ok {
		t.Error("testEnv asserted as an Expert")
	}
	if _, ok := env.(CorpusProvider); ok {
		t.Error("testEnv asserted as a CorpusProvider")
	}
}
