package agentflow

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
)

// FailureCause classifies a failed episode. An episode fails when its
// environment (or its policy) breaks: it is never training data and never a
// validation score. Hitting Flow.MaxSteps or the context window is not a
// failure but a normal truncated episode.
type FailureCause string

// Failure causes, as they appear in metrics (rollout/failed/<cause>).
const (
	// FailCreate: the instance could not be created.
	FailCreate FailureCause = "create"
	// FailInitState: the initial state broke the contract (exactly a system
	// and a user message) or could not be read.
	FailInitState FailureCause = "init_state"
	// FailStep: a step returned an error.
	FailStep FailureCause = "step"
	// FailStepPanic: environment code panicked during a step.
	FailStepPanic FailureCause = "step_panic"
	// FailEvaluate: scoring the episode returned an error (the
	// environment's evaluation or a RewardCalculator).
	FailEvaluate FailureCause = "evaluate"
	// FailScore: the score was NaN or infinite.
	FailScore FailureCause = "non_finite_score"
	// FailPolicy: the policy could not answer.
	FailPolicy FailureCause = "policy"
	// FailStaleAdapter: the policy's reply came from another model than
	// the current one (llm.ErrStaleModel: a rollout server that lost or
	// never loaded the adapter just published).
	FailStaleAdapter FailureCause = "stale_adapter"
)

// ErrPromptTooLong reports an episode whose initial prompt alone leaves no
// room for a response in the context window: a configuration error
// (rollout.max_model_len, rollout.response_length or the environment's
// prompts), never retried. It wraps contextmgr.ErrContextFull's sizes.
var ErrPromptTooLong = errors.New("agentflow: the initial prompt does not fit the context window")

// EpisodeError reports an episode that failed, with its cause.
type EpisodeError struct {
	// Cause classifies the failure.
	Cause FailureCause
	// Step is the policy turn at which it failed (0-based), or -1 before
	// the first turn.
	Step int
	// Err is the underlying error, the environment's message included.
	Err error
}

// Error implements error.
func (e *EpisodeError) Error() string {
	if e.Step >= 0 {
		return fmt.Sprintf("agentflow: episode failed (%s at step %d): %v", e.Cause, e.Step, e.Err)
	}
	return fmt.Sprintf("agentflow: episode failed (%s): %v", e.Cause, e.Err)
}

// Unwrap returns the underlying error.
func (e *EpisodeError) Unwrap() error { return e.Err }

// CauseOf returns the cause of a failed episode's error: the EpisodeError's
// cause, "" for errors that are not episode failures (cancellation,
// configuration).
func CauseOf(err error) FailureCause {
	var ee *EpisodeError
	if errors.As(err, &ee) {
		return ee.Cause
	}
	return ""
}

// fail wraps err as an EpisodeError of cause at step.
func fail(cause FailureCause, step int, err error) *EpisodeError {
	return &EpisodeError{Cause: cause, Step: step, Err: err}
}

// stepFailure classifies a failed step: a panic (recovered by the Flow or
// by an envservice.Manager) is a step panic, anything else a step error.
func stepFailure(step int, err error) *EpisodeError {
	if isPanic(err) {
		return fail(FailStepPanic, step, err)
	}
	return fail(FailStep, step, err)
}

// policyFailure classifies a policy that could not answer: a reply from a
// stale model (llm.ErrStaleModel) is a stale adapter, anything else a
// policy failure.
func policyFailure(step int, err error) *EpisodeError {
	err = fmt.Errorf("policy: %w", err)
	if errors.Is(err, llm.ErrStaleModel) {
		return fail(FailStaleAdapter, step, err)
	}
	return fail(FailPolicy, step, err)
}

// isPanic reports a panic recovered by the Flow (*PanicError) or by an
// envservice.Manager (*envservice.PanicError).
func isPanic(err error) bool {
	var pe *PanicError
	var spe *envservice.PanicError
	return errors.As(err, &pe) || errors.As(err, &spe)
}

// checkScore rejects a non-finite score.
func checkScore(score float64) error {
	if math.IsNaN(score) || math.IsInf(score, 0) {
		return fmt.Errorf("score %v is not a finite number", score)
	}
	return nil
}

// PanicError is a panic of a call into the environment or the policy that
// the Flow recovered (an envservice.Manager recovers its own and returns
// *envservice.PanicError instead).
type PanicError struct {
	// Op names the call: "create", "step", "evaluate", "policy", ...
	Op string
	// Value is the value passed to panic.
	Value any
}

// Error implements error.
func (e *PanicError) Error() string { return fmt.Sprintf("agentflow: %s panicked: %v", e.Op, e.Value) }

// guard runs f, turning a panic into a *PanicError for op.
func guard[T any](op string, f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &PanicError{Op: op, Value: p}
		}
	}()
	return f()
}

// retriable reports whether another attempt of an episode that failed with
// err may succeed. Configuration errors, requests the environment rejected
// as invalid (bad request, unknown task or instance) and failures the
// environment will repeat (a step, scoring or initial-state fault, a panic)
// are not retried; outages (unavailable, too many instances) and other
// create failures are. A policy failure is not retried either: the llm
// clients retry their own transient errors. A reply from a stale model is:
// the fleet has taken that server out of its rotation, so another attempt
// samples from a server that holds the current adapter.
func retriable(err error) bool {
	switch {
	case permanent(err), errors.Is(err, ErrPromptTooLong), isPanic(err),
		errors.Is(err, envclient.ErrBadRequest), errors.Is(err, envclient.ErrInstanceNotFound):
		return false
	case errors.Is(err, envclient.ErrUnavailable), errors.Is(err, envclient.ErrTooManyInstances),
		errors.Is(err, llm.ErrStaleModel):
		return true
	}
	switch CauseOf(err) {
	case FailCreate, "":
		return true
	}
	return false
}

// MaxFailureKinds bounds the kinds of failure an error of JoinFailures
// shows; the rest are counted.
const MaxFailureKinds = 8

// JoinFailures joins errs (nil entries are skipped; nil when none is left)
// as errors.Join does, except for the message: the errors are grouped by
// kind, their FailureCause (CauseOf), or for other errors their text with
// digits dropped (so that "task 3" and "task 17" are one kind), and each
// kind is shown once with its count and its first error as the example,
// the most frequent first. errors.Is, errors.As and RolloutErrors see
// every error. Runner.Run returns its failures this way, so that eighty
// failed episodes read as a line or two rather than eighty.
func JoinFailures(errs ...error) error {
	var kept []error
	for _, err := range errs {
		if err != nil {
			kept = append(kept, err)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	if len(kept) == 1 {
		return kept[0]
	}
	return &joinedFailures{errs: kept}
}

// joinedFailures is JoinFailures's error.
type joinedFailures struct{ errs []error }

// Unwrap returns every error.
func (j *joinedFailures) Unwrap() []error { return j.errs }

// Error summarises the errors by kind.
func (j *joinedFailures) Error() string {
	type kind struct {
		name    string
		count   int
		example error
	}
	var kinds []*kind
	byKey := map[string]*kind{}
	for _, err := range j.errs {
		name := string(CauseOf(err))
		key := name
		if key == "" {
			key = "\x00" + strings.Map(func(r rune) rune {
				if unicode.IsDigit(r) {
					return -1
				}
				return r
			}, err.Error())
		}
		k := byKey[key]
		if k == nil {
			k = &kind{name: name, example: err}
			byKey[key] = k
			kinds = append(kinds, k)
		}
		k.count++
	}
	sort.SliceStable(kinds, func(a, b int) bool { return kinds[a].count > kinds[b].count })
	var b strings.Builder
	fmt.Fprintf(&b, "%d failures", len(j.errs))
	if len(kinds) > 1 {
		fmt.Fprintf(&b, " of %d kinds", len(kinds))
	}
	for i, k := range kinds {
		if i == MaxFailureKinds {
			fmt.Fprintf(&b, "\n  and %d more kinds", len(kinds)-i)
			break
		}
		name := cmp.Or(k.name, "other")
		fmt.Fprintf(&b, "\n  %d × %s, for example: %v", k.count, name, k.example)
	}
	return b.String()
}
