package envservice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
)

// Defaults of ManagerConfig, the reference's values where it has them.
const (
	// DefaultMaxInstances caps live instances (the reference has no cap).
	DefaultMaxInstances = 10000
	// DefaultMaxProcessInstances caps the live instances of process-backed
	// environments (ProcessBacked: textgame, an MCP server started per
	// instance), all such environments together. Each of those instances
	// is an operating-system process, often with a pseudo-terminal: 300
	// textgame instances took 787 MB, and Linux allows 4096 ptys in all
	// (kernel.pty.max) by default, so DefaultMaxInstances would let one
	// client exhaust the machine. 64 covers a trainer's episodes in flight
	// at the default batch sizes (a batch of 8 tasks times 8 rollouts) at
	// a few hundred megabytes; raise it with ManagerConfig.
	// MaxProcessInstances (serve-env --max-process-instances) on a machine
	// sized for more.
	DefaultMaxProcessInstances = 64
	// DefaultIdleTimeout is the reference's idle limit, one hour.
	DefaultIdleTimeout = 3600 * time.Second
	// DefaultSweepInterval is the reference's reaper period, five minutes.
	DefaultSweepInterval = 300 * time.Second
	// DefaultSplit is the split TaskIDs lists when none is given.
	DefaultSplit = "train"
)

// ManagerConfig configures a Manager. The zero value is ready to use.
type ManagerConfig struct {
	// MaxInstances caps the live instances; a create beyond it fails with
	// envclient.ErrTooManyInstances. Zero means DefaultMaxInstances.
	MaxInstances int
	// MaxProcessInstances caps the live instances of the registered
	// environments that are ProcessBacked, counted together; a create
	// beyond it fails with envclient.ErrTooManyInstances. MaxInstances
	// still bounds all instances. Zero means DefaultMaxProcessInstances.
	MaxProcessInstances int
	// IdleTimeout is how long an instance may go without a call before Run
	// reaps it. Zero means DefaultIdleTimeout; negative disables reaping.
	IdleTimeout time.Duration
	// SweepInterval is how often Run looks for idle instances. Zero means
	// DefaultSweepInterval.
	SweepInterval time.Duration
	// Logger receives lifecycle logs (info) and per-instance logs (debug).
	// Nil discards them.
	Logger *slog.Logger
	// Now is the clock behind last-access times and generated ids. Nil
	// means time.Now; tests inject a fake clock and call ReapIdle.
	Now func() time.Time
}

// Stats counts a Manager's instances. Every created instance is either
// still live, released or reaped: Created == Live + Released + Reaped once no
// create is in flight.
type Stats struct {
	// Live is the number of instances held now, including ones whose create
	// is still running.
	Live int
	// Created counts successful creates.
	Created uint64
	// Released counts instances freed by Release or Shutdown.
	Released uint64
	// Reaped counts instances freed for being idle.
	Reaped uint64
}

// Manager runs instances of registered Go environments in process. It is an
// allow-list: only environments passed to Register can be created, and no
// code is ever loaded by name. Manager implements envclient.Env, so a trainer
// can use it directly instead of going through HTTP; Server exposes it over
// the env-service protocol.
//
// Calls on one instance are serialised; calls on different instances run in
// parallel, and the Manager's own lock is never held while environment code
// runs. Environment panics are recovered and returned as *PanicError.
//
// Deviation from the reference: creating an instance with an id already in
// use fails with ErrInstanceExists, where the reference silently replaced the
// mapping and leaked the old instance.
type Manager struct {
	maxInstances  int
	maxProcesses  int
	idleTimeout   time.Duration
	sweepInterval time.Duration
	log           *slog.Logger
	now           func() time.Time

	mu        sync.RWMutex
	envs      map[string]Environment
	procEnvs  map[string]bool // the ProcessBacked environments
	instances map[string]*entry
	processes int // live entries of procEnvs
	closed    bool
	// early maps the ids released before any instance had them to the
	// time of that release, earlyOrder in release order; see
	// releasedEarly.
	early      map[string]time.Time
	earlyOrder []string

	done      chan struct{} // closed by Shutdown; stops Run
	closeOnce sync.Once

	created, released, reaped atomic.Uint64
}

var _ envclient.Env = (*Manager)(nil)

// NewManager returns an empty Manager; register environments before use.
func NewManager(cfg ManagerConfig) *Manager {
	m := &Manager{
		maxInstances:  cfg.MaxInstances,
		maxProcesses:  cfg.MaxProcessInstances,
		idleTimeout:   cfg.IdleTimeout,
		sweepInterval: cfg.SweepInterval,
		log:           cfg.Logger,
		now:           cfg.Now,
		envs:          make(map[string]Environment),
		procEnvs:      make(map[string]bool),
		instances:     make(map[string]*entry),
		early:         make(map[string]time.Time),
		done:          make(chan struct{}),
	}
	if m.maxInstances <= 0 {
		m.maxInstances = DefaultMaxInstances
	}
	if m.maxProcesses <= 0 {
		m.maxProcesses = DefaultMaxProcessInstances
	}
	if m.idleTimeout == 0 {
		m.idleTimeout = DefaultIdleTimeout
	}
	if m.sweepInterval <= 0 {
		m.sweepInterval = DefaultSweepInterval
	}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.now == nil {
		m.now = time.Now
	}
	return m
}

// Register adds env under name, the env_type clients will ask for.
// Registering a name twice fails with ErrDuplicateEnvironment. An env
// that is ProcessBacked (and says true) counts against
// MaxProcessInstances.
func (m *Manager) Register(name string, env Environment) error {
	if name == "" {
		return errors.New("envservice: register: empty environment name")
	}
	if env == nil {
		return fmt.Errorf("envservice: register %q: nil environment", name)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.envs[name]; dup {
		return fmt.Errorf("register %q: %w", name, ErrDuplicateEnvironment)
	}
	m.envs[name] = env
	proc := false
	if pb, ok := env.(ProcessBacked); ok {
		proc = pb.ProcessBacked()
	}
	m.procEnvs[name] = proc
	m.log.Info("environment registered", "env_type", name, "process_backed", proc)
	return nil
}

// Environments returns the registered names, sorted.
func (m *Manager) Environments() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return slices.Sorted(maps.Keys(m.envs))
}

// Environment returns the environment registered as name, so that callers
// holding the Manager can look for its optional capabilities (Expert,
// CorpusProvider, ...).
func (m *Manager) Environment(name string) (Environment, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	env, ok := m.envs[name]
	return env, ok
}

func (m *Manager) environment(envType string) (Environment, error) {
	if envType == "" {
		return nil, errMissing("env_type")
	}
	m.mu.RLock()
	env, ok := m.envs[envType]
	m.mu.RUnlock()
	if !ok {
		detail := fmt.Sprintf("unknown env_type %q (registered: %s)", truncate(envType, 64), strings.Join(m.Environments(), ", "))
		return nil, newRequestError(detail, ErrUnknownEnvironment, envclient.ErrBadRequest)
	}
	return env, nil
}

// Profile returns the profile of a registered environment, or ErrNoProfile
// when it does not implement ProfileProvider.
func (m *Manager) Profile(envType string) (agentevolver.EnvProfile, error) {
	env, err := m.environment(envType)
	if err != nil {
		return agentevolver.EnvProfile{}, err
	}
	p, ok := env.(ProfileProvider)
	if !ok {
		return agentevolver.EnvProfile{}, fmt.Errorf("%s: %w", envType, ErrNoProfile)
	}
	return guard(m, "profile", "", func() (agentevolver.EnvProfile, error) { return p.Profile(), nil })
}

// TaskIDs lists the task ids of envType for split (DefaultSplit when empty).
func (m *Manager) TaskIDs(ctx context.Context, envType, split string) ([]string, error) {
	return m.taskIDs(ctx, envType, split, nil)
}

// taskIDs is TaskIDs with the request's params, which the HTTP route
// forwards to the environment.
func (m *Manager) taskIDs(ctx context.Context, envType, split string, params map[string]any) ([]string, error) {
	env, err := m.environment(envType)
	if err != nil {
		return nil, err
	}
	if split == "" {
		split = DefaultSplit
	}
	ids, err := guard(m, "task_ids", "", func() ([]string, error) { return env.TaskIDs(ctx, split, params) })
	if err != nil {
		return nil, fmt.Errorf("envservice: list tasks of %s: %w", envType, err)
	}
	if ids == nil {
		ids = []string{}
	}
	return ids, nil
}

// Create starts an instance of envType on taskID and returns its initial
// state. An empty instanceID gets a generated, unguessable one in the
// reference's format with 128 random bits (exp_<unix-seconds>_<32 hex>, where
// the reference has 8 hex digits); either way the id is in
// InitState.Info["instance_id"]. Creating with an id in use fails with
// ErrInstanceExists, creating beyond MaxInstances (or, for a
// ProcessBacked environment, MaxProcessInstances) with
// envclient.ErrTooManyInstances.
func (m *Manager) Create(ctx context.Context, envType, taskID, instanceID string, params map[string]any) (envclient.InitState, error) {
	env, err := m.environment(envType)
	if err != nil {
		return envclient.InitState{}, err
	}
	if taskID == "" {
		return envclient.InitState{}, errMissing("task_id")
	}
	if len(instanceID) > maxInstanceIDLen {
		return envclient.InitState{}, newRequestError(
			"instance_id is longer than "+strconv.Itoa(maxInstanceIDLen)+" bytes", envclient.ErrBadRequest)
	}
	e, err := m.reserve(envType, taskID, instanceID)
	if err != nil {
		return envclient.InitState{}, err
	}
	// The reservation holds e's lock: calls on the new id wait for the
	// create to finish, and the reaper skips it.
	id := e.id
	inst, err := guard(m, "create", id, func() (Instance, error) { return env.New(ctx, taskID, id, params) })
	if err == nil && inst == nil {
		err = errors.New("environment returned a nil instance")
	}
	var init envclient.InitState
	if err == nil {
		init, err = guard(m, "init_state", id, func() (envclient.InitState, error) { return inst.InitState(ctx, params) })
		if err != nil {
			if cerr := m.closeInstance(id, inst); cerr != nil {
				m.log.Warn("closing instance after failed init", "instance_id", id, "err", cerr)
			}
		}
	}
	if err != nil {
		e.closed = true
		m.remove(e)
		e.unlock()
		// The task id is the client's (up to a body's size): clipped, so
		// that the cause survives the server's cut of error texts.
		return envclient.InitState{}, fmt.Errorf("envservice: create %s instance %s on task %s: %w", envType, id, clipID(taskID), err)
	}
	e.inst = inst
	e.touch(m.now())
	e.unlock()
	m.created.Add(1)

	info := make(map[string]any, len(init.Info)+2)
	maps.Copy(info, init.Info)
	info["instance_id"] = id
	if _, ok := info["task_id"]; !ok {
		info["task_id"] = taskID
	}
	init.Info = info
	if init.State == nil {
		init.State = []agentevolver.Message{}
	}
	m.log.Debug("instance created", "env_type", envType, "task_id", taskID, "instance_id", id)
	return init, nil
}

// reserve records a new, locked entry so that the id is taken and counts
// against MaxInstances while the environment builds the instance.
func (m *Manager) reserve(envType, taskID, instanceID string) (*entry, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	if instanceID == "" {
		for {
			instanceID = newInstanceID(now)
			if _, taken := m.instances[instanceID]; !taken {
				break
			}
		}
	} else if _, taken := m.instances[instanceID]; taken {
		return nil, newRequestError(fmt.Sprintf("instance_id %q is already in use", instanceID),
			ErrInstanceExists, envclient.ErrBadRequest)
	} else if at, ok := m.early[instanceID]; ok {
		delete(m.early, instanceID)
		if now.Sub(at) <= releaseTombstoneTTL {
			return nil, newRequestError(fmt.Sprintf("instance_id %q was released before its create arrived", instanceID),
				ErrReleasedEarly, envclient.ErrBadRequest)
		}
	}
	if len(m.instances) >= m.maxInstances {
		return nil, newRequestError(fmt.Sprintf("too many instances (limit %d)", m.maxInstances),
			envclient.ErrTooManyInstances)
	}
	proc := m.procEnvs[envType]
	if proc && m.processes >= m.maxProcesses {
		return nil, newRequestError(fmt.Sprintf("too many instances of process-backed environments (limit %d)", m.maxProcesses),
			envclient.ErrTooManyInstances)
	}
	e := newEntry(instanceID, envType, taskID, now)
	e.process = proc
	e.sem <- struct{}{}
	m.instances[instanceID] = e
	if proc {
		m.processes++
	}
	return e, nil
}

// remove deletes e from the map unless the id has been reused meanwhile.
func (m *Manager) remove(e *entry) {
	m.mu.Lock()
	if m.instances[e.id] == e {
		delete(m.instances, e.id)
		if e.process {
			m.processes--
		}
	}
	m.mu.Unlock()
}

// Release of an id no instance has yet is remembered this long, and for at
// most maxReleaseTombstones ids, so that a create still on its way (a client
// that gave up waiting for it and released the id, as agentflow does) fails
// instead of leaving an instance nobody will release.
const (
	releaseTombstoneTTL  = time.Minute
	maxReleaseTombstones = 4096
)

// releasedEarly remembers that id was released before it was created.
func (m *Manager) releasedEarly(id string) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.early[id]; !ok {
		m.earlyOrder = append(m.earlyOrder, id)
	}
	m.early[id] = now
	// Forget the oldest ids beyond the bound, and expired ones.
	for len(m.earlyOrder) > 0 {
		oldest := m.earlyOrder[0]
		at, ok := m.early[oldest]
		if ok && len(m.earlyOrder) <= maxReleaseTombstones && now.Sub(at) <= releaseTombstoneTTL {
			break
		}
		delete(m.early, oldest) // expired or over the bound (a no-op once a create took it)
		m.earlyOrder = m.earlyOrder[1:]
	}
}

func (m *Manager) lookup(instanceID string) (*entry, error) {
	if instanceID == "" {
		return nil, errMissing("instance_id")
	}
	m.mu.RLock()
	e, ok := m.instances[instanceID]
	m.mu.RUnlock()
	if !ok {
		return nil, errNotFound(instanceID)
	}
	return e, nil
}

// use runs f on a live instance while holding its lock.
func use[T any](ctx context.Context, m *Manager, op, instanceID string, f func(Instance) (T, error)) (T, error) {
	var zero T
	e, err := m.lookup(instanceID)
	if err != nil {
		return zero, err
	}
	if err := e.lock(ctx); err != nil {
		return zero, fmt.Errorf("envservice: %s on instance %s: %w", op, instanceID, err)
	}
	defer e.unlock()
	if e.closed {
		return zero, errNotFound(instanceID)
	}
	e.touch(m.now())
	defer func() { e.touch(m.now()) }()
	res, err := guard(m, op, instanceID, func() (T, error) { return f(e.inst) })
	if err != nil {
		return zero, fmt.Errorf("envservice: %s on instance %s: %w", op, instanceID, err)
	}
	return res, nil
}

// Step sends the agent's action to an instance. A nil Info in the
// environment's result becomes an empty map, as in the reference payload.
func (m *Manager) Step(ctx context.Context, instanceID string, action agentevolver.Message, params map[string]any) (envclient.StepResult, error) {
	res, err := use(ctx, m, "step", instanceID, func(inst Instance) (envclient.StepResult, error) {
		return inst.Step(ctx, action, params)
	})
	if err != nil {
		return envclient.StepResult{}, err
	}
	if res.Info == nil {
		res.Info = map[string]any{}
	}
	if res.State == nil {
		res.State = []agentevolver.Message{}
	}
	return res, nil
}

// Evaluate scores an instance. A score that is NaN or infinite is an error:
// it could not be sent as JSON, and no trainer can learn from it.
func (m *Manager) Evaluate(ctx context.Context, instanceID string, params map[string]any) (float64, error) {
	return use(ctx, m, "evaluate", instanceID, func(inst Instance) (float64, error) {
		score, err := inst.Evaluate(ctx, params)
		if err == nil && (math.IsNaN(score) || math.IsInf(score, 0)) {
			err = fmt.Errorf("%w: environment returned %v", envclient.ErrNonFiniteScore, score)
		}
		return score, err
	})
}

// Info returns an instance's information as JSON.
func (m *Manager) Info(ctx context.Context, instanceID string, params map[string]any) (json.RawMessage, error) {
	return use(ctx, m, "get_info", instanceID, func(inst Instance) (json.RawMessage, error) {
		v, err := inst.Info(ctx, params)
		if err != nil {
			return nil, err
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encoding info: %w", err)
		}
		return raw, nil
	})
}

// Release closes an instance, waiting for a call in progress on it to
// finish. Releasing an unknown instance reports false and no error. An error
// from the instance's Close is returned with released == true: the instance
// is gone from the Manager either way.
func (m *Manager) Release(ctx context.Context, instanceID string) (bool, error) {
	e, err := m.lookup(instanceID)
	if errors.Is(err, envclient.ErrInstanceNotFound) {
		m.releasedEarly(instanceID)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := e.lock(ctx); err != nil {
		return false, fmt.Errorf("envservice: release %s: %w", instanceID, err)
	}
	defer e.unlock()
	if e.closed {
		return false, nil
	}
	cerr := m.free(e)
	m.released.Add(1)
	m.log.Debug("instance released", "instance_id", instanceID)
	if cerr != nil {
		return true, fmt.Errorf("envservice: release %s: %w", instanceID, cerr)
	}
	return true, nil
}

// free removes a locked, live entry and closes its instance.
func (m *Manager) free(e *entry) error {
	e.closed = true
	m.remove(e)
	err := m.closeInstance(e.id, e.inst)
	e.inst = nil
	return err
}

// Stats returns the instance counts.
func (m *Manager) Stats() Stats {
	m.mu.RLock()
	live := len(m.instances)
	m.mu.RUnlock()
	return Stats{
		Live:     live,
		Created:  m.created.Load(),
		Released: m.released.Load(),
		Reaped:   m.reaped.Load(),
	}
}

// Run reaps idle instances every SweepInterval until ctx ends (returning
// ctx.Err()) or the Manager is shut down (returning nil). It starts no other
// goroutine.
func (m *Manager) Run(ctx context.Context) error {
	if m.idleTimeout < 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-m.done:
			return nil
		}
	}
	t := time.NewTicker(m.sweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-m.done:
			return nil
		case <-t.C:
			m.ReapIdle()
		}
	}
}

// ReapIdle releases every instance that has had no call for longer than
// IdleTimeout and returns how many it released. Run calls it every
// SweepInterval. An instance with a call in progress is never idle.
func (m *Manager) ReapIdle() int {
	if m.idleTimeout < 0 {
		return 0
	}
	cutoff := m.now().Add(-m.idleTimeout).UnixNano()
	m.mu.RLock()
	var idle []*entry
	for _, e := range m.instances {
		if e.lastAccess.Load() < cutoff {
			idle = append(idle, e)
		}
	}
	m.mu.RUnlock()

	n := 0
	for _, e := range idle {
		if !e.tryLock() {
			continue // busy, so not idle
		}
		if !e.closed && e.lastAccess.Load() < cutoff {
			if err := m.free(e); err != nil {
				m.log.Warn("closing reaped instance", "instance_id", e.id, "err", err)
			}
			m.reaped.Add(1)
			n++
			m.log.Info("idle instance reaped", "instance_id", e.id, "env_type", e.envType, "task_id", e.taskID)
		}
		e.unlock()
	}
	return n
}

// Shutdown stops Run, refuses new creates with ErrClosed and releases every
// instance, waiting for calls in progress until ctx ends. It returns the
// errors of instances it could not release or whose Close failed. Calling
// it again releases what is left.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.closeOnce.Do(func() {
		m.mu.Lock()
		m.closed = true
		m.mu.Unlock()
		close(m.done)
	})
	m.mu.RLock()
	all := slices.Collect(maps.Values(m.instances))
	m.mu.RUnlock()

	var errs []error
	n, busy := 0, 0
	release := func(e *entry) {
		if !e.closed {
			if err := m.free(e); err != nil {
				errs = append(errs, fmt.Errorf("envservice: shutdown: %w", err))
			}
			m.released.Add(1)
			n++
		}
		e.unlock()
	}
	// Free idle instances first, so that one busy instance running out the
	// deadline does not keep the others alive.
	var waiting []*entry
	for _, e := range all {
		if e.tryLock() {
			release(e)
		} else {
			waiting = append(waiting, e)
		}
	}
	for _, e := range waiting {
		if err := e.lock(ctx); err != nil {
			busy++
			errs = append(errs, fmt.Errorf("envservice: shutdown: instance %s still busy: %w", e.id, err))
			continue
		}
		release(e)
	}
	m.log.Info("environment manager shut down", "released", n, "busy", busy)
	return errors.Join(errs...)
}

// Close is Shutdown without a deadline.
func (m *Manager) Close() error {
	return m.Shutdown(context.Background())
}

// clipID shortens an id for an error message to its first 64 bytes and its
// length.
func clipID(id string) string {
	const keep = 64
	if len(id) <= keep {
		return id
	}
	return fmt.Sprintf("%q… (%d bytes)", id[:keep], len(id))
}
