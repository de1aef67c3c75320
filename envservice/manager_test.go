package envservice

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
)

// fakeClock is a settable clock for reaping tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTestManager(t *testing.T, cfg ManagerConfig) (*Manager, *testEnv) {
	t.Helper()
	m := NewManager(cfg)
	env := newTestEnv()
	if err := m.Register("test", env); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		env.unblock()
		_ = m.Close()
	})
	return m, env
}

func mustCreate(t *testing.T, m *Manager, taskID, id string) envclient.InitState {
	t.Helper()
	init, err := m.Create(context.Background(), "test", taskID, id, nil)
	if err != nil {
		t.Fatalf("create %s: %v", id, err)
	}
	return init
}

func act(s string) agentevolver.Message {
	return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: s}
}

func TestRegister(t *testing.T) {
	m := NewManager(ManagerConfig{})
	env := newTestEnv()
	tests := []struct {
		name    string
		envName string
		env     Environment
		wantErr error
		anyErr  bool
	}{
		{name: "first", envName: "b", env: env},
		{name: "second name", envName: "a", env: env},
		{name: "duplicate", envName: "b", env: env, wantErr: ErrDuplicateEnvironment},
		{name: "empty name", envName: "", env: env, anyErr: true},
		{name: "nil env", envName: "c", env: nil, anyErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := m.Register(tt.envName, tt.env)
			switch {
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			case tt.anyErr && err == nil:
				t.Fatal("want an error")
			case tt.wantErr == nil && !tt.anyErr && err != nil:
				t.Fatal(err)
			}
		})
	}
	if got := strings.Join(m.Environments(), ","); got != "a,b" {
		t.Fatalf("Environments() = %s, want a,b", got)
	}
}

func TestManagerEpisode(t *testing.T) {
	m, env := newTestManager(t, ManagerConfig{})
	ctx := context.Background()

	ids, err := m.TaskIDs(ctx, "test", "")
	if err != nil || strings.Join(ids, ",") != "t1,t2,t3" {
		t.Fatalf("TaskIDs default split = %v, %v", ids, err)
	}
	ids, err = m.TaskIDs(ctx, "test", "val")
	if err != nil || strings.Join(ids, ",") != "v1" {
		t.Fatalf("TaskIDs val = %v, %v", ids, err)
	}

	init := mustCreate(t, m, "t2", "")
	id := init.InstanceID()
	if !regexp.MustCompile(`^exp_\d+_[0-9a-f]{32}$`).MatchString(id) {
		t.Fatalf("generated id %q does not look like exp_<secs>_<32 hex>", id)
	}
	if init.Info["task_id"] != "t2" || len(init.State) != 2 || init.State[1].Content != "Solve t2" {
		t.Fatalf("init = %+v", init)
	}

	res, err := m.Step(ctx, id, act("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.State) != 1 || res.State[0].Content != "echo 1: HI" || res.IsTerminated || res.Info == nil {
		t.Fatalf("step = %+v", res)
	}
	if score, err := m.Evaluate(ctx, id, map[string]any{"sparse": true}); err != nil || score != 0 {
		t.Fatalf("sparse evaluate before done = %v, %v", score, err)
	}
	res, err = m.Step(ctx, id, act("done"), nil)
	if err != nil || !res.IsTerminated || res.Reward != 1 {
		t.Fatalf("final step = %+v, %v", res, err)
	}
	if score, err := m.Evaluate(ctx, id, map[string]any{"sparse": true}); err != nil || score != 1 {
		t.Fatalf("sparse evaluate = %v, %v", score, err)
	}
	if score, err := m.Evaluate(ctx, id, nil); err != nil || score != 0.2 {
		t.Fatalf("dense evaluate = %v, %v", score, err)
	}
	info, err := m.Info(ctx, id, nil)
	if err != nil || string(info) != `{"steps":2,"tools":["echo"]}` {
		t.Fatalf("info = %s, %v", info, err)
	}

	released, err := m.Release(ctx, id)
	if !released || err != nil {
		t.Fatalf("release = %v, %v", released, err)
	}
	released, err = m.Release(ctx, id)
	if released || err != nil {
		t.Fatalf("second release = %v, %v; want false, nil", released, err)
	}
	if _, err := m.Step(ctx, id, act("hi"), nil); !errors.Is(err, envclient.ErrInstanceNotFound) {
		t.Fatalf("step after release: %v", err)
	}
	if got := env.closed.Load(); got != 1 {
		t.Fatalf("closed %d instances, want 1", got)
	}
	if st := m.Stats(); st != (Stats{Created: 1, Released: 1}) {
		t.Fatalf("stats = %+v", st)
	}
}

func TestManagerErrors(t *testing.T) {
	m, env := newTestManager(t, ManagerConfig{})
	ctx := context.Background()
	mustCreate(t, m, "t1", "i1")

	var panicErr *PanicError
	isPanic := func(err error) bool { return errors.As(err, &panicErr) }
	tests := []struct {
		name   string
		call   func() error
		is     []error
		isNot  []error
		check  func(error) bool
		detail string
	}{
		{name: "create unknown env", call: func() error { _, err := m.Create(ctx, "nope", "t1", "", nil); return err },
			is: []error{ErrUnknownEnvironment, envclient.ErrBadRequest}, detail: `unknown env_type "nope" (registered: test)`},
		{name: "create empty env", call: func() error { _, err := m.Create(ctx, "", "t1", "", nil); return err },
			is: []error{envclient.ErrBadRequest}, detail: "env_type is required"},
		{name: "create empty task", call: func() error { _, err := m.Create(ctx, "test", "", "", nil); return err },
			is: []error{envclient.ErrBadRequest}, detail: "task_id is required"},
		{name: "create long id", call: func() error { _, err := m.Create(ctx, "test", "t1", strings.Repeat("x", 300), nil); return err },
			is: []error{envclient.ErrBadRequest}},
		{name: "create id in use", call: func() error { _, err := m.Create(ctx, "test", "t2", "i1", nil); return err },
			is: []error{ErrInstanceExists, envclient.ErrBadRequest}, detail: `instance_id "i1" is already in use`},
		{name: "create env error", call: func() error { _, err := m.Create(ctx, "test", "fail-new", "", nil); return err },
			isNot: []error{envclient.ErrBadRequest}},
		{name: "create panics", call: func() error { _, err := m.Create(ctx, "test", "panic-new", "", nil); return err },
			check: isPanic},
		{name: "init panics", call: func() error { _, err := m.Create(ctx, "test", "panic-init", "", nil); return err },
			check: isPanic},
		{name: "step empty id", call: func() error { _, err := m.Step(ctx, "", act("x"), nil); return err },
			is: []error{envclient.ErrBadRequest}, detail: "instance_id is required"},
		{name: "step unknown", call: func() error { _, err := m.Step(ctx, "nope", act("x"), nil); return err },
			is: []error{envclient.ErrInstanceNotFound}, detail: "Instance nope not found!"},
		{name: "step bad action", call: func() error { _, err := m.Step(ctx, "i1", act("bad"), nil); return err },
			is: []error{envclient.ErrBadRequest}},
		{name: "step env error", call: func() error { _, err := m.Step(ctx, "i1", act("fail"), nil); return err },
			isNot: []error{envclient.ErrBadRequest, envclient.ErrInstanceNotFound}},
		{name: "step panics", call: func() error { _, err := m.Step(ctx, "i1", act("panic"), nil); return err },
			check: isPanic, isNot: []error{envclient.ErrBadRequest}},
		{name: "evaluate unknown", call: func() error { _, err := m.Evaluate(ctx, "nope", nil); return err },
			is: []error{envclient.ErrInstanceNotFound}},
		{name: "info unknown", call: func() error { _, err := m.Info(ctx, "nope", nil); return err },
			is: []error{envclient.ErrInstanceNotFound}},
		{name: "release empty id", call: func() error { _, err := m.Release(ctx, ""); return err },
			is: []error{envclient.ErrBadRequest}},
		{name: "task ids unknown env", call: func() error { _, err := m.TaskIDs(ctx, "nope", ""); return err },
			is: []error{ErrUnknownEnvironment}},
		{name: "task ids unknown split", call: func() error { _, err := m.TaskIDs(ctx, "test", "nope"); return err },
			is: []error{envclient.ErrBadRequest}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil {
				t.Fatal("want an error")
			}
			for _, want := range tt.is {
				if !errors.Is(err, want) {
					t.Errorf("%v does not match %v", err, want)
				}
			}
			for _, not := range tt.isNot {
				if errors.Is(err, not) {
					t.Errorf("%v matches %v", err, not)
				}
			}
			if tt.check != nil && !tt.check(err) {
				t.Errorf("%v (%T) fails the check", err, err)
			}
			if tt.detail != "" {
				var re *requestError
				if !errors.As(err, &re) || re.detail != tt.detail {
					t.Errorf("detail of %v, want %q", err, tt.detail)
				}
			}
		})
	}
	// The failed creates left nothing behind; the instance whose init
	// panicked was closed. The original i1 still works.
	if st := m.Stats(); st.Live != 1 || st.Created != 1 {
		t.Fatalf("stats = %+v, want only i1", st)
	}
	if got := env.closed.Load(); got != 1 {
		t.Fatalf("closed %d instances, want 1 (the one whose init panicked)", got)
	}
	if _, err := m.Step(ctx, "i1", act("still here"), nil); err != nil {
		t.Fatal(err)
	}
}

func TestEvaluateNonFinite(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{})
	mustCreate(t, m, "nan", "n")
	if score, err := m.Evaluate(context.Background(), "n", nil); err == nil {
		t.Fatalf("evaluate = %v, want an error for NaN", score)
	}
}

func TestReleaseCloseError(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{})
	mustCreate(t, m, "close-fails", "c")
	released, err := m.Release(context.Background(), "c")
	if !released || err == nil {
		t.Fatalf("release = %v, %v; want true and the close error", released, err)
	}
	if st := m.Stats(); st.Live != 0 || st.Released != 1 {
		t.Fatalf("stats = %+v", st)
	}
}

func TestMaxInstances(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{MaxInstances: 2})
	ctx := context.Background()
	mustCreate(t, m, "t1", "a")
	mustCreate(t, m, "t1", "b")
	if _, err := m.Create(ctx, "test", "t1", "c", nil); !errors.Is(err, envclient.ErrTooManyInstances) {
		t.Fatalf("third create: %v, want ErrTooManyInstances", err)
	}
	if _, err := m.Release(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, m, "t1", "c")
}

func TestCreateSameIDConcurrently(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{})
	const n = 16
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, err := m.Create(context.Background(), "test", "t1", "same", nil)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	ok := 0
	for err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, ErrInstanceExists):
			t.Errorf("unexpected error %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d creates succeeded, want 1", ok)
	}
}

func TestReapIdle(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	m, env := newTestManager(t, ManagerConfig{Now: clock.Now})
	ctx := context.Background()
	mustCreate(t, m, "t1", "a")
	mustCreate(t, m, "t1", "b")

	clock.Advance(30 * time.Minute)
	if _, err := m.Step(ctx, "a", act("x"), nil); err != nil {
		t.Fatal(err)
	}
	clock.Advance(31 * time.Minute) // b idle 61 min, a idle 31 min
	if n := m.ReapIdle(); n != 1 {
		t.Fatalf("reaped %d, want 1", n)
	}
	if _, err := m.Step(ctx, "b", act("x"), nil); !errors.Is(err, envclient.ErrInstanceNotFound) {
		t.Fatalf("step on reaped instance: %v", err)
	}
	if _, err := m.Step(ctx, "a", act("x"), nil); err != nil {
		t.Fatalf("a was reaped: %v", err)
	}

	// An instance with a call in progress is not idle, however old its
	// last access.
	done := make(chan error, 1)
	go func() { _, err := m.Step(ctx, "a", act("block"), nil); done <- err }()
	<-env.entered
	clock.Advance(2 * time.Hour)
	if n := m.ReapIdle(); n != 0 {
		t.Fatalf("reaped %d busy instances", n)
	}
	env.unblock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	clock.Advance(59 * time.Minute) // the step's end refreshed a
	if n := m.ReapIdle(); n != 0 {
		t.Fatalf("reaped %d, want 0", n)
	}
	clock.Advance(2 * time.Minute)
	if n := m.ReapIdle(); n != 1 {
		t.Fatalf("reaped %d, want 1", n)
	}
	if st := m.Stats(); st != (Stats{Created: 2, Reaped: 2}) {
		t.Fatalf("stats = %+v", st)
	}
	if got := env.closed.Load(); got != 2 {
		t.Fatalf("closed %d, want 2", got)
	}
}

func TestRunReapsAndStops(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{IdleTimeout: 5 * time.Millisecond, SweepInterval: 2 * time.Millisecond})
	mustCreate(t, m, "t1", "a")
	runErr := make(chan error, 1)
	go func() { runErr <- m.Run(context.Background()) }()
	deadline := time.Now().Add(10 * time.Second)
	for m.Stats().Reaped == 0 {
		if time.Now().After(deadline) {
			t.Fatal("Run never reaped the idle instance")
		}
		time.Sleep(time.Millisecond)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-runErr; err != nil {
		t.Fatalf("Run after Close = %v, want nil", err)
	}

	m2, _ := newTestManager(t, ManagerConfig{IdleTimeout: -1})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { runErr <- m2.Run(ctx) }()
	cancel()
	if err := <-runErr; !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel = %v", err)
	}
	if n := m2.ReapIdle(); n != 0 {
		t.Fatalf("reaping disabled but reaped %d", n)
	}
}

func TestPerInstanceSerialisation(t *testing.T) {
	m, env := newTestManager(t, ManagerConfig{})
	mustCreate(t, m, "t1", "a")
	const workers, steps = 8, 25
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range steps {
				if _, err := m.Step(context.Background(), "a", act("x"), nil); err != nil {
					t.Error(err)
					return
				}
				if _, err := m.Info(context.Background(), "a", nil); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := env.overlaps.Load(); n != 0 {
		t.Fatalf("%d overlapping calls on one instance", n)
	}
	if score, _ := m.Evaluate(context.Background(), "a", nil); score != float64(workers*steps)/10 {
		t.Fatalf("steps counted %v, want %d (lost updates)", score*10, workers*steps)
	}
}

func TestInstancesRunInParallel(t *testing.T) {
	m, env := newTestManager(t, ManagerConfig{})
	ctx := context.Background()
	mustCreate(t, m, "t1", "a")
	mustCreate(t, m, "t1", "b")

	// Both "meet" steps return only if they are inside the environment at
	// the same time.
	var wg sync.WaitGroup
	for _, id := range []string{"a", "b"} {
		wg.Go(func() {
			if _, err := m.Step(ctx, id, act("meet"), nil); err != nil {
				t.Errorf("%s: %v", id, err)
			}
		})
	}
	wg.Wait()

	// While a's step runs environment code, the manager still serves
	// everything else: its own lock is not held.
	done := make(chan error, 1)
	go func() { _, err := m.Step(ctx, "a", act("block"), nil); done <- err }()
	<-env.entered
	mustCreate(t, m, "t1", "c")
	if _, err := m.Step(ctx, "b", act("x"), nil); err != nil {
		t.Fatal(err)
	}
	if ok, err := m.Release(ctx, "c"); !ok || err != nil {
		t.Fatalf("release c = %v, %v", ok, err)
	}
	if _, err := m.TaskIDs(ctx, "test", ""); err != nil {
		t.Fatal(err)
	}
	_ = m.Stats()

	// A call waiting for a's lock gives up when its context ends.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if _, err := m.Evaluate(wctx, "a", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting evaluate = %v, want DeadlineExceeded", err)
	}
	env.unblock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestShutdown(t *testing.T) {
	m, env := newTestManager(t, ManagerConfig{})
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		mustCreate(t, m, "t1", id)
	}
	done := make(chan error, 1)
	go func() { _, err := m.Step(ctx, "a", act("block"), nil); done <- err }()
	<-env.entered

	sctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := m.Shutdown(sctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("shutdown with a busy instance = %v, want DeadlineExceeded", err)
	}
	if _, err := m.Create(ctx, "test", "t1", "d", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("create after shutdown = %v, want ErrClosed", err)
	}
	if st := m.Stats(); st.Live != 1 || st.Released != 2 {
		t.Fatalf("stats = %+v, want the busy instance left", st)
	}
	env.unblock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if st := m.Stats(); st != (Stats{Created: 3, Released: 3}) {
		t.Fatalf("stats = %+v", st)
	}
	if got := env.closed.Load(); got != 3 {
		t.Fatalf("closed %d, want 3", got)
	}
}

func TestProfile(t *testing.T) {
	m := NewManager(ManagerConfig{})
	env := newTestEnv()
	if err := m.Register("plain", env); err != nil {
		t.Fatal(err)
	}
	if err := m.Register("profiled", profiledEnv{env}); err != nil {
		t.Fatal(err)
	}
	p, err := m.Profile("profiled")
	if err != nil || p.Name != "test" {
		t.Fatalf("profile = %+v, %v", p, err)
	}
	if _, err := m.Profile("plain"); !errors.Is(err, ErrNoProfile) {
		t.Fatalf("plain profile: %v", err)
	}
	if _, err := m.Profile("nope"); !errors.Is(err, ErrUnknownEnvironment) {
		t.Fatalf("unknown profile: %v", err)
	}
}

func TestInfoEncodesJSON(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{})
	mustCreate(t, m, "t1", "a")
	raw, err := m.Info(context.Background(), "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(raw) {
		t.Fatalf("info %q is not JSON", raw)
	}
}

// TestCreateAfterEarlyRelease covers a create that arrives after its client
// gave up on it and released the id: it fails instead of leaving an
// instance nobody releases, once; an old release is forgotten.
func TestCreateAfterEarlyRelease(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	m, _ := newTestManager(t, ManagerConfig{Now: clock.Now})
	ctx := context.Background()
	if ok, err := m.Release(ctx, "late"); ok || err != nil {
		t.Fatalf("release of an unknown id = %v, %v", ok, err)
	}
	_, err := m.Create(ctx, "test", "t1", "late", nil)
	if !errors.Is(err, ErrReleasedEarly) || !errors.Is(err, envclient.ErrBadRequest) {
		t.Fatalf("create after the release: err = %v, want ErrReleasedEarly", err)
	}
	if st := m.Stats(); st.Live != 0 {
		t.Errorf("stats %+v, want none live", st)
	}
	mustCreate(t, m, "t1", "late") // the refusal used the tombstone up

	if _, err := m.Release(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(releaseTombstoneTTL + time.Second)
	mustCreate(t, m, "t1", "old")
}

// TestEarlyReleasesAreBounded checks that the ids remembered by early
// releases stay within maxReleaseTombstones.
func TestEarlyReleasesAreBounded(t *testing.T) {
	m, _ := newTestManager(t, ManagerConfig{})
	ctx := context.Background()
	for i := range maxReleaseTombstones + 10 {
		if _, err := m.Release(ctx, "gone-"+strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	m.mu.RLock()
	n, order := len(m.early), len(m.earlyOrder)
	m.mu.RUnlock()
	if n != maxReleaseTombstones || order != maxReleaseTombstones {
		t.Errorf("%d ids remembered (%d in order), want %d", n, order, maxReleaseTombstones)
	}
	mustCreate(t, m, "t1", "gone-0") // the oldest was forgotten
}
