package trainer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/internal/retry"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/runlog"
)

// Outages.
//
// An outage is a service the run depends on that cannot be reached: the
// environment (errors.Is(err, envclient.ErrUnavailable): connection
// refused or dropped, timeouts, 502/503/504 after the client's own
// retries) or a model endpoint (errors.Is(err, llm.ErrUnavailable)). It is
// not a fault of the episodes, so Fit neither trains on what survived it
// nor counts it against trainer.max_failed_ratio: it waits for the service
// and runs the same RL step (or validation) again, with the same tasks and
// seeds, so that the run continues as if the outage never happened.
//
// The rule for a step that only some episodes of which hit the outage: the
// whole step is discarded and run again. Training on the survivors would
// bias the update: which episodes an outage kills is not random (the long
// ones, which make more calls, and the ones in flight when the service
// went away), GRPO groups would lose members and so change every other
// member's advantage, and the result would depend on when the outage
// happened rather than on the seeds. Episodes that failed for another
// reason in the same attempt (an instance lost when the service restarted,
// say) are redone with it. A step is redone only before its policy update;
// once the update is taken nothing in it is run again.

// ErrOutage reports that a service stayed unreachable for longer than
// trainer.outage_timeout. An *OutageError carries the details.
var ErrOutage = errors.New("trainer: service unavailable")

// Service names a service whose outage Fit waits out.
type Service string

// Services Fit waits for.
const (
	// ServiceEnv is the environment (the env service at env.url, or
	// whatever Options.Env talks to).
	ServiceEnv Service = "environment"
	// ServiceModel is a model endpoint (an llm.ChatModel: the policy, a
	// clip model, a judge or a task generator).
	ServiceModel Service = "model endpoint"
)

// HealthChecker is an optional capability of an Env (envclient.Client has
// it): Health reports whether the service answers. While the environment
// is unreachable Fit calls it with exponential backoff and runs the
// interrupted step again once it returns nil. For an Env without it, Fit
// probes by running the step again after each backoff.
type HealthChecker interface {
	Health(ctx context.Context) error
}

var _ HealthChecker = (*envclient.Client)(nil)

// OutageError reports an outage that outlasted trainer.outage_timeout.
// Fit returns it after saving a checkpoint; run again with Resume once the
// service is back. It unwraps to ErrOutage and to Err.
type OutageError struct {
	// Service is the service that could not be reached.
	Service Service
	// Phase is "rl" or "validation"; Step the RL step (1-based for "rl",
	// the number of steps done for "validation").
	Phase string
	Step  int
	// Waited is how long Fit waited; Limit is trainer.outage_timeout
	// (with its default; negative when Fit does not wait).
	Waited, Limit time.Duration
	// Err is the last error: an episode's or the health check's.
	Err error
}

// Error implements error.
func (e *OutageError) Error() string {
	return fmt.Sprintf("trainer: %s at step %d: the %s stayed unreachable (waited %s, trainer.outage_timeout %s): %v; run again with Resume (--resume) once it is back",
		e.Phase, e.Step, e.Service, e.Waited.Round(time.Millisecond), e.Limit, e.Err)
}

// Unwrap returns ErrOutage and Err.
func (e *OutageError) Unwrap() []error { return []error{ErrOutage, e.Err} }

// outageBackoff spaces health checks (or probing attempts) while waiting:
// the first wait is a second, each next one doubles up to 30 seconds.
var outageBackoff = retry.Backoff{Base: time.Second, Max: 30 * time.Second}

// healthCheckTimeout bounds one health check.
const healthCheckTimeout = 30 * time.Second

// outageWaitMsg is the log message of every wait for a service.
const outageWaitMsg = "trainer: service unreachable; waiting before trying again"

// runTotals are the run's episode and outage counts for the summary. They
// are part of a checkpoint's state, so a resumed run keeps counting.
type runTotals struct {
	// FailedEpisodes sums rollout/failed over the trained steps.
	FailedEpisodes int `json:"failed_episodes"`
	// SkippedEpisodes counts the episodes of RL-step and validation
	// attempts discarded because of an outage.
	SkippedEpisodes int `json:"skipped_episodes"`
	// Outages counts the outages waited out (the service came back).
	Outages int `json:"outages"`
	// OutageWaitSeconds is the time spent waiting for services.
	OutageWaitSeconds float64 `json:"outage_wait_seconds"`
}

// outageService reports whether err is an outage, and of which service.
func outageService(err error) (Service, bool) {
	switch {
	case err == nil:
		return "", false
	case errors.Is(err, envclient.ErrUnavailable):
		return ServiceEnv, true
	case errors.Is(err, llm.ErrUnavailable):
		return ServiceModel, true
	}
	return "", false
}

// outageAttempt reports an attempt (an RL step before its update, or a
// validation) that an outage spoiled: it trained and recorded nothing and
// runs again after the wait.
type outageAttempt struct {
	service Service
	// episodes is the number of episodes the attempt ran (all discarded);
	// hit the number that failed because of the outage.
	episodes, hit int
	err           error
}

func (e *outageAttempt) Error() string {
	return fmt.Sprintf("trainer: the %s is unreachable (%d of %d episodes hit): %v", e.service, e.hit, e.episodes, e.err)
}

func (e *outageAttempt) Unwrap() error { return e.err }

// outageOr returns err as an *outageAttempt that ran episodes when it is
// an outage, else err itself.
func outageOr(err error, episodes int) error {
	if s, ok := outageService(err); ok {
		return &outageAttempt{service: s, episodes: episodes, err: err}
	}
	return err
}

// outageNote is what the current outage has cost the attempt it precedes:
// the time waited and the episodes discarded. Zero when there was none.
type outageNote struct {
	waited  time.Duration
	skipped int
}

// addMetrics adds time/outage_wait_s and skippedKey after an outage.
func (n outageNote) addMetrics(m map[string]float64, skippedKey string) {
	if n.waited == 0 && n.skipped == 0 {
		return
	}
	m["time/outage_wait_s"] = n.waited.Seconds()
	m[skippedKey] = float64(n.skipped)
}

// outageWaiter waits out outages for one run. An outage lasts from the
// end of the first attempt it spoiled until an attempt of the same step
// (or validation) runs without one; trainer.outage_timeout bounds that
// time, redone attempts included, so a service that keeps failing a few
// episodes of every attempt cannot hold the run forever.
type outageWaiter struct {
	r     *run
	limit time.Duration // < 0: never wait
	bar   *runlog.Progress
	// The current outage; began is zero when there is none.
	began   time.Time
	service Service
	retries int // waits so far in this outage
	note    outageNote
}

// newOutageWaiter returns the run's waiter, showing waits on bar (which
// may be nil).
func (r *run) newOutageWaiter(bar *runlog.Progress) *outageWaiter {
	limit := r.cfg.Trainer.OutageTimeout
	if limit == 0 {
		limit = DefaultOutageTimeout
	}
	return &outageWaiter{r: r, limit: limit, bar: bar}
}

// retryOutages runs attempt until it ends without an outage, waiting
// before each retry. It returns attempt's result or error, an
// *OutageError when the wait limit passes, or ctx's error when ctx ends.
func retryOutages[T any](ctx context.Context, w *outageWaiter, phase string, step int, attempt func(outageNote) (T, error)) (T, error) {
	for {
		v, err := attempt(w.note)
		var oa *outageAttempt
		if err == nil || ctx.Err() != nil || !errors.As(err, &oa) {
			if err == nil {
				w.over(phase, step)
			}
			return v, err
		}
		if werr := w.wait(ctx, phase, step, oa); werr != nil {
			var zero T
			return zero, werr
		}
	}
}

// wait counts the spoiled attempt oa and waits for its service: with
// exponential backoff, each wait followed by a health check when the
// service is the environment and the Env has one (else the next attempt
// is the probe). It returns nil when the attempt should run again.
func (w *outageWaiter) wait(ctx context.Context, phase string, step int, oa *outageAttempt) error {
	r := w.r
	began := time.Now()
	defer func() {
		d := time.Since(began)
		w.note.waited += d
		r.state.Totals.OutageWaitSeconds += d.Seconds()
	}()
	w.note.skipped += oa.episodes
	r.state.Totals.SkippedEpisodes += oa.episodes
	if w.began.IsZero() {
		w.began, w.retries = began, 0
	}
	if w.service != ServiceEnv {
		w.service = oa.service // the environment's health check takes precedence
	}
	var checker HealthChecker
	if w.service == ServiceEnv && r.env != nil {
		checker, _ = r.env.env.(HealthChecker)
	}
	last := oa.err
	for {
		elapsed := time.Since(w.began)
		if w.limit < 0 || elapsed >= w.limit {
			return &OutageError{Service: w.service, Phase: phase, Step: step, Waited: w.note.waited + time.Since(began), Limit: w.limit, Err: last}
		}
		d := min(outageBackoff.Ceiling(w.retries), w.limit-elapsed)
		w.retries++
		r.log.Warn(outageWaitMsg, "service", string(w.service), "phase", phase, "step", step,
			"elapsed", elapsed.Round(time.Second).String(), "limit", w.limit.String(), "next_try_in", d.Round(time.Millisecond).String(),
			"episodes_hit", oa.hit, "episodes_discarded", oa.episodes, "err", last)
		w.bar.Describe(fmt.Sprintf("%s: waiting for the %s (%s of %s)", phaseLabel(phase, step), w.service,
			elapsed.Round(time.Second), w.limit))
		if err := retry.Sleep(ctx, d); err != nil {
			return fmt.Errorf("trainer: waiting for the %s: %w", w.service, err)
		}
		if checker == nil {
			return nil
		}
		hctx, cancel := context.WithTimeout(ctx, min(healthCheckTimeout, max(w.limit-time.Since(w.began), time.Second)))
		err := checker.Health(hctx)
		cancel()
		if ctx.Err() != nil {
			return fmt.Errorf("trainer: waiting for the %s: %w", w.service, ctx.Err())
		}
		if err == nil {
			r.log.Info("trainer: service answers its health check; running again", "service", string(w.service), "phase", phase, "step", step,
				"elapsed", time.Since(w.began).Round(time.Millisecond).String())
			return nil
		}
		last = err
	}
}

// over ends the current outage, if any, after a clean attempt.
func (w *outageWaiter) over(phase string, step int) {
	if w.began.IsZero() {
		return
	}
	w.r.state.Totals.Outages++
	w.r.log.Info("trainer: outage over", "service", string(w.service), "phase", phase, "step", step,
		"lasted", time.Since(w.began).Round(time.Millisecond).String(), "waited", w.note.waited.Round(time.Millisecond).String(),
		"episodes_discarded", w.note.skipped)
	w.bar.Describe("RL")
	*w = outageWaiter{r: w.r, limit: w.limit, bar: w.bar}
}

// phaseLabel names phase at step for the progress bar.
func phaseLabel(phase string, step int) string {
	if phase == "rl" {
		return fmt.Sprintf("RL step %d", step)
	}
	return fmt.Sprintf("%s@%d", phase, step)
}

// stopAfterOutage saves a checkpoint after an *OutageError, so that
// Resume continues from here once the service is back; it returns err
// (joined with any save error).
func (r *run) stopAfterOutage(ctx context.Context, err error) error {
	if serr := r.save(ctx); serr != nil {
		return errors.Join(err, fmt.Errorf("trainer: checkpoint after outage: %w", serr))
	}
	r.log.Error("trainer: stopped: service unreachable for too long; checkpoint saved", "step", r.state.Step, "err", err)
	return err
}
