package launcher

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Launcher starts companion services detached, each the leader of its own
// process group with its log and record in Dir, reuses a running one,
// lists them and stops them. Its methods may be called from several
// goroutines, and several launchers (processes) may share one Dir: a
// lock per service makes them start it once.
type Launcher struct {
	// Dir holds <name>.<hash>.<host>.log, .json (the record) and .lock
	// files; it is created when needed. Empty means DefaultLogDir.
	Dir string
	// Host names this machine in file names; empty means os.Hostname.
	// Only this host's records are read.
	Host string
	// StopGrace is how long Stop waits after SIGTERM before SIGKILL; 0
	// means DefaultStopGrace.
	StopGrace time.Duration
	// Poll is how often readiness and liveness are checked; 0 means 200
	// ms.
	Poll time.Duration
	// Client probes ready URLs; nil means a client without proxy.
	Client *http.Client
	// Logger receives progress (debug, info) and stale records (warn);
	// nil discards.
	Logger *slog.Logger
}

// New returns a launcher configured by a launch section.
func New(cfg Config, logger *slog.Logger) *Launcher {
	return &Launcher{Dir: cfg.logDir(), StopGrace: cfg.StopGrace, Logger: logger}
}

// Instance is a service started or reused by Start.
type Instance struct {
	Record
	// Reused is true when a running instance was found and kept.
	Reused bool

	exited  chan struct{} // closed when the child started here exits; nil when reused
	waitErr error         // its exit status, once exited is closed
}

func (l *Launcher) dir() string {
	if l.Dir == "" {
		return DefaultLogDir
	}
	return l.Dir
}

func (l *Launcher) host() string { return hostTag(l.Host) }

func (l *Launcher) poll() time.Duration {
	if l.Poll <= 0 {
		return 200 * time.Millisecond
	}
	return l.Poll
}

func (l *Launcher) grace() time.Duration {
	if l.StopGrace <= 0 {
		return DefaultStopGrace
	}
	return l.StopGrace
}

func (l *Launcher) log() *slog.Logger {
	if l.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l.Logger
}

func (l *Launcher) client() *http.Client {
	if l.Client != nil {
		return l.Client
	}
	return &http.Client{Transport: &http.Transport{Proxy: nil}}
}

// Start starts each service that is not running yet, reuses each that is
// (its record names a live process group carrying its token), and waits
// until all are ready, at the same time. A dead instance's record is
// replaced, its log kept as .log.prev. It returns every instance that
// runs, and an error joining one *ServiceError per service that failed:
// it could not start, another instance of its name runs (ErrConflict),
// it exited during start-up (ErrExited) or was not ready in time
// (ErrNotReady; Start stops it if it started it). The services that did start keep
// running either way; Stop stops them.
func (l *Launcher) Start(ctx context.Context, services []Service) ([]*Instance, error) {
	var (
		insts []*Instance
		errs  []error
	)
	seen := map[string]bool{}
	for _, s := range services {
		if seen[s.Name] {
			errs = append(errs, fmt.Errorf("launcher: companion %s named twice", s.Name))
			continue
		}
		seen[s.Name] = true
		inst, err := l.start(ctx, s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		insts = append(insts, inst)
	}
	ready := make([]error, len(insts))
	var wg sync.WaitGroup
	for i, inst := range insts {
		s := services[slices.IndexFunc(services, func(s Service) bool { return s.Name == inst.Name })]
		wg.Go(func() { ready[i] = l.waitReady(ctx, inst, s) })
	}
	wg.Wait()
	var running []*Instance
	for i, inst := range insts {
		if ready[i] == nil {
			running = append(running, inst)
			continue
		}
		errs = append(errs, ready[i])
		if errors.Is(ready[i], ErrNotReady) && !inst.Reused {
			if _, err := l.stopRecord(context.WithoutCancel(ctx), inst.Record); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return running, errors.Join(errs...)
}

// files returns the log, record and lock paths of a service.
func (l *Launcher) files(base string) (logPath, recPath, lockPath string) {
	p := filepath.Join(l.dir(), base)
	return p + ".log", p + ".json", p + ".lock"
}

// start starts or reuses one service, without waiting for readiness.
func (l *Launcher) start(ctx context.Context, s Service) (*Instance, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	hash, err := s.hash()
	if err != nil {
		return nil, err
	}
	base := s.Name + "." + hash + "." + l.host()
	logPath, recPath, lockPath := l.files(base)
	fail := func(err error) error { return &ServiceError{Name: s.Name, Log: logPath, Err: err} }
	if err := os.MkdirAll(l.dir(), 0o755); err != nil {
		return nil, fmt.Errorf("launcher: %w", err)
	}
	unlock, err := lockFile(ctx, lockPath)
	if err != nil {
		return nil, fail(err)
	}
	defer unlock()

	rec, err := readRecord(recPath)
	switch {
	case err == nil && len(groupMembers(rec)) > 0:
		l.log().Info("companion already running, reusing it", "name", s.Name, "pid", rec.PID, "log", logPath)
		return &Instance{Record: rec, Reused: true}, nil
	case err == nil:
		l.log().Warn("companion's record names a dead process group: replacing it", "name", s.Name, "pid", rec.PID, "pgid", rec.PGID, "log", logPath)
		if err := os.Remove(recPath); err != nil {
			return nil, fail(err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		bad := recPath + ".bad"
		l.log().Warn("unreadable companion record: moved aside", "name", s.Name, "record", bad, "err", err)
		if err := os.Rename(recPath, bad); err != nil {
			return nil, fail(err)
		}
	}
	if err := l.checkConflict(s.Name, hash); err != nil {
		return nil, fail(err)
	}
	if _, err := os.Stat(logPath); err == nil {
		if err := os.Rename(logPath, logPath+".prev"); err != nil {
			return nil, fail(err)
		}
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fail(err)
	}
	defer logFile.Close()
	dir, err := absDir(s.Dir)
	if err != nil {
		return nil, fail(err)
	}
	nonce := make([]byte, 8)
	rand.Read(nonce)
	token := base + "." + hex.EncodeToString(nonce)

	cmd := exec.Command(s.Command[0], s.Command[1:]...)
	if errors.Is(cmd.Err, exec.ErrDot) {
		cmd.Err = nil
	}
	cmd.Dir = s.Dir
	cmd.Env = append(append(os.Environ(), s.Env...), TokenVar+"="+token)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := detach(cmd); err != nil {
		return nil, fail(err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fail(fmt.Errorf("start %q: %w", s.Command, err))
	}
	pid := cmd.Process.Pid
	started, _ := processStart(pid)
	rec = Record{
		Name: s.Name, Hash: hash, Host: l.host(), PID: pid, PGID: pid,
		Command: s.Command, Dir: dir, Token: token, StartedAt: started,
		Started: time.Now().UTC().Truncate(time.Millisecond), Log: logPath, URL: s.URL,
	}
	inst := &Instance{Record: rec, exited: make(chan struct{})}
	go func() {
		inst.waitErr = cmd.Wait()
		close(inst.exited)
	}()
	if err := writeRecord(recPath, rec); err != nil {
		_ = signalGroup(pid, kill)
		return nil, fail(fmt.Errorf("record it: %w", err))
	}
	l.log().Info("companion started", "name", s.Name, "pid", pid, "log", logPath)
	return inst, nil
}

// checkConflict reports a live instance of name with another hash.
func (l *Launcher) checkConflict(name, hash string) error {
	recs, _ := l.records()
	for _, r := range recs {
		if r.Name == name && r.Hash != hash && len(groupMembers(r)) > 0 {
			return fmt.Errorf("%w (pid %d, started %s with %q, log %s): stop it first (agentevolver launch stop %s, or launch --restart)",
				ErrConflict, r.PID, r.Started.Local().Format(time.DateTime), r.Command, r.Log, name)
		}
	}
	return nil
}

// waitReady waits until inst passes its readiness test, exits, or the
// timeout passes.
func (l *Launcher) waitReady(ctx context.Context, inst *Instance, s Service) error {
	timeout := s.Ready.Timeout
	if timeout == 0 {
		timeout = DefaultReadyTimeout
	}
	fail := func(err error) error {
		return &ServiceError{Name: inst.Name, Log: inst.Log, Tail: tailLines(inst.Log, 10), Err: err}
	}
	if inst.Reused && !inst.ReadyAt.IsZero() {
		return nil // found alive by start, ready before
	}
	start := time.Now()
	deadline := start.Add(timeout)
	scanner := &logScanner{path: inst.Log, want: s.Ready.Line}
	lastAlive := start
	child := inst.exited // nil: not started here, or its group lives on without it
	for {
		if child != nil {
			select {
			case <-child:
				// A leader that leaves its group running (a script that
				// started the server in the background) is not an exit.
				if len(groupMembers(inst.Record)) == 0 {
					return fail(fmt.Errorf("%w during start-up (%v)", ErrExited, exitStatus(inst.waitErr)))
				}
				child = nil
			default:
			}
		} else if time.Since(lastAlive) >= time.Second {
			lastAlive = time.Now()
			if len(groupMembers(inst.Record)) == 0 {
				return fail(fmt.Errorf("%w while it was being reused", ErrExited))
			}
		}
		lineOK, urlOK := s.Ready.Line == "", s.Ready.URL == ""
		if !lineOK {
			ok, err := scanner.scan()
			if err != nil {
				return fail(fmt.Errorf("read its log: %w", err))
			}
			lineOK = ok
		}
		if !urlOK && lineOK {
			urlOK = probe(ctx, l.client(), s.Ready.URL)
		}
		if s.Ready.Line == "" && s.Ready.URL == "" {
			lineOK = inst.Reused || time.Since(start) >= minAlive
		}
		if lineOK && urlOK {
			return l.ready(inst, scanner.found, s.Ready.URL)
		}
		if time.Now().After(deadline) {
			return fail(fmt.Errorf("%w: no sign after %v (waiting for %s)", ErrNotReady, timeout, s.Ready.describe()))
		}
		select {
		case <-ctx.Done():
			return fail(ctx.Err())
		case <-time.After(l.poll()):
		}
	}
}

// ready records that the instance is ready, and where it answers.
func (l *Launcher) ready(inst *Instance, line, readyURL string) error {
	if inst.Reused && !inst.ReadyAt.IsZero() {
		return nil
	}
	if inst.URL == "" {
		inst.URL = lineURL(line)
		if inst.URL == "" {
			inst.URL = origin(readyURL)
		}
	}
	inst.ReadyAt = time.Now().UTC().Truncate(time.Millisecond)
	_, recPath, _ := l.files(inst.base())
	if err := writeRecord(recPath, inst.Record); err != nil {
		return &ServiceError{Name: inst.Name, Log: inst.Log, Err: fmt.Errorf("record it: %w", err)}
	}
	l.log().Info("companion ready", "name", inst.Name, "url", inst.URL)
	return nil
}

// exitStatus describes how a child ended.
func exitStatus(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ProcessState.String()
	}
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// records reads this host's records, sorted by name and start; it returns
// the readable ones and an error naming the others.
func (l *Launcher) records() ([]Record, error) {
	paths, err := filepath.Glob(filepath.Join(l.dir(), "*.json"))
	if err != nil {
		return nil, err
	}
	var (
		out  []Record
		errs []error
	)
	suffix := "." + l.host() + ".json"
	for _, p := range paths {
		if !strings.HasSuffix(p, suffix) {
			continue
		}
		r, err := readRecord(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Record) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return a.Started.Compare(b.Started)
	})
	return out, errors.Join(errs...)
}
