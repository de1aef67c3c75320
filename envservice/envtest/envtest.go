package envtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
)

// Defaults of Options' zero fields.
const (
	// DefaultTasks is how many tasks of each split are played.
	DefaultTasks = 3
	// DefaultConcurrency is how many episodes the Concurrency check runs
	// at once.
	DefaultConcurrency = 4
	// DefaultTimeout bounds each call of the environment.
	DefaultTimeout = time.Minute
)

// Options configures TestEnv and Run. The zero value checks the "train"
// and "val" splits with DefaultTasks tasks each, the expert's actions where
// the environment has an expert, DefaultConcurrency episodes at once and
// DefaultTimeout per call, without assuming determinism.
type Options struct {
	// Splits are the splits whose tasks are listed and played; nil means
	// "train" (envservice.DefaultSplit) and "val". Every one must list at
	// least one task.
	Splits []string
	// Tasks is how many tasks of each split are played, spread over its
	// listing from the first to the last; zero means DefaultTasks.
	Tasks int
	// Actions, when set, gives the actions of an episode of taskID whose
	// instance showed init: assistant messages sent one per step until
	// the list ends or the episode terminates (it need not). It is called
	// once per played task, from one goroutine, and its actions are
	// replayed by the Concurrency check. A nil or empty result, or a nil
	// Actions, means the expert's demonstration when the environment is an
	// envservice.Expert that has one for the task, else one arbitrary text
	// action.
	Actions func(taskID string, init envclient.InitState) []agentevolver.Message
	// Concurrency is how many episodes the Concurrency check runs at once;
	// zero means DefaultConcurrency and a negative value skips the check.
	Concurrency int
	// Deterministic declares that the same task and the same actions
	// always give the same observations, rewards, termination and scores,
	// whatever runs alongside. The Concurrency check then compares each
	// concurrent episode with the sequential one, and Evaluate must answer
	// the same twice in a row.
	Deterministic bool
	// Timeout bounds each call of the environment: its context ends after
	// Timeout, and a call still running half as long again is reported as
	// hung. Zero means DefaultTimeout.
	Timeout time.Duration
	// LooseInitState accepts any initial state of one or more messages
	// with known roles. By default the suite wants what agentflow.Flow,
	// the trainer's episode loop, requires: exactly a system message and
	// a user message.
	LooseInitState bool
	// Logger receives progress records at Info level: the tasks played,
	// how their episodes ended, errors the contract allows. Nil discards
	// them; Run also writes them to the test log.
	Logger *slog.Logger
}

// check is one named property of the contract.
type check struct {
	name string
	run  func(*suite, *report)
	// tasks marks checks that play listed tasks: they are skipped when no
	// task could be listed.
	tasks bool
}

// checks are run in this order: later ones use what earlier ones learnt
// (the listed tasks, the expert's demonstrations, the sequential
// transcripts).
var checks = []check{
	{name: "TaskIDs", run: (*suite).checkTaskIDs},
	{name: "New", run: (*suite).checkNew, tasks: true},
	{name: "Expert", run: (*suite).checkExpert, tasks: true},
	{name: "Episode", run: (*suite).checkEpisodes, tasks: true},
	{name: "BadInput", run: (*suite).checkBadInput, tasks: true},
	{name: "Close", run: (*suite).checkClose, tasks: true},
	{name: "Concurrency", run: (*suite).checkConcurrency, tasks: true},
	{name: "Profile", run: (*suite).checkProfile},
	{name: "Corpus", run: (*suite).checkCorpus},
	{name: "TaskMetadata", run: (*suite).checkTaskMetadata, tasks: true},
	{name: "StepOracle", run: (*suite).checkStepOracle, tasks: true},
	{name: "TaskSynthesizer", run: (*suite).checkTaskSynthesizer, tasks: true},
	{name: "RandomExplorer", run: (*suite).checkRandomExplorer, tasks: true},
	{name: "ProcessBacked", run: (*suite).checkProcessBacked},
}

// TestEnv checks env against the contract of envservice.Environment, its
// instances and the optional capabilities it implements, and returns every
// failure found, joined with errors.Join, or nil. Each failure starts with
// "envtest: " and the name of its check. It stops early, reporting ctx's
// error, when ctx ends.
func TestEnv(ctx context.Context, env envservice.Environment, opts Options) error {
	if env == nil {
		return errors.New("envtest: nil environment")
	}
	s := newSuite(ctx, env, opts)
	var errs []error
	for _, c := range checks {
		if err := ctx.Err(); err != nil {
			errs = append(errs, fmt.Errorf("envtest: stopped before %s: %w", c.name, err))
			break
		}
		r := s.run(c, s.log)
		for _, err := range r.failures() {
			errs = append(errs, fmt.Errorf("envtest: %s: %w", c.name, err))
		}
	}
	return errors.Join(errs...)
}

// Run runs TestEnv's checks on env as subtests of t, one per check under
// the check's name; a check that does not apply (a capability env does not
// implement) is skipped with the reason.
func Run(t *testing.T, env envservice.Environment, opts Options) {
	t.Helper()
	if env == nil {
		t.Fatal("envtest: nil environment")
	}
	s := newSuite(t.Context(), env, opts)
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			r := s.run(c, func(format string, args ...any) {
				s.log(format, args...)
				t.Logf(format, args...)
			})
			for _, err := range r.failures() {
				t.Error(err)
			}
			if t.Failed() {
				return
			}
			if r.skipped != "" {
				t.Skip(r.skipped)
			}
		})
	}
}

// suite is one run of the checks on one environment.
type suite struct {
	env  envservice.Environment
	opts Options
	ctx  context.Context
	logf func(format string, args ...any) // of the check running now

	// Learnt by the checks, in order.
	listed map[string][]string // TaskIDs of each split that listed
	played []string            // the tasks the checks play, split by split
	demos  map[string][]agentevolver.Message
	plans  map[string]plan
	seq    map[string]*transcript // the sequential episode of each played task

	instances atomic.Int64 // numbers instance ids
	hangs     atomic.Int64 // calls that hung
}

func newSuite(ctx context.Context, env envservice.Environment, opts Options) *suite {
	if len(opts.Splits) == 0 {
		opts.Splits = []string{envservice.DefaultSplit, "val"}
	}
	if opts.Tasks <= 0 {
		opts.Tasks = DefaultTasks
	}
	if opts.Concurrency == 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	return &suite{
		env: env, opts: opts, ctx: ctx,
		listed: map[string][]string{},
		demos:  map[string][]agentevolver.Message{},
		plans:  map[string]plan{},
		seq:    map[string]*transcript{},
	}
}

// log writes a progress record to Options.Logger.
func (s *suite) log(format string, args ...any) {
	if s.opts.Logger != nil {
		s.opts.Logger.Info(fmt.Sprintf("envtest: "+format, args...))
	}
}

// run runs one check, logging with logf, and recovers a panic of the
// check's own code (environment code runs under call, which recovers its
// panics as failures of the call).
func (s *suite) run(c check, logf func(format string, args ...any)) (r *report) {
	s.logf = logf
	r = &report{}
	if c.tasks && len(s.played) == 0 {
		r.skip("no task to play: TaskIDs listed none")
		return r
	}
	defer func() {
		if p := recover(); p != nil {
			r.errorf("the check itself panicked (an envtest bug, or a value it did not expect): %v%s", p, panicSite())
		}
	}()
	c.run(s, r)
	return r
}

// maxFailures bounds the failures one check reports.
const maxFailures = 40

// report collects the failures of one check. It is safe for concurrent
// use.
type report struct {
	mu      sync.Mutex
	errs    []error
	dropped int
	notMade int // failures of calls the suite did not make
	skipped string
}

// errorf records a failure, unless it is that of a call the suite did not
// make (after a hang): those are counted, and reported once.
func (r *report) errorf(format string, args ...any) {
	for _, a := range args {
		if err, ok := a.(error); ok && notCalled(err) {
			r.mu.Lock()
			r.notMade++
			r.mu.Unlock()
			return
		}
	}
	r.add(fmt.Errorf(format, args...))
}

func (r *report) add(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errs) >= maxFailures {
		r.dropped++
		return
	}
	r.errs = append(r.errs, err)
}

func (r *report) skip(reason string) { r.skipped = reason }

// failures returns the failures, with a last one counting those dropped.
func (r *report) failures() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	errs := r.errs[:len(r.errs):len(r.errs)]
	if r.dropped > 0 {
		errs = append(errs, fmt.Errorf("… and %d more failures", r.dropped))
	}
	if r.notMade > 0 {
		calls := fmt.Sprintf("%d calls were", r.notMade)
		if r.notMade == 1 {
			calls = "1 call was"
		}
		errs = append(errs, fmt.Errorf("%s not made: the instance, or the environment, had hung before", calls))
	}
	return errs
}
