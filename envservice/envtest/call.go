package envtest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
)

// panicError is the error of a call whose environment code panicked.
type panicError struct {
	value any
	site  string // where it panicked, or ""
}

func (e *panicError) Error() string { return fmt.Sprintf("panicked: %v%s", e.value, e.site) }

// hungError is the error of a call that did not return in time.
type hungError struct{ after time.Duration }

func (e *hungError) Error() string {
	return fmt.Sprintf("did not return within %v (does it honour its context?)", e.after)
}

// errAbandoned is the error of a call on an instance the suite stopped
// using after one of its calls hung.
var errAbandoned = errors.New("not called: an earlier call on this instance hung")

// maxHangs bounds the calls that may hang: after that many, the suite
// makes no more calls (each hang costs one and a half times
// Options.Timeout), and the calls it skips fail with errGaveUp.
const maxHangs = 3

// errGaveUp is the error of a call not made because maxHangs calls hung.
var errGaveUp = fmt.Errorf("not called: %d calls hung already", maxHangs)

// notCalled reports whether err is that of a call the suite did not make.
func notCalled(err error) bool { return errors.Is(err, errAbandoned) || errors.Is(err, errGaveUp) }

// call runs f, environment code, with a context that ends after
// Options.Timeout. A panic becomes a *panicError; a call still running at
// one and a half times the timeout is given up with a *hungError (its
// goroutine is left behind, and whatever it holds must no longer be used).
func call[T any](s *suite, f func(ctx context.Context) (T, error)) (T, error) {
	return callIn(s.ctx, s, f)
}

// callIn is call with parent in place of the suite's context.
func callIn[T any](parent context.Context, s *suite, f func(ctx context.Context) (T, error)) (T, error) {
	if s.hangs.Load() >= maxHangs {
		var zero T
		return zero, errGaveUp
	}
	ctx, cancel := context.WithTimeout(parent, s.opts.Timeout)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r = result{err: &panicError{value: p, site: panicSite()}}
			}
			done <- r
		}()
		r.v, r.err = f(ctx)
	}()
	wait := s.opts.Timeout + s.opts.Timeout/2
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.v, r.err
	case <-timer.C:
		s.hangs.Add(1)
		var zero T
		return zero, &hungError{after: wait}
	}
}

// panicSite describes where the panic being recovered happened: the first
// frames below the panic that are neither the runtime's nor this
// package's. Call it from the deferred function that recovers.
func panicSite() string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var sites []string
	for {
		f, more := frames.Next()
		fn := f.Function
		own := strings.Contains(fn, "/envservice/envtest.") && !strings.Contains(f.File, "_test.go")
		if fn != "" && !strings.HasPrefix(fn, "runtime.") && !own {
			sites = append(sites, fmt.Sprintf("%s (%s:%d)", fn, filepath.Base(f.File), f.Line))
			if len(sites) == 2 {
				break
			}
		}
		if !more {
			break
		}
	}
	if len(sites) == 0 {
		return ""
	}
	return " at " + strings.Join(sites, " called from ")
}

// isPanic reports whether err is a panic of environment code.
func isPanic(err error) bool {
	var pe *panicError
	return errors.As(err, &pe)
}

// isHung reports whether err is a call that did not return in time.
func isHung(err error) bool {
	var he *hungError
	return errors.As(err, &he)
}

// isNil reports whether inst is nil or holds a nil pointer: New of a
// concrete type often returns (*T)(nil) with its error, which a Manager
// ignores as it ignores any instance returned with an error.
func isNil(inst envservice.Instance) bool {
	if inst == nil {
		return true
	}
	v := reflect.ValueOf(inst)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// handle is an instance under test. Its calls go through call; after one
// hangs, the instance is abandoned: it may still be running that call, so
// no other is made.
type handle struct {
	s      *suite
	inst   envservice.Instance
	task   string
	id     string
	broken error
}

// create calls New for task with a fresh instance id and reports, in r,
// breaches of New's contract that the caller cannot see in the error: a
// nil instance without an error, an instance with an error. It returns
// New's error (or a description of the breach).
func (s *suite) create(r *report, task string, params map[string]any) (*handle, error) {
	id := fmt.Sprintf("envtest-%d", s.instances.Add(1))
	inst, err := call(s, func(ctx context.Context) (envservice.Instance, error) {
		return s.env.New(ctx, task, id, params)
	})
	switch {
	case err == nil && isNil(inst):
		r.errorf("task %s: New returned a nil instance (%T) and no error", quote(task), inst)
		return nil, errors.New("New returned a nil instance")
	case err != nil && !isNil(inst):
		r.errorf("task %s: New returned an instance along with its error (%v); a Manager drops such an instance without closing it", quote(task), err)
		h := &handle{s: s, inst: inst, task: task, id: id}
		_ = h.close()
		return nil, err
	case err != nil:
		return nil, err
	}
	return &handle{s: s, inst: inst, task: task, id: id}, nil
}

// do runs f on h's instance unless h is abandoned, and abandons h when f
// hangs.
func do[T any](h *handle, f func(ctx context.Context, inst envservice.Instance) (T, error)) (T, error) {
	if h.broken != nil {
		var zero T
		return zero, errAbandoned
	}
	v, err := call(h.s, func(ctx context.Context) (T, error) { return f(ctx, h.inst) })
	if isHung(err) {
		h.broken = err
	}
	return v, err
}

func (h *handle) initState() (envclient.InitState, error) {
	return do(h, func(ctx context.Context, inst envservice.Instance) (envclient.InitState, error) {
		return inst.InitState(ctx, nil)
	})
}

func (h *handle) step(action agentevolver.Message, params map[string]any) (envclient.StepResult, error) {
	return do(h, func(ctx context.Context, inst envservice.Instance) (envclient.StepResult, error) {
		return inst.Step(ctx, action, params)
	})
}

func (h *handle) evaluate(params map[string]any) (float64, error) {
	return do(h, func(ctx context.Context, inst envservice.Instance) (float64, error) {
		return inst.Evaluate(ctx, params)
	})
}

func (h *handle) info(params map[string]any) (any, error) {
	return do(h, func(ctx context.Context, inst envservice.Instance) (any, error) {
		return inst.Info(ctx, params)
	})
}

func (h *handle) close() error {
	_, err := do(h, func(_ context.Context, inst envservice.Instance) (struct{}, error) {
		return struct{}{}, inst.Close()
	})
	return err
}
