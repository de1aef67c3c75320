package trainer

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/contextmgr"
)

// Errors of failed steps, which Fit returns after saving a checkpoint so
// that Resume continues once the environment is fixed.
var (
	// ErrTooManyFailures reports a step or validation whose episodes
	// failed in the environment more often than
	// trainer.max_failed_ratio allows, or all of them. A *FailureError
	// carries the details.
	ErrTooManyFailures = errors.New("trainer: too many failed episodes")
	// ErrNoSamples reports an RL step whose surviving episodes produced
	// no training sample; it is not counted as a trained step.
	ErrNoSamples = errors.New("trainer: no training samples")
)

// FailureCauseOther is the cause of a failed episode whose error is not an
// *agentflow.EpisodeError.
const FailureCauseOther agentflow.FailureCause = "other"

// FailureError describes the failed episodes of a step (or a validation)
// that stopped Fit. It unwraps to ErrTooManyFailures.
type FailureError struct {
	// Phase is "rl" or "validation"; Step the RL step (1-based for "rl",
	// the number of steps done for "validation").
	Phase string
	Step  int
	// Failed of Total episodes failed.
	Failed, Total int
	// Cause is the most frequent cause and Message the environment's
	// message for its first episode.
	Cause   agentflow.FailureCause
	Message string
	// Causes counts the failed episodes per cause.
	Causes map[agentflow.FailureCause]int
	// Examples holds the message of the first failed episode of each
	// cause.
	Examples map[agentflow.FailureCause]string
}

// Error implements error. It names every cause once, the most frequent
// first, with its count and one example.
func (e *FailureError) Error() string {
	causes := make([]agentflow.FailureCause, 0, len(e.Causes))
	for c := range e.Causes {
		causes = append(causes, c)
	}
	slices.SortFunc(causes, func(a, b agentflow.FailureCause) int {
		return cmp.Or(cmp.Compare(e.Causes[b], e.Causes[a]), strings.Compare(string(a), string(b)))
	})
	const fix = "fix the environment and run again with Resume (--resume)"
	if len(causes) <= 1 {
		return fmt.Sprintf("trainer: %s at step %d: %d of %d episodes failed (%s: %s); %s",
			e.Phase, e.Step, e.Failed, e.Total, e.Cause, e.Message, fix)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "trainer: %s at step %d: %d of %d episodes failed; %s; by cause:", e.Phase, e.Step, e.Failed, e.Total, fix)
	for _, c := range causes {
		example := e.Examples[c]
		if example == "" && c == e.Cause {
			example = e.Message
		}
		fmt.Fprintf(&b, "\n  %d × %s, for example: %s", e.Causes[c], c, example)
	}
	return b.String()
}

// Unwrap returns ErrTooManyFailures.
func (e *FailureError) Unwrap() error { return ErrTooManyFailures }

// failureTally counts failed episodes by cause.
type failureTally struct {
	failed  int
	byCause map[agentflow.FailureCause]int
	first   map[agentflow.FailureCause]string
	// outage, when some episodes failed because a service was
	// unreachable, describes them (its episodes field is left to the
	// caller); such an attempt is run again, not trained on or scored.
	outage *outageAttempt
}

// tallyFailures counts errs by cause, keeping the first message of each,
// and notes the episodes that failed because of an outage (the
// environment's taking precedence over a model endpoint's).
func tallyFailures(errs []*agentflow.RolloutError) failureTally {
	t := failureTally{failed: len(errs), byCause: map[agentflow.FailureCause]int{}, first: map[agentflow.FailureCause]string{}}
	for _, re := range errs {
		c := cmp.Or(agentflow.CauseOf(re.Err), FailureCauseOther)
		if t.byCause[c] == 0 {
			t.first[c] = re.Err.Error()
		}
		t.byCause[c]++
		if s, ok := outageService(re.Err); ok {
			if t.outage == nil {
				t.outage = &outageAttempt{service: s, err: re}
			} else if s == ServiceEnv && t.outage.service != ServiceEnv {
				t.outage.service, t.outage.err = s, re
			}
			t.outage.hit++
		}
	}
	return t
}

// outageErr returns, when an outage spoiled the attempt of total
// episodes, an *outageAttempt, else nil.
func (t failureTally) outageErr(total int) error {
	if t.outage == nil {
		return nil
	}
	oa := *t.outage
	oa.episodes = total
	return &oa
}

// causes returns the causes by decreasing count, then by name.
func (t failureTally) causes() []agentflow.FailureCause {
	out := make([]agentflow.FailureCause, 0, len(t.byCause))
	for c := range t.byCause {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b agentflow.FailureCause) int {
		return cmp.Or(cmp.Compare(t.byCause[b], t.byCause[a]), strings.Compare(string(a), string(b)))
	})
	return out
}

// addMetrics sets key and key/<cause> for every cause seen.
func (t failureTally) addMetrics(m map[string]float64, key string) {
	m[key] = float64(t.failed)
	for c, n := range t.byCause {
		m[key+"/"+string(c)] = float64(n)
	}
}

// log writes one record per cause with the environment's first message.
func (t failureTally) log(log *slog.Logger, phase string, step int) {
	for _, c := range t.causes() {
		log.Warn("trainer: episodes failed; excluded", "phase", phase, "step", step, "cause", string(c), "count", t.byCause[c], "err", t.first[c])
	}
}

// check returns a *FailureError when the failed share of total exceeds
// maxRatio or nothing survived.
func (t failureTally) check(phase string, step, total int, maxRatio float64) error {
	if t.failed == 0 || total == 0 {
		return nil
	}
	if t.failed < total && float64(t.failed)/float64(total) <= maxRatio {
		return nil
	}
	c := t.causes()[0]
	return &FailureError{Phase: phase, Step: step, Failed: t.failed, Total: total, Cause: c, Message: t.first[c], Causes: t.byCause, Examples: t.first}
}

// configFailure returns the first failure that is a configuration error
// rather than an environment failure: every episode would repeat it.
func configFailure(errs []*agentflow.RolloutError) error {
	for _, re := range errs {
		switch {
		case errors.Is(re.Err, agentflow.ErrPromptTooLong):
			return fmt.Errorf("%w: task %s: %w; raise rollout.max_model_len or shorten the environment's prompts", ErrConfig, re.TaskID, re.Err)
		case errors.Is(re.Err, agentflow.ErrConfig), errors.Is(re.Err, contextmgr.ErrConfig):
			return fmt.Errorf("%w: %w", ErrConfig, re.Err)
		}
	}
	return nil
}
