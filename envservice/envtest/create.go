package envtest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/org/agentevolver/envclient"
)

// unknownTasks are task ids no environment has, with a name for messages:
// the env service passes a client's task_id to New as it came.
var unknownTasks = []struct{ name, id string }{
	{"an unknown task id", "envtest-no-such-task"},
	{"a 64 KiB task id", strings.Repeat("envtest-", 8<<10)},
	{"a task id of invalid UTF-8", "envtest-\xff\xfe\xc3\x28"},
	{"a task id that is a path", "../../../../etc/passwd"},
	{"a task id with a NUL byte", "envtest\x00-no-such-task"},
}

// badCreateParams are create params of the wrong types.
var badCreateParams = map[string]any{"sparse": []any{"not", "a", "bool"}, "split": 42, "seed": map[string]any{}}

// checkNew checks New on unknown task ids, with a cancelled context and
// with params of the wrong types.
func (s *suite) checkNew(r *report) {
	for _, u := range unknownTasks {
		h, err := s.create(r, u.id, nil)
		switch {
		case h != nil:
			r.errorf("New of %s (%s) succeeded; want an error matching envclient.ErrBadRequest", u.name, clip(u.id))
			if _, err := h.initState(); err != nil {
				s.logf("InitState of %s failed: %v", u.name, err)
			}
			_ = h.close()
		case isPanic(err) || isHung(err):
			r.errorf("New of %s (%s): %v", u.name, clip(u.id), err)
		case !errors.Is(err, envclient.ErrBadRequest):
			r.errorf("New of %s (%s): the error %s does not match envclient.ErrBadRequest, so the env service answers 500 (an environment failure) rather than 400, and agentflow retries a create that cannot succeed", u.name, clip(u.id), clip(err.Error()))
		}
	}

	task := s.played[0]
	ctx, cancel := context.WithCancel(s.ctx)
	cancel()
	id := fmt.Sprintf("envtest-%d", s.instances.Add(1))
	made, err := callIn(ctx, s, func(ctx context.Context) (any, error) {
		inst, err := s.env.New(ctx, task, id, nil)
		if !isNil(inst) {
			// Close here, on the goroutine that made it, whatever the
			// outcome: the instance is not used.
			_ = inst.Close()
			return inst, err
		}
		return nil, err
	})
	switch {
	case err != nil && !errors.Is(err, context.Canceled):
		r.errorf("task %q: New with a cancelled context: %v; want an error wrapping context.Canceled (or an instance)", task, err)
	case err != nil && made != nil:
		r.errorf("task %s: New with a cancelled context returned an instance along with its error", quote(task))
	}

	h, err := s.create(r, task, badCreateParams)
	switch {
	case isPanic(err) || isHung(err):
		r.errorf("task %q: New with params of the wrong types %v: %v", task, badCreateParams, err)
	case err != nil:
		s.logf("task %q: New with params of the wrong types: %v", task, err)
	default:
		if _, err := h.initState(); isPanic(err) || isHung(err) {
			r.errorf("task %q: InitState after New with params of the wrong types: %v", task, err)
		}
		if err := h.close(); isPanic(err) || isHung(err) {
			r.errorf("task %q: Close after New with params of the wrong types: %v", task, err)
		}
	}
}

// clip shortens s for a failure message.
func clip(s string) string {
	const keep = 80
	if len(s) <= keep {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q… (%d bytes)", s[:keep], len(s))
}
