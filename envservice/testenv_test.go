package envservice

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
)

// testEnv is a small environment whose behaviour the action text selects:
//
//	"panic"  panics          "fail"  returns a plain error
//	"bad"    returns an error matching envclient.ErrBadRequest
//	"block"  waits until release is closed (or ctx ends)
//	"meet"   waits until two instances are inside "meet" at once
//	"done"   terminates the episode with reward 1
//	"chan"   returns an Info that cannot be encoded as JSON
//	other    echoes the text
//
// Task ids select create-time behaviour: "panic-new", "fail-new",
// "panic-init", "close-fails", "nan", and "hold-new", whose New sends the
// instance id on entered, waits until its ctx ends and then succeeds all
// the same (an environment that ignores cancellation).
type testEnv struct {
	release chan struct{} // closed to let "block" steps finish
	entered chan string   // receives the instance id when a "block" step starts

	noWait bool // "block" and "meet" return at once (for fuzzing)

	arrived  atomic.Int32 // instances that have entered "meet"
	overlaps atomic.Int32 // times two calls ran on one instance at once
	closed   atomic.Int32 // instances closed
	news     atomic.Int32 // instances created

	mu       sync.Mutex
	closedID []string

	unblockOnce sync.Once
}

// unblock lets "block" steps finish; it may be called more than once.
func (e *testEnv) unblock() { e.unblockOnce.Do(func() { close(e.release) }) }

func newTestEnv() *testEnv {
	return &testEnv{release: make(chan struct{}), entered: make(chan string, 64)}
}

var testTasks = map[string][]string{
	"train": {"t1", "t2", "t3"},
	"val":   {"v1"},
}

func (e *testEnv) TaskIDs(_ context.Context, split string, params map[string]any) ([]string, error) {
	if params["fail"] == true {
		return nil, errors.New("task list unavailable")
	}
	ids, ok := testTasks[split]
	if !ok {
		return nil, fmt.Errorf("no split %q: %w", split, envclient.ErrBadRequest)
	}
	if prefix, ok := params["prefix"].(string); ok {
		var out []string
		for _, id := range ids {
			out = append(out, prefix+id)
		}
		return out, nil
	}
	return ids, nil
}

func (e *testEnv) New(ctx context.Context, taskID, instanceID string, params map[string]any) (Instance, error) {
	switch taskID {
	case "panic-new":
		panic("constructor exploded")
	case "fail-new":
		return nil, errors.New("no such task")
	case "hold-new":
		e.entered <- instanceID
		<-ctx.Done()
	}
	e.news.Add(1)
	return &testInstance{env: e, id: instanceID, taskID: taskID}, nil
}

type testInstance struct {
	env        *testEnv
	id, taskID string
	steps      int
	terminated bool
	inside     atomic.Int32
}

// enter records overlapping calls on one instance.
func (in *testInstance) enter() func() {
	if in.inside.Add(1) > 1 {
		in.env.overlaps.Add(1)
	}
	return func() { in.inside.Add(-1) }
}

func (in *testInstance) InitState(context.Context, map[string]any) (envclient.InitState, error) {
	defer in.enter()()
	if in.taskID == "panic-init" {
		panic("init exploded")
	}
	return envclient.InitState{
		State: []agentevolver.Message{
			{Role: agentevolver.RoleSystem, Content: "You are tested."},
			{Role: agentevolver.RoleUser, Content: "Solve " + in.taskID},
		},
		Info: map[string]any{"task_id": in.taskID},
	}, nil
}

func (in *testInstance) Step(ctx context.Context, action agentevolver.Message, _ map[string]any) (envclient.StepResult, error) {
	defer in.enter()()
	in.steps++
	var reward float64
	switch action.Content {
	case "panic":
		panic("step exploded")
	case "fail":
		return envclient.StepResult{}, errors.New("step failed")
	case "bad":
		return envclient.StepResult{}, fmt.Errorf("cannot parse action: %w", envclient.ErrBadRequest)
	case "block":
		if in.env.noWait {
			break
		}
		in.env.entered <- in.id
		select {
		case <-in.env.release:
		case <-ctx.Done():
			return envclient.StepResult{}, ctx.Err()
		}
	case "meet":
		if in.env.noWait {
			break
		}
		in.env.arrived.Add(1) // never decremented: one meeting per testEnv
		deadline := time.Now().Add(10 * time.Second)
		for in.env.arrived.Load() < 2 {
			if time.Now().After(deadline) {
				return envclient.StepResult{}, errors.New("the other instance never arrived")
			}
			time.Sleep(time.Millisecond)
		}
	case "chan":
		return envclient.StepResult{State: []agentevolver.Message{}, Info: map[string]any{"c": make(chan int)}}, nil
	case "done":
		in.terminated = true
		reward = 1
	}
	return envclient.StepResult{
		State:        []agentevolver.Message{{Role: agentevolver.RoleUser, Content: fmt.Sprintf("echo %d: %s", in.steps, strings.ToUpper(action.Content))}},
		Reward:       reward,
		IsTerminated: in.terminated,
	}, nil
}

func (in *testInstance) Evaluate(_ context.Context, params map[string]any) (float64, error) {
	defer in.enter()()
	if in.taskID == "nan" {
		return 0 * float64(in.steps) / float64(in.steps), nil // NaN when no steps
	}
	if params["sparse"] == true {
		if in.terminated {
			return 1, nil
		}
		return 0, nil
	}
	return float64(in.steps) / 10, nil
}

func (in *testInstance) Info(context.Context, map[string]any) (any, error) {
	defer in.enter()()
	return map[string]any{"tools": []string{"echo"}, "steps": in.steps}, nil
}

func (in *testInstance) Close() error {
	in.env.closed.Add(1)
	in.env.mu.Lock()
	in.env.closedID = append(in.env.closedID, in.id)
	in.env.mu.Unlock()
	if in.taskID == "close-fails" {
		return errors.New("close failed")
	}
	return nil
}

// profiledEnv adds a profile to testEnv.
type profiledEnv struct{ *testEnv }

func (profiledEnv) Profile() agentevolver.EnvProfile {
	return agentevolver.EnvProfile{Name: "test", Background: "a test environment"}
}
