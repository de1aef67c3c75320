package agentflow

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/internal/parallel"
	"github.com/org/agentevolver/internal/retry"
)

// Defaults of Runner.
const (
	// DefaultConcurrency bounds the episodes in flight (rollout.max_env_worker).
	DefaultConcurrency = 32
	// DefaultMaxAttempts bounds the tries of one episode.
	DefaultMaxAttempts = 3
	// DefaultBackoff is the wait before the first retry.
	DefaultBackoff = time.Second
	// DefaultMaxBackoff bounds the wait between retries.
	DefaultMaxBackoff = 30 * time.Second
)

// Runner runs many episodes of one Flow in parallel: typically the n
// rollouts of every task of a training batch. Flow is required; other zero
// values mean defaults.
type Runner struct {
	// Flow runs each episode.
	Flow *Flow
	// Concurrency bounds the episodes in flight (zero: 32).
	Concurrency int
	// MaxAttempts bounds the tries of one episode (zero: 3). The
	// reference retried forever.
	MaxAttempts int
	// Backoff is the wait before the first retry (zero: 1s); it doubles
	// with each retry up to MaxBackoff (zero: 30s), with jitter.
	Backoff, MaxBackoff time.Duration
	// Trajectories, when set, receives the trajectories of the finished
	// episodes as JSON lines, in result order.
	Trajectories io.Writer
	// Logger receives diagnostics (zero: the Flow's logger).
	Logger *slog.Logger
}

// RolloutError reports an episode that failed all its attempts (or one
// that another attempt could not cure).
type RolloutError struct {
	TaskID, DataID, RolloutID string
	// Attempts is the number of tries made.
	Attempts int
	// Err is the last attempt's error.
	Err error
}

// Error implements error.
func (e *RolloutError) Error() string {
	return fmt.Sprintf("agentflow: task %s rollout %s/%s failed after %d attempts: %v", e.TaskID, e.DataID, e.RolloutID, e.Attempts, e.Err)
}

// Unwrap returns the last attempt's error.
func (e *RolloutError) Unwrap() error { return e.Err }

// Expand returns n rollouts of each task: DataID is the task's index in
// tasks, RolloutID the rollout's index, and experience is off.
func Expand(tasks []agentevolver.Task, n int) []Rollout {
	out := make([]Rollout, 0, len(tasks)*n)
	for i, t := range tasks {
		for j := range n {
			out = append(out, Rollout{Task: t, DataID: strconv.Itoa(i), RolloutID: strconv.Itoa(j)})
		}
	}
	return out
}

// Run runs every rollout and returns the results of those that finished,
// ordered by (DataID, RolloutID), numerically where both are numbers. The
// error joins a *RolloutError for every rollout that failed all attempts,
// the context's error when ctx was cancelled (unstarted rollouts are then
// skipped), and any error writing Trajectories, with JoinFailures: its
// message shows each cause of failure once, with a count and an example.
// Results are returned alongside it.
func (r *Runner) Run(ctx context.Context, rollouts []Rollout) ([]Result, error) {
	if r.Flow == nil {
		return nil, fmt.Errorf("%w: Runner needs a Flow", ErrConfig)
	}
	limit := cmp.Or(r.Concurrency, DefaultConcurrency)
	if limit < 1 {
		return nil, fmt.Errorf("%w: Concurrency %d", ErrConfig, limit)
	}
	var (
		mu      sync.Mutex
		results []Result
		errs    []error
	)
	// Unstarted rollouts are reported through ctx.Err below, which also
	// covers a cancellation after the last start.
	_ = parallel.ForEach(ctx, len(rollouts), limit, func(i int) {
		res, err := r.runWithRetry(ctx, rollouts[i])
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			errs = append(errs, err)
			return
		}
		results = append(results, res)
	})
	if err := ctx.Err(); err != nil {
		errs = append(errs, err)
	}
	slices.SortFunc(results, func(a, b Result) int {
		return cmp.Or(compareIDs(a.Trajectory.DataID, b.Trajectory.DataID), compareIDs(a.Trajectory.RolloutID, b.Trajectory.RolloutID))
	})
	if r.Trajectories != nil {
		w := NewTrajectoryWriter(r.Trajectories)
		for _, res := range results {
			if err := w.Write(res.Trajectory); err != nil {
				errs = append(errs, fmt.Errorf("write trajectories: %w", err))
				break
			}
		}
	}
	return results, JoinFailures(errs...)
}

// runWithRetry runs one rollout, retrying failures that another attempt may
// cure.
func (r *Runner) runWithRetry(ctx context.Context, ro Rollout) (Result, error) {
	attempts := cmp.Or(r.MaxAttempts, DefaultMaxAttempts)
	backoff := retry.Backoff{Base: cmp.Or(r.Backoff, DefaultBackoff), Max: cmp.Or(r.MaxBackoff, DefaultMaxBackoff)}
	log := r.logger().With("task_id", ro.Task.TaskID, "data_id", ro.DataID, "rollout_id", ro.RolloutID)
	var err error
	tries := 0
	for tries < max(attempts, 1) {
		tries++
		var res Result
		if res, err = r.Flow.Run(ctx, ro); err == nil {
			return res, nil
		}
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		if !retriable(err) || tries >= attempts {
			break
		}
		wait := backoff.Delay(tries-1, nil)
		log.Warn("agentflow: episode failed; retrying", "attempt", tries, "wait", wait, "err", err)
		if err := retry.Sleep(ctx, wait); err != nil {
			return Result{}, err
		}
	}
	log.Error("agentflow: episode failed", "attempts", tries, "err", err)
	return Result{}, &RolloutError{TaskID: ro.Task.TaskID, DataID: ro.DataID, RolloutID: ro.RolloutID, Attempts: tries, Err: err}
}

// RolloutErrors splits an error Runner.Run returned into the
// *RolloutError of every episode that failed, in order, and the rest
// joined (nil when there is none): cancellation, or a failure writing
// Trajectories.
func RolloutErrors(err error) (failed []*RolloutError, rest error) {
	var others []error
	var walk func(error)
	walk = func(e error) {
		switch x := e.(type) {
		case nil:
		case *RolloutError:
			failed = append(failed, x)
		case interface{ Unwrap() []error }:
			for _, y := range x.Unwrap() {
				walk(y)
			}
		default:
			others = append(others, e)
		}
	}
	walk(err)
	return failed, errors.Join(others...)
}

// permanent reports errors another attempt cannot cure.
func permanent(err error) bool {
	return errors.Is(err, ErrConfig) || errors.Is(err, ErrInitState) || errors.Is(err, contextmgr.ErrConfig)
}

func (r *Runner) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return r.Flow.logger()
}

// compareIDs orders ids numerically when both are integers, else as
// strings.
func compareIDs(a, b string) int {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		return cmp.Compare(x, y)
	}
	return cmp.Compare(a, b)
}
