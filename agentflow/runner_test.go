package agentflow_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/envclient"
)

func tasks(n int) []agentevolver.Task {
	out := make([]agentevolver.Task, n)
	for i := range out {
		out[i] = agentevolver.Task{TaskID: "t" + strconv.Itoa(i)}
	}
	return out
}

func TestRunnerOrderConcurrencyAndJSONL(t *testing.T) {
	env := newCounterEnv(2)
	env.stepDelay = time.Millisecond
	var buf bytes.Buffer
	r := &agentflow.Runner{Flow: newFlow(env), Concurrency: 3, Trajectories: &buf}
	rollouts := agentflow.Expand(tasks(4), 3)
	// Submit out of order: results still come back sorted.
	for i, j := 0, len(rollouts)-1; i < j; i, j = i+1, j-1 {
		rollouts[i], rollouts[j] = rollouts[j], rollouts[i]
	}
	results, err := r.Run(context.Background(), rollouts)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 12 {
		t.Fatalf("%d results, want 12", len(results))
	}
	for i, res := range results {
		d, ro := strconv.Itoa(i/3), strconv.Itoa(i%3)
		if tr := res.Trajectory; tr.DataID != d || tr.RolloutID != ro || tr.TaskID != "t"+d || len(res.Samples) != 1 {
			t.Errorf("result %d = task %s (%s, %s) with %d samples", i, tr.TaskID, tr.DataID, tr.RolloutID, len(res.Samples))
		}
	}
	if env.maxLive > 3 {
		t.Errorf("%d instances live at once, limit 3", env.maxLive)
	}
	if env.open() != 0 || env.releases != 12 {
		t.Errorf("%d open, %d released", env.open(), env.releases)
	}
	trajs, err := agentflow.ReadTrajectories(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(trajs) != 12 {
		t.Fatalf("%d trajectory lines, want 12", len(trajs))
	}
	for i, tr := range trajs {
		if tr.DataID != results[i].Trajectory.DataID || tr.RolloutID != results[i].Trajectory.RolloutID || len(tr.Steps) != len(results[i].Trajectory.Steps) {
			t.Errorf("line %d = %+v", i, tr)
		}
	}
}

func TestRunnerRetries(t *testing.T) {
	tests := []struct {
		name         string
		failCreates  map[string]int
		initState    []agentevolver.Message
		maxAttempts  int
		wantResults  int
		wantFailed   []string // task ids of failed rollouts
		wantAttempts int      // attempts recorded on each failure
		wantCreates  int
	}{
		{name: "retry then success", failCreates: map[string]int{"t0": 2}, maxAttempts: 3, wantResults: 2, wantCreates: 4},
		{name: "gives up after bounded attempts", failCreates: map[string]int{"t1": 100}, maxAttempts: 2, wantResults: 1, wantFailed: []string{"t1"}, wantAttempts: 2, wantCreates: 3},
		{
			name:        "permanent errors are not retried",
			initState:   []agentevolver.Message{{Role: "user", Content: "no system prompt"}},
			maxAttempts: 5, wantFailed: []string{"t0", "t1"}, wantAttempts: 1, wantCreates: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newCounterEnv(1)
			env.failCreates = tt.failCreates
			env.initState = tt.initState
			r := &agentflow.Runner{Flow: newFlow(env), MaxAttempts: tt.maxAttempts, Backoff: time.Millisecond}
			results, err := r.Run(context.Background(), agentflow.Expand(tasks(2), 1))
			if len(results) != tt.wantResults {
				t.Errorf("%d results, want %d", len(results), tt.wantResults)
			}
			var failed []string
			for _, e := range unwrapJoined(err) {
				var re *agentflow.RolloutError
				if !errors.As(e, &re) {
					t.Fatalf("error %v is not a *RolloutError", e)
				}
				failed = append(failed, re.TaskID)
				if re.Attempts != tt.wantAttempts {
					t.Errorf("%s: %d attempts, want %d", re.TaskID, re.Attempts, tt.wantAttempts)
				}
			}
			slices.Sort(failed)
			if !slices.Equal(failed, tt.wantFailed) {
				t.Errorf("failed = %v, want %v", failed, tt.wantFailed)
			}
			if tt.wantFailed != nil && tt.initState == nil && !errors.Is(err, envclient.ErrUnavailable) {
				t.Errorf("err %v does not wrap the cause", err)
			}
			if env.creates != tt.wantCreates {
				t.Errorf("%d creates, want %d", env.creates, tt.wantCreates)
			}
			if env.open() != 0 {
				t.Errorf("%d instances left open", env.open())
			}
		})
	}
}

func TestRunnerCancellation(t *testing.T) {
	env := newCounterEnv(1000)
	var turns atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFlow(env)
	f.MaxSteps = 1000
	f.Policy = policyFunc(func(ctx context.Context, _ []agentevolver.Message) (string, error) {
		if turns.Add(1) == 20 {
			cancel()
		}
		return "inc", ctx.Err()
	})
	r := &agentflow.Runner{Flow: f, Concurrency: 2, Backoff: time.Millisecond}
	done := make(chan error, 1)
	go func() {
		_, err := r.Run(ctx, agentflow.Expand(tasks(10), 2))
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancellation")
	}
	if env.open() != 0 {
		t.Errorf("%d instances left open", env.open())
	}
	if env.creates > 4 {
		t.Errorf("%d episodes started after cancellation with concurrency 2", env.creates)
	}
}

func TestRunnerNeedsFlow(t *testing.T) {
	if _, err := (&agentflow.Runner{}).Run(context.Background(), nil); !errors.Is(err, agentflow.ErrConfig) {
		t.Fatalf("want ErrConfig, got %v", err)
	}
}

func unwrapJoined(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func TestRolloutErrorsSplitsTheRest(t *testing.T) {
	a := &agentflow.RolloutError{TaskID: "a", Err: errPolicyDown}
	b := &agentflow.RolloutError{TaskID: "b", Err: errPolicyDown}
	writeErr := errors.New("write trajectories: disk full")
	failed, rest := agentflow.RolloutErrors(errors.Join(a, errors.Join(b, writeErr), context.Canceled))
	if len(failed) != 2 || failed[0] != a || failed[1] != b {
		t.Errorf("failed = %v", failed)
	}
	if !errors.Is(rest, writeErr) || !errors.Is(rest, context.Canceled) || errors.Is(rest, errPolicyDown) {
		t.Errorf("rest = %v", rest)
	}
	if failed, rest := agentflow.RolloutErrors(nil); failed != nil || rest != nil {
		t.Errorf("RolloutErrors(nil) = %v, %v", failed, rest)
	}
}

// TestRunnerSummarisesFailures checks that the error of eighty failed
// episodes names each cause once, with its count and one example, while
// every failure stays reachable.
func TestRunnerSummarisesFailures(t *testing.T) {
	env := newCounterEnv(1)
	env.failCreates = map[string]int{}
	for i := range 80 {
		env.failCreates["t"+strconv.Itoa(i)] = 100
	}
	r := &agentflow.Runner{Flow: newFlow(env), MaxAttempts: 1}
	_, err := r.Run(context.Background(), agentflow.Expand(tasks(80), 1))
	if failed, _ := agentflow.RolloutErrors(err); len(failed) != 80 {
		t.Fatalf("%d rollout errors, want 80", len(failed))
	}
	msg := err.Error()
	if n := strings.Count(msg, "\n") + 1; n > 3 {
		t.Errorf("the error has %d lines, want a summary:\n%s", n, msg)
	}
	if !strings.Contains(msg, "80 × create") || strings.Count(msg, "failed after") != 1 {
		t.Errorf("the error does not summarise by cause with one example:\n%s", msg)
	}

	other := errors.New("disk full on task 7")
	joined := agentflow.JoinFailures(errors.New("disk full on task 3"), nil, other)
	if !errors.Is(joined, other) || !strings.Contains(joined.Error(), "2 × other") || strings.Count(joined.Error(), "disk full") != 1 {
		t.Errorf("JoinFailures = %q", joined)
	}
	if agentflow.JoinFailures(nil, nil) != nil {
		t.Error("JoinFailures of nothing is not nil")
	}
}
