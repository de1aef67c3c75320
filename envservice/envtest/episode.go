package envtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
)

// arbitraryAction is the action of an episode without Options.Actions or
// an expert: plain text, as an untrained policy might write.
var arbitraryAction = agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "I am not sure what to do. Let me look around first."}

// Where the actions of an episode come from.
const (
	fromOptions   = "Options.Actions"
	fromExpert    = "the expert's demonstration"
	fromArbitrary = "one arbitrary action"
)

// plan is the actions of a task's episodes.
type plan struct {
	actions []agentevolver.Message
	source  string
}

// planFor returns the actions of task's episodes, whose first instance
// showed init, choosing them the first time.
func (s *suite) planFor(task string, init envclient.InitState) plan {
	if p, ok := s.plans[task]; ok {
		return p
	}
	p := plan{actions: []agentevolver.Message{arbitraryAction}, source: fromArbitrary}
	if s.opts.Actions != nil {
		if a := s.opts.Actions(task, init); len(a) > 0 {
			p = plan{actions: a, source: fromOptions}
		}
	}
	if p.source == fromArbitrary {
		if demo := s.demos[task]; len(demo) > 0 {
			p = plan{actions: demo, source: fromExpert}
		}
	}
	s.plans[task] = p
	return p
}

// checkExpert asks the expert for a demonstration of each played task.
func (s *suite) checkExpert(r *report) {
	ex, ok := s.env.(envservice.Expert)
	if !ok {
		r.skip("the environment is not an envservice.Expert")
		return
	}
	for _, task := range s.played {
		demo, err := call(s, func(ctx context.Context) ([]agentevolver.Message, error) { return ex.Demonstrate(ctx, task) })
		switch {
		case isPanic(err) || isHung(err):
			r.errorf("task %q: Demonstrate: %v", task, err)
			continue
		case err != nil:
			// An expert may have no demonstration for a task (a game its
			// side loses, a task without a reference solution).
			s.logf("task %q: Demonstrate: %v (the episode plays one arbitrary action instead)", task, err)
			continue
		case len(demo) == 0:
			r.errorf("task %q: Demonstrate returned no actions and no error; a demonstration ends the episode with its last action", task)
			continue
		}
		good := true
		for i, m := range demo {
			if m.Role != agentevolver.RoleAssistant {
				r.errorf("task %q: action %d of %d of the demonstration has role %q; want %q", task, i+1, len(demo), m.Role, agentevolver.RoleAssistant)
				good = false
			}
		}
		if good {
			s.demos[task] = demo
		}
		s.logf("task %q: the expert's demonstration has %s", task, count(len(demo), "action"))
	}
}

// transcript is what an episode observed, to compare episodes of a task.
type transcript struct {
	init   []agentevolver.Message
	steps  []stepRecord
	dense  float64
	sparse float64
}

type stepRecord struct {
	State        []agentevolver.Message
	Reward       float64
	IsTerminated bool
}

// playMode says how strictly play checks an episode.
type playMode int

const (
	// sequential checks every property of the episode.
	sequential playMode = iota
	// concurrent reports only failed, panicking and hung calls: the
	// properties were checked sequentially, and Concurrency compares the
	// transcripts.
	concurrent
)

// checkEpisodes plays each played task once.
func (s *suite) checkEpisodes(r *report) {
	for _, task := range s.played {
		if tr := s.play(r, task, "", sequential); tr != nil {
			s.seq[task] = tr
		}
	}
}

// play runs one episode of task on a fresh instance and returns its
// transcript, or nil when it could not be played to the end. label
// prefixes its failures.
func (s *suite) play(r *report, task, label string, mode playMode) *transcript {
	strict := mode == sequential
	where := fmt.Sprintf("%stask %q", label, task)
	h, err := s.create(r, task, nil)
	if err != nil {
		r.errorf("%s: New: %v", where, err)
		return nil
	}
	closed := false
	defer func() {
		if closed {
			return
		}
		if err := h.close(); err != nil {
			r.errorf("%s: Close: %v", where, err)
		}
	}()
	init, err := h.initState()
	if err != nil {
		r.errorf("%s: InitState: %v", where, err)
		return nil
	}
	if strict {
		s.checkInit(r, where, init)
		s.checkInfo(r, where+": Info after InitState", h)
		s.checkScores(r, where+": before the first step", h)
	}
	var p plan
	if strict {
		p = s.planFor(task, init)
	} else if p = s.plans[task]; p.actions == nil {
		return nil
	}
	tr := &transcript{init: init.State}
	terminated := false
	for i, a := range p.actions {
		res, err := h.step(a, nil)
		if err != nil {
			r.errorf("%s: Step %d of %d (%s): %v", where, i+1, len(p.actions), p.source, err)
			return nil
		}
		tr.steps = append(tr.steps, stepRecord{State: res.State, Reward: res.Reward, IsTerminated: res.IsTerminated})
		if strict {
			s.checkStepResult(r, fmt.Sprintf("%s: Step %d of %d (%s)", where, i+1, len(p.actions), p.source), res)
		}
		if res.IsTerminated {
			terminated = true
			if strict && p.source == fromExpert && i < len(p.actions)-1 {
				r.errorf("%s: the episode ended at step %d of the expert's %d; a demonstration ends it with its last action", where, i+1, len(p.actions))
			}
			break
		}
	}
	if strict {
		how := "did not end"
		if terminated {
			how = "ended"
		}
		s.logf("%s: %s of %s; the episode %s", where, count(len(tr.steps), "step"), p.source, how)
		if p.source == fromExpert && !terminated {
			r.errorf("%s: the expert's %s did not end the episode (is_terminated stayed false)", where, count(len(p.actions), "action"))
		}
		s.checkInfo(r, where+": Info after the episode", h)
	}
	tr.dense, tr.sparse, err = s.scores(h)
	if err != nil {
		r.errorf("%s: after the episode: %v", where, err)
		return nil
	}
	if strict {
		s.checkScore(r, where+": Evaluate after the episode", tr.dense, tr.sparse)
		if p.source == fromExpert && (tr.dense != 1 || tr.sparse != 1) {
			r.errorf("%s: the expert's demonstration scored %v (sparse %v); want 1", where, tr.dense, tr.sparse)
		}
		if s.opts.Deterministic {
			if again, err := h.evaluate(nil); err == nil && again != tr.dense && !(math.IsNaN(again) && math.IsNaN(tr.dense)) {
				r.errorf("%s: Evaluate is not deterministic: %v, then %v with nothing done between", where, tr.dense, again)
			}
		}
		if terminated {
			s.checkStepAfterEnd(r, where, h)
		}
	}
	closed = true
	if err := h.close(); err != nil {
		r.errorf("%s: Close: %v", where, err)
	}
	return tr
}

// scores evaluates h dense, then sparse.
func (s *suite) scores(h *handle) (dense, sparse float64, err error) {
	if dense, err = h.evaluate(nil); err != nil {
		return 0, 0, fmt.Errorf("Evaluate: %w", err)
	}
	if sparse, err = h.evaluate(map[string]any{"sparse": true}); err != nil {
		return 0, 0, fmt.Errorf("Evaluate with sparse true: %w", err)
	}
	return dense, sparse, nil
}

// checkScores evaluates h and checks the scores.
func (s *suite) checkScores(r *report, where string, h *handle) {
	dense, sparse, err := s.scores(h)
	if err != nil {
		r.errorf("%s: %v", where, err)
		return
	}
	s.checkScore(r, where+": Evaluate", dense, sparse)
}

// checkScore checks a dense and a sparse score.
func (s *suite) checkScore(r *report, where string, dense, sparse float64) {
	if math.IsNaN(dense) || math.IsInf(dense, 0) || dense < 0 || dense > 1 {
		r.errorf("%s: score %v outside [0, 1]", where, dense)
	}
	if sparse != 0 && sparse != 1 {
		r.errorf("%s: sparse score %v; with params[\"sparse\"] true want 0 or 1", where, sparse)
	}
}

// checkStepAfterEnd sends one more action to a terminated episode.
func (s *suite) checkStepAfterEnd(r *report, where string, h *handle) {
	res, err := h.step(arbitraryAction, nil)
	switch {
	case isPanic(err) || isHung(err):
		r.errorf("%s: Step after the episode ended: %v", where, err)
	case err != nil:
		s.logf("%s: Step after the episode ended: %v (allowed)", where, err)
	case !res.IsTerminated:
		r.errorf("%s: Step after the episode ended returned is_terminated false; want true again, or an error", where)
	default:
		s.checkStepResult(r, where+": Step after the episode ended", res)
	}
}

// validRole reports whether role is one of the four the SDK knows.
func validRole(role string) bool {
	switch role {
	case agentevolver.RoleSystem, agentevolver.RoleUser, agentevolver.RoleAssistant, agentevolver.RoleTool:
		return true
	}
	return false
}

// checkInit checks an initial state.
func (s *suite) checkInit(r *report, where string, init envclient.InitState) {
	roles := make([]string, len(init.State))
	for i, m := range init.State {
		roles[i] = m.Role
	}
	switch {
	case len(init.State) == 0:
		r.errorf("%s: InitState returned no messages", where)
	case !s.opts.LooseInitState && !slices.Equal(roles, []string{agentevolver.RoleSystem, agentevolver.RoleUser}):
		r.errorf("%s: InitState returned messages of roles %q; agentflow.Flow wants exactly [system user] (set Options.LooseInitState for an environment that runs under another loop)", where, roles)
	default:
		for i, role := range roles {
			if !validRole(role) {
				r.errorf("%s: InitState message %d has role %q; want system, user, assistant or tool", where, i, role)
			}
		}
	}
	if _, err := json.Marshal(init); err != nil {
		r.errorf("%s: the initial state is not JSON-serialisable, as the env service sends it: %v", where, err)
	}
}

// checkStepResult checks the result of a step.
func (s *suite) checkStepResult(r *report, where string, res envclient.StepResult) {
	for i, m := range res.State {
		if !validRole(m.Role) {
			r.errorf("%s: observation message %d has role %q; want system, user, assistant or tool", where, i, m.Role)
		}
	}
	if math.IsNaN(res.Reward) || math.IsInf(res.Reward, 0) {
		r.errorf("%s: reward %v is not finite", where, res.Reward)
		return // and so not serialisable
	}
	if _, err := json.Marshal(res); err != nil {
		r.errorf("%s: the result is not JSON-serialisable, as the env service sends it: %v", where, err)
	}
}

// checkInfo calls Info on h and checks that its result is
// JSON-serialisable.
func (s *suite) checkInfo(r *report, where string, h *handle) {
	info, err := h.info(nil)
	if err != nil {
		r.errorf("%s: %v", where, err)
		return
	}
	if _, err := json.Marshal(info); err != nil {
		r.errorf("%s: the result (%T) is not JSON-serialisable: %v", where, info, err)
	}
}

// count writes n things, "1 step" or "2 steps".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
