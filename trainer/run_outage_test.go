package trainer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
	"github.com/org/agentevolver/runlog"
)

// echoService serves an echoEnv over HTTP at a fixed loopback address and
// can be stopped and started again there, as an env service that is
// killed and restarted is: a restart is a new Manager, so instances of
// the old process are gone.
type echoService struct {
	t    *testing.T
	env  *echoEnv
	addr string
	mu   sync.Mutex
	stop func() // nil while down
}

func newEchoService(t *testing.T, env *echoEnv) *echoService {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &echoService{t: t, env: env, addr: ln.Addr().String()}
	s.serve(ln)
	t.Cleanup(s.down)
	return s
}

func (s *echoService) serve(ln net.Listener) {
	m := envservice.NewManager(envservice.ManagerConfig{})
	if err := m.Register("echo", s.env); err != nil {
		s.t.Error(err)
	}
	srv := envservice.NewServer(m, envservice.ServerConfig{DefaultEnvType: "echo"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ctx, ln)
	}()
	s.stop = func() { cancel(); <-done }
}

// up starts the service again on its address (nothing when it runs).
func (s *echoService) up() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != nil {
		return
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		s.t.Errorf("restart the env service on %s: %v", s.addr, err)
		return
	}
	s.serve(ln)
}

// down stops the service: the listener is closed, idle connections are
// dropped and the Manager releases its instances.
func (s *echoService) down() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
}

// client is a real env-service client of s that does not retry, so that
// an outage reaches the trainer quickly.
func (s *echoService) client(t *testing.T) *envclient.Client {
	t.Helper()
	c, err := envclient.New(envclient.Config{BaseURL: "http://" + s.addr, EnvType: "echo", MaxRetries: -1, Timeout: time.Minute, TimeoutJitter: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// outageHooks trigger outages at fixed points of a run: down is called
// before the rollouts of RL step downAtStep (1-based; 0 = never) and after
// the update of RL step downAfterStep (so the validation that follows is
// hit). Each fires once; the tasks are those the default source draws.
type outageHooks struct {
	src                       envTaskSource
	downAtStep, downAfterStep int
	down                      func()
	mu                        sync.Mutex
	fired                     map[string]bool
}

func newOutageHooks(cfg Config, down func()) *outageHooks {
	var tasks []agentevolver.Task
	for i := range 6 { // echoEnv's training split
		tasks = append(tasks, agentevolver.Task{TaskID: fmt.Sprintf("train-%d", i), EnvType: "echo", Evaluator: agentevolver.EvaluatorEnv})
	}
	return &outageHooks{src: envTaskSource{tasks: tasks, seed: cfg.Trainer.Seed, shuffle: cfg.Data.Shuffle}, down: down, fired: map[string]bool{}}
}

func (h *outageHooks) once(key string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fired[key] {
		return false
	}
	h.fired[key] = true
	return true
}

func (h *outageHooks) NextTasks(ctx context.Context, step, n int) ([]agentevolver.Task, error) {
	if step+1 == h.downAtStep && h.down != nil && h.once("at") {
		h.down()
	}
	return h.src.NextTasks(ctx, step, n)
}

func (h *outageHooks) Record(_ context.Context, step int, _ []agentevolver.Trajectory) error {
	if step+1 == h.downAfterStep && h.down != nil && h.once("after") {
		h.down()
	}
	return nil
}

func (h *outageHooks) hooks() Hooks { return Hooks{Tasks: h, Recorder: h} }

// waitWatcher is a slog handler that keeps the log (shown when the test
// fails) and calls onWait for every record announcing a wait for a
// service, with that wait's number (1, 2, ...) and attributes.
type waitWatcher struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	text   slog.Handler
	waits  int
	onWait func(n int, attrs map[string]string)
}

func newWaitWatcher(t *testing.T, onWait func(int, map[string]string)) (*slog.Logger, *waitWatcher) {
	w := &waitWatcher{onWait: onWait}
	w.text = slog.NewTextHandler(&w.buf, &slog.HandlerOptions{Level: slog.LevelInfo})
	t.Cleanup(func() {
		if t.Failed() {
			w.mu.Lock()
			t.Logf("log:\n%s", w.buf.String())
			w.mu.Unlock()
		}
	})
	return slog.New(w), w
}

func (w *waitWatcher) Enabled(context.Context, slog.Level) bool { return true }

func (w *waitWatcher) Handle(ctx context.Context, r slog.Record) error {
	w.mu.Lock()
	if r.Level >= slog.LevelInfo {
		_ = w.text.Handle(ctx, r)
	}
	var n int
	attrs := map[string]string{}
	if r.Message == outageWaitMsg {
		w.waits++
		n = w.waits
		r.Attrs(func(a slog.Attr) bool {
			attrs[a.Key] = a.Value.String()
			return true
		})
	}
	w.mu.Unlock()
	if n > 0 && w.onWait != nil {
		w.onWait(n, attrs) // synchronously: before the trainer's next try
	}
	return nil
}

func (w *waitWatcher) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *waitWatcher) WithGroup(string) slog.Handler      { return w }

// outageConfig is echoConfig with one task of two rollouts per step, one
// validation episode, and a wait limit that a loaded machine never
// reaches in TestFitWaitsOutOutages.
func outageConfig(t *testing.T) Config {
	t.Helper()
	cfg := echoConfig(t)
	cfg.Env.Type = "echo"
	cfg.Trainer.RLSteps = 3
	cfg.Trainer.OutageTimeout = 5 * time.Minute
	cfg.Data.TrainBatchSize = 1
	cfg.Data.ValTasks = 1
	cfg.Rollout.N = 2
	return cfg
}

// stepsOf returns the steps of the records that hold key.
func stepsOf(records []runlog.Record, key string) []int64 {
	var out []int64
	for _, r := range records {
		if _, ok := r.Values[key]; ok {
			out = append(out, r.Step)
		}
	}
	return out
}

// recordAt returns the values of the record at step that holds key.
func recordAt(records []runlog.Record, step int64, key string) map[string]float64 {
	for _, r := range records {
		if _, ok := r.Values[key]; ok && r.Step == step {
			return r.Values
		}
	}
	return nil
}

// learningMetrics renders the metrics without wall-clock values and
// without the outage's own keys: what an outage must leave unchanged.
func learningMetrics(t *testing.T, dir string) string {
	t.Helper()
	records, err := runlog.ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range records {
		fmt.Fprintf(&b, "step %d", r.Step)
		for _, k := range slices.Sorted(maps.Keys(r.Values)) {
			if strings.HasPrefix(k, "time/") || strings.HasSuffix(k, "/skipped") {
				continue
			}
			fmt.Fprintf(&b, " %s=%s", k, ftoa(r.Values[k]))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func readMetrics(t *testing.T, dir string) []runlog.Record {
	t.Helper()
	records, err := runlog.ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	return records
}

// TestFitWaitsOutOutages kills the env service twice while Fit trains
// against it over HTTP (once before the validation after step 1, once at
// the start of RL step 3) and restarts it on the same address only once
// Fit has started waiting (the second time after a failed health check).
// Fit waits instead of training on or counting the interrupted attempts,
// runs them again and ends with the same metrics as a run without
// outages: every step and validation once, the discarded episodes and the
// outages in the summary and on the steps that followed the waits.
func TestFitWaitsOutOutages(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	env := &echoEnv{}

	// The same run without outages.
	cfg := outageConfig(t)
	svc := newEchoService(t, env)
	base := newOutageHooks(cfg, nil)
	if _, err := mustNew(t, cfg, Options{Env: svc.client(t), Hooks: base.hooks()}).Fit(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := learningMetrics(t, cfg.Trainer.OutputDir)

	cfg.Trainer.OutputDir = t.TempDir()
	svc = newEchoService(t, env)
	h := newOutageHooks(cfg, svc.down)
	h.downAfterStep, h.downAtStep = 1, 3
	var firstWait map[string]string
	log, _ := newWaitWatcher(t, func(n int, attrs map[string]string) {
		if n == 1 {
			firstWait = attrs
		}
		// Wait 1 is the validation after step 1's, waits 2 and 3 are
		// step 3's: restart at 1 and at 3, so that step 3's first
		// health check fails.
		if n == 1 || n == 3 {
			svc.up()
		}
	})
	var out bytes.Buffer
	s, err := mustNew(t, cfg, Options{Env: svc.client(t), Hooks: h.hooks(), Logger: log, Output: &out}).Fit(context.Background())
	if err != nil {
		t.Fatalf("Fit: %v", err)
	}
	if got := learningMetrics(t, cfg.Trainer.OutputDir); got != want {
		t.Errorf("metrics differ from the run without outages:\n%s\nwant\n%s", got, want)
	}
	records := readMetrics(t, cfg.Trainer.OutputDir)
	if got := stepsOf(records, "reward/mean"); !equalInts(got, []int64{1, 2, 3}) {
		t.Errorf("RL steps recorded %v, want each of 1..3 once", got)
	}
	if got := stepsOf(records, "val/success"); !equalInts(got, []int64{0, 1, 2, 3}) {
		t.Errorf("validations recorded %v, want each of 0..3 once", got)
	}
	if v := recordAt(records, 1, "val/success"); v["val/skipped"] != 1 || !(v["time/outage_wait_s"] > 0) {
		t.Errorf("validation after step 1: %v, want val/skipped 1 and the wait", v)
	}
	if v := recordAt(records, 3, "reward/mean"); v["rollout/skipped"] != 2 || !(v["time/outage_wait_s"] > 0) || v["rollout/episodes"] != 2 {
		t.Errorf("step 3: %v, want rollout/skipped 2, the wait and 2 episodes trained", v)
	}
	if v := recordAt(records, 2, "reward/mean"); v["rollout/skipped"] != 0 || v["time/outage_wait_s"] != 0 {
		t.Errorf("step 2 was not after an outage: %v", v)
	}
	if s.RLSteps != 3 || s.Outages != 2 || s.SkippedEpisodes != 3 || s.FailedEpisodes != 0 || !(s.OutageWaitSeconds > 0) {
		t.Errorf("summary %+v: want 3 steps, 2 outages, 3 skipped and no failed episodes", s)
	}
	if read, err := runlog.ReadSummary(filepath.Join(cfg.Trainer.OutputDir, SummaryFile)); err != nil || read.Outages != 2 || read.SkippedEpisodes != 3 {
		t.Errorf("summary.json: %+v, %v", read, err)
	}
	if !strings.Contains(out.String(), "skipped episodes 3   outages 2") {
		t.Errorf("the table does not report the outages:\n%s", out.String())
	}
	for _, k := range []string{"service", "elapsed", "limit", "next_try_in"} {
		if firstWait[k] == "" {
			t.Errorf("the wait's log line lacks %s: %v", k, firstWait)
		}
	}
	checkMetricsDocumented(t, cfg.Trainer.OutputDir)
}

// TestFitOutageTimeout kills the env service at the start of RL step 2
// and leaves it down past trainer.outage_timeout: Fit returns an
// *OutageError naming the service after a checkpoint that counts the
// discarded episodes, and once the service is back Resume completes the
// run without recording any step twice.
func TestFitOutageTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := outageConfig(t)
	cfg.Trainer.OutageTimeout = 1500 * time.Millisecond
	svc := newEchoService(t, &echoEnv{})
	h := newOutageHooks(cfg, svc.down)
	h.downAtStep = 2
	log, _ := newWaitWatcher(t, nil)
	_, err := mustNew(t, cfg, Options{Env: svc.client(t), Hooks: h.hooks(), Logger: log}).Fit(context.Background())
	var oe *OutageError
	if !errors.As(err, &oe) || !errors.Is(err, ErrOutage) || !errors.Is(err, envclient.ErrUnavailable) {
		t.Fatalf("err = %v, want an *OutageError unwrapping to ErrOutage and envclient.ErrUnavailable", err)
	}
	if oe.Service != ServiceEnv || oe.Phase != "rl" || oe.Step != 2 || oe.Limit != cfg.Trainer.OutageTimeout || !(oe.Waited > 0) ||
		!strings.Contains(err.Error(), "environment") {
		t.Errorf("outage %+v (%v)", oe, err)
	}
	root := filepath.Join(cfg.Trainer.OutputDir, CheckpointDir)
	latest, err := os.ReadFile(filepath.Join(root, latestFile))
	if err != nil {
		t.Fatalf("no checkpoint: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(root, strings.TrimSpace(string(latest)), checkpointState))
	if err != nil {
		t.Fatal(err)
	}
	var st runState
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	if st.Step != 1 || st.Totals.SkippedEpisodes != 2 || st.Totals.Outages != 0 || !(st.Totals.OutageWaitSeconds > 0) {
		t.Errorf("checkpoint state %+v: want step 1 with the 2 discarded episodes and the wait", st)
	}
	if got := stepsOf(readMetrics(t, cfg.Trainer.OutputDir), "reward/mean"); !equalInts(got, []int64{1}) {
		t.Errorf("RL steps recorded %v, want only step 1", got)
	}

	svc.up()
	s, err := mustNew(t, cfg, Options{Env: svc.client(t), Hooks: newOutageHooks(cfg, nil).hooks(), Logger: log, Resume: true}).Fit(context.Background())
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if s.RLSteps != 3 || s.SkippedEpisodes != 2 || s.Outages != 0 {
		t.Errorf("summary %+v: want 3 steps, 2 skipped episodes and no outage waited out", s)
	}
	if got := stepsOf(readMetrics(t, cfg.Trainer.OutputDir), "reward/mean"); !equalInts(got, []int64{1, 2, 3}) {
		t.Errorf("RL steps recorded %v, want each of 1..3 once", got)
	}
}

// TestFitOutageInterrupted cancels Fit while it waits for the env
// service: that is an interrupt (checkpoint, context error), not an
// outage error.
func TestFitOutageInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := outageConfig(t)
	cfg.Trainer.RLSteps = 1
	cfg.Trainer.ValBeforeTrain = false
	cfg.Rollout.N = 1
	svc := newEchoService(t, &echoEnv{})
	h := newOutageHooks(cfg, svc.down)
	h.downAtStep = 1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log, _ := newWaitWatcher(t, func(int, map[string]string) { cancel() })
	_, err := mustNew(t, cfg, Options{Env: svc.client(t), Hooks: h.hooks(), Logger: log}).Fit(ctx)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrOutage) || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err = %v, want an interrupt", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.Trainer.OutputDir, CheckpointDir, "step_000000", checkpointState)); err != nil {
		t.Errorf("no checkpoint after the interrupt: %v", err)
	}
}

// TestFitWaitsOutModelEndpointOutage makes the reward model (an LLM
// judge, say) unreachable during RL step 1: Fit probes by running the step
// again after a backoff (there is no health check for a model) and trains
// it once the judge answers.
func TestFitWaitsOutModelEndpointOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a tiny model")
	}
	cfg := echoConfig(t)
	cfg.Trainer.RLSteps = 1
	cfg.Trainer.ValBeforeTrain = false
	cfg.Data.TrainBatchSize = 1
	var mu sync.Mutex
	down := true
	judge := agentflow.RewardFunc(func(context.Context, agentflow.RewardInput) (float64, string, error) {
		mu.Lock()
		defer mu.Unlock()
		if down {
			return 0, "", fmt.Errorf("judge: %w: connection refused", llm.ErrUnavailable)
		}
		return 1, "", nil
	})
	var service string
	log, _ := newWaitWatcher(t, func(_ int, attrs map[string]string) {
		mu.Lock()
		defer mu.Unlock()
		service, down = attrs["service"], false
	})
	s, err := mustNew(t, cfg, Options{Env: echoManager(t, &echoEnv{}), Reward: judge, Logger: log}).Fit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if service != string(ServiceModel) {
		t.Errorf("waited for %q, want %q", service, ServiceModel)
	}
	if n := cfg.Rollout.N; s.RLSteps != 1 || s.Outages != 1 || s.SkippedEpisodes != n || s.FailedEpisodes != 0 {
		t.Errorf("summary %+v: want 1 step, 1 outage, %d skipped episodes", s, n)
	}
	if v := recordAt(readMetrics(t, cfg.Trainer.OutputDir), 1, "reward/mean"); v["reward/mean"] != 1 || v["rollout/failed"] != 0 {
		t.Errorf("step 1: %v, want the judge's scores and no failed episode", v)
	}
}
