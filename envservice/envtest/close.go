package envtest

import "errors"

// checkClose checks Close without InitState, and that nothing panics or
// hangs after Close: a second Close, Step, Evaluate, Info.
func (s *suite) checkClose(r *report) {
	task := s.played[0]
	where := "task " + quote(task)
	h, err := s.create(r, task, nil)
	if err != nil {
		r.errorf("%s: New: %v", where, err)
	} else if err := h.close(); err != nil {
		r.errorf("%s: Close right after New, before InitState: %v", where, err)
	}

	h, err = s.create(r, task, nil)
	if err != nil {
		r.errorf("%s: New: %v", where, err)
		return
	}
	if _, err := h.initState(); err != nil {
		r.errorf("%s: InitState: %v", where, err)
	}
	if err := h.close(); err != nil {
		r.errorf("%s: Close: %v", where, err)
		if errors.Is(err, errAbandoned) || isHung(err) {
			return
		}
	}
	after := func(what string, err error) {
		switch {
		case isPanic(err) || isHung(err):
			r.errorf("%s: %s after Close: %v", where, what, err)
		case err == nil:
			s.logf("%s: %s after Close succeeded (allowed; an error is usual)", where, what)
		}
	}
	after("a second Close", h.close())
	_, err = h.step(arbitraryAction, nil)
	after("Step", err)
	_, err = h.evaluate(nil)
	after("Evaluate", err)
	_, err = h.info(nil)
	after("Info", err)
}
