package launcher

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// Status is one recorded service as Status finds it.
type Status struct {
	Record
	// Alive is true while a process of the service's group carries its
	// token.
	Alive bool
	// Uptime is how long it has run, while it is alive.
	Uptime time.Duration
}

// Status lists this host's recorded services, alive or dead, by name. It
// returns the readable records and an error naming unreadable ones.
func (l *Launcher) Status(ctx context.Context) ([]Status, error) {
	recs, err := l.records()
	out := make([]Status, 0, len(recs))
	for _, r := range recs {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		s := Status{Record: r, Alive: len(groupMembers(r)) > 0}
		if s.Alive {
			s.Uptime = time.Since(r.Started).Truncate(time.Second)
		}
		out = append(out, s)
	}
	return out, err
}

// Stopped is one service Stop dealt with.
type Stopped struct {
	Record
	// WasRunning is false for a record of a dead service, which Stop only
	// removes.
	WasRunning bool
	// Killed is true when the group outlived SIGTERM by StopGrace and got
	// SIGKILL.
	Killed bool
}

// Stop stops the recorded services of the given names (all of this
// host's for none): SIGTERM to each one's process group, SIGKILL after
// StopGrace if any of it remains, then its record is removed (the log
// stays). It signals only process groups it recorded, and only while a
// process of the group carries the service's token, so a pid or group id
// taken over by an unrelated program is never signalled. A name without
// record is an error wrapping ErrUnknown.
func (l *Launcher) Stop(ctx context.Context, names ...string) ([]Stopped, error) {
	recs, readErr := l.records()
	var errs []error
	if readErr != nil {
		errs = append(errs, readErr)
	}
	for _, n := range names {
		if !slices.ContainsFunc(recs, func(r Record) bool { return r.Name == n }) {
			var known []string
			for _, r := range recs {
				if !slices.Contains(known, r.Name) {
					known = append(known, r.Name)
				}
			}
			errs = append(errs, fmt.Errorf("launcher: %w %q (recorded: %s)", ErrUnknown, n, strings.Join(known, ", ")))
		}
	}
	var (
		mu  sync.Mutex
		out []Stopped
		wg  sync.WaitGroup
	)
	for _, r := range recs {
		if len(names) > 0 && !slices.Contains(names, r.Name) {
			continue
		}
		wg.Go(func() {
			st, err := l.stopRecord(ctx, r)
			mu.Lock()
			defer mu.Unlock()
			out = append(out, st)
			if err != nil {
				errs = append(errs, err)
			}
		})
	}
	wg.Wait()
	slices.SortFunc(out, func(a, b Stopped) int { return strings.Compare(a.Name, b.Name) })
	return out, errors.Join(errs...)
}

// stopRecord stops one recorded service and removes its record.
func (l *Launcher) stopRecord(ctx context.Context, r Record) (Stopped, error) {
	st := Stopped{Record: r}
	fail := func(err error) error { return &ServiceError{Name: r.Name, Log: r.Log, Err: err} }
	if len(groupMembers(r)) > 0 {
		st.WasRunning = true
		if err := signalGroup(r.PGID, terminate); err != nil {
			return st, fail(err)
		}
		if !l.waitGone(ctx, r, l.grace()) {
			st.Killed = true
			// Checked again: SIGKILL only a group still ours.
			if len(groupMembers(r)) > 0 {
				if err := signalGroup(r.PGID, kill); err != nil {
					return st, fail(err)
				}
			}
			if !l.waitGone(context.WithoutCancel(ctx), r, 5*time.Second) {
				return st, fail(fmt.Errorf("process group %d survived SIGKILL", r.PGID))
			}
		}
	}
	_, recPath, _ := l.files(r.base())
	if err := os.Remove(recPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return st, fail(err)
	}
	return st, nil
}

// waitGone waits up to d for r's group to have no process of its own.
func (l *Launcher) waitGone(ctx context.Context, r Record, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if len(groupMembers(r)) == 0 {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(min(l.poll(), 50*time.Millisecond))
	}
}

// Watch reports, through report, each instance that exits (an error
// wrapping ErrExited, with the instance's log), until ctx ends or all
// have exited. Instances started by this launcher are seen at once;
// reused ones within about a second.
func (l *Launcher) Watch(ctx context.Context, insts []*Instance, report func(*Instance, error)) {
	var wg sync.WaitGroup
	for _, inst := range insts {
		wg.Go(func() {
			status := "its process group is gone"
			if inst.exited != nil {
				select {
				case <-ctx.Done():
					return
				case <-inst.exited:
					status = exitStatus(inst.waitErr)
				}
			}
			// The group may outlive its leader (a server started in the
			// background by a script): the service ends with the group.
			for len(groupMembers(inst.Record)) > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(max(l.poll(), time.Second)):
				}
			}
			report(inst, &ServiceError{Name: inst.Name, Log: inst.Log, Tail: tailLines(inst.Log, 10),
				Err: fmt.Errorf("%w (%s)", ErrExited, status)})
		})
	}
	wg.Wait()
}
