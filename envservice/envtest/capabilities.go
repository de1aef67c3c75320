package envtest

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envservice"
)

// The checks of the optional capabilities hold each to what
// envservice/capabilities.go documents of it; each is skipped when the
// environment does not implement the capability.

// checkProfile: Profile returns a profile with at least one entity, every
// entity named, that encodes as JSON (its reference form).
func (s *suite) checkProfile(r *report) {
	pp, ok := s.env.(envservice.ProfileProvider)
	if !ok {
		r.skip("the environment is not an envservice.ProfileProvider")
		return
	}
	p, err := call(s, func(context.Context) (agentevolver.EnvProfile, error) { return pp.Profile(), nil })
	if err != nil {
		r.errorf("Profile: %v", err)
		return
	}
	if len(p.Entities) == 0 {
		r.errorf("Profile returned no entities; task synthesis has nothing to ask about")
	}
	for i, e := range p.Entities {
		if strings.TrimSpace(e.Name) == "" {
			r.errorf("Profile: entity %d has no name", i)
		}
	}
	if _, err := json.Marshal(p); err != nil {
		r.errorf("Profile is not JSON-serialisable: %v", err)
	}
	s.logf("Profile %q: %d entities", p.Name, len(p.Entities))
}

// checkCorpus: Corpus of the first split returns documents, the same in
// the same order on a second call ("in a deterministic order").
func (s *suite) checkCorpus(r *report) {
	cp, ok := s.env.(envservice.CorpusProvider)
	if !ok {
		r.skip("the environment is not an envservice.CorpusProvider")
		return
	}
	split := s.opts.Splits[0]
	corpus := func() ([]string, error) {
		return call(s, func(ctx context.Context) ([]string, error) { return cp.Corpus(ctx, split) })
	}
	docs, err := corpus()
	if err != nil {
		r.errorf("Corpus(%q): %v", split, err)
		return
	}
	if len(docs) == 0 && len(s.listed[split]) > 0 {
		r.errorf("Corpus(%q) returned no documents for a split of %d tasks", split, len(s.listed[split]))
	}
	again, err := corpus()
	switch {
	case err != nil:
		r.errorf("Corpus(%q), called a second time: %v", split, err)
	case !slices.Equal(docs, again):
		r.errorf("Corpus(%q) is not deterministic: a second call returned other documents (%d, not %d) or another order", split, len(again), len(docs))
	}
	n := 0
	for _, d := range docs {
		n += len(d)
	}
	s.logf("Corpus(%q): %d documents, %d bytes", split, len(docs), n)
}

// checkTaskMetadata: TaskMetadata describes each played task, the same on
// a second call, with a difficulty of 0 (unknown) or more.
func (s *suite) checkTaskMetadata(r *report) {
	mp, ok := s.env.(envservice.TaskMetadataProvider)
	if !ok {
		r.skip("the environment is not an envservice.TaskMetadataProvider")
		return
	}
	for _, task := range s.played {
		meta := func() (envservice.TaskMetadata, error) {
			return call(s, func(ctx context.Context) (envservice.TaskMetadata, error) { return mp.TaskMetadata(ctx, task) })
		}
		m, err := meta()
		if err != nil {
			r.errorf("TaskMetadata(%q), a listed task: %v", task, err)
			continue
		}
		if m.Difficulty < 0 {
			r.errorf("TaskMetadata(%q): difficulty %d; want 1 or more, or 0 for unknown", task, m.Difficulty)
		}
		if again, err := meta(); err != nil || again != m {
			r.errorf("TaskMetadata(%q) is not deterministic: %+v, then %+v (error %v)", task, m, again, err)
		}
	}
}

// malformedAction is an action no environment can parse.
var malformedAction = assistant("\x00envtest: not an action of any environment\x00")

// checkStepOracle: JudgeSteps returns one verdict per action; every step
// of the expert's demonstration made progress (GOOD); a malformed action
// is BAD, not an error; an unknown task is an error without verdicts.
func (s *suite) checkStepOracle(r *report) {
	so, ok := s.env.(envservice.StepOracle)
	if !ok {
		r.skip("the environment is not an envservice.StepOracle")
		return
	}
	judge := func(task string, actions []agentevolver.Message) ([]bool, error) {
		return call(s, func(ctx context.Context) ([]bool, error) { return so.JudgeSteps(ctx, task, actions) })
	}
	for _, task := range s.played {
		demo := s.demos[task]
		if len(demo) == 0 {
			continue
		}
		v, err := judge(task, demo)
		switch {
		case err != nil:
			r.errorf("task %q: JudgeSteps of the expert's demonstration: %v", task, err)
		case len(v) != len(demo):
			r.errorf("task %q: JudgeSteps returned %d verdicts for the expert's %d actions; want one per action", task, len(v), len(demo))
		default:
			for i, good := range v {
				if !good {
					r.errorf("task %q: JudgeSteps labels step %d of the expert's %d BAD; every step of a demonstration that solves the task makes progress", task, i+1, len(demo))
				}
			}
		}
	}
	task := s.played[0]
	v, err := judge(task, []agentevolver.Message{malformedAction})
	switch {
	case err != nil:
		r.errorf("task %q: JudgeSteps of a malformed action: %v; a malformed action is a BAD step, not an error", task, err)
	case !slices.Equal(v, []bool{false}):
		r.errorf("task %q: JudgeSteps of one malformed action returned %v; want [false]", task, v)
	}
	if v, err := judge(task, nil); err != nil || len(v) != 0 {
		r.errorf("task %q: JudgeSteps of no actions returned %v, %v; want no verdicts and no error", task, v, err)
	}
	v, err = judge(unknownTasks[0].id, []agentevolver.Message{arbitraryAction})
	switch {
	case err == nil:
		r.errorf("JudgeSteps of an unknown task returned %v and no error; want an error", v)
	case isPanic(err) || isHung(err):
		r.errorf("JudgeSteps of an unknown task: %v", err)
	case v != nil:
		r.errorf("JudgeSteps of an unknown task returned verdicts %v along with its error", v)
	}
}

// checkTaskSynthesizer: a task synthesised from an episode is
// deterministic, self-describing (New, and every capability taking a task
// id, accept its id), verifiable (its instance shows its Query, the
// episode's own actions score 1 on it when they end the episode,
// Evaluator is env, OpenQuery is set); no actions achieve nothing
// (ErrNothingAchieved); an unknown seed is an error.
func (s *suite) checkTaskSynthesizer(r *report) {
	ts, ok := s.env.(envservice.TaskSynthesizer)
	if !ok {
		r.skip("the environment is not an envservice.TaskSynthesizer")
		return
	}
	synth := func(seed string, actions []agentevolver.Message) (agentevolver.Task, error) {
		return call(s, func(ctx context.Context) (agentevolver.Task, error) { return ts.SynthesizeTask(ctx, seed, actions) })
	}
	for _, seed := range s.played {
		actions := s.plans[seed].actions
		if len(actions) == 0 {
			continue
		}
		task, err := synth(seed, actions)
		switch {
		case errors.Is(err, envservice.ErrNothingAchieved):
			s.logf("task %q: SynthesizeTask of %s: nothing achieved", seed, s.plans[seed].source)
			continue
		case err != nil:
			r.errorf("task %q: SynthesizeTask of %s: %v", seed, s.plans[seed].source, err)
			continue
		}
		s.logf("task %q: SynthesizeTask of %s: %q", seed, s.plans[seed].source, task.TaskID)
		where := "task " + quote(seed) + ": the task synthesised from " + s.plans[seed].source
		if again, err := synth(seed, actions); err != nil || !reflect.DeepEqual(again, task) {
			r.errorf("%s is not deterministic: a second call gave %+v (error %v), the first %+v", where, again, err, task)
		}
		s.checkSynthesized(r, where, task, actions)
	}
	seed := s.played[0]
	if task, err := synth(seed, nil); !errors.Is(err, envservice.ErrNothingAchieved) {
		r.errorf("task %q: SynthesizeTask of no actions returned %+v, %v; want an error matching envservice.ErrNothingAchieved", seed, task, err)
	}
	if task, err := synth(unknownTasks[0].id, []agentevolver.Message{arbitraryAction}); err == nil || isPanic(err) || isHung(err) {
		r.errorf("SynthesizeTask of an unknown seed task returned %+v, %v; want an error", task, err)
	}
}

// checkSynthesized checks a synthesised task against the episode that
// made it.
func (s *suite) checkSynthesized(r *report, where string, task agentevolver.Task, actions []agentevolver.Message) {
	if task.TaskID == "" {
		r.errorf("%s has no TaskID", where)
		return
	}
	where += " (" + quote(task.TaskID) + ")"
	if task.Query == "" {
		r.errorf("%s has no Query", where)
	}
	if task.GroundTruth == "" {
		r.errorf("%s has no GroundTruth", where)
	}
	if !task.OpenQuery {
		r.errorf("%s has OpenQuery false; want true", where)
	}
	if task.Evaluator != agentevolver.EvaluatorEnv {
		r.errorf("%s has Evaluator %q; want %q", where, task.Evaluator, agentevolver.EvaluatorEnv)
	}
	h, err := s.create(r, task.TaskID, nil)
	if err != nil {
		r.errorf("%s: New: %v", where, err)
		return
	}
	defer func() {
		if err := h.close(); err != nil {
			r.errorf("%s: Close: %v", where, err)
		}
	}()
	init, err := h.initState()
	if err != nil {
		r.errorf("%s: InitState: %v", where, err)
		return
	}
	if task.Query != "" && !slices.ContainsFunc(init.State, func(m agentevolver.Message) bool { return strings.Contains(m.Content, task.Query) }) {
		r.errorf("%s: its instance's initial state does not show its Query %s", where, clip(task.Query))
	}
	ended := false
	for i, a := range actions {
		res, err := h.step(a, nil)
		if err != nil {
			r.errorf("%s: replaying the episode, Step %d of %d: %v", where, i+1, len(actions), err)
			return
		}
		if res.IsTerminated {
			ended = true
			break
		}
	}
	// An episode cut short may have achieved what cannot be scored before
	// the end (an answer to a question); a finished one is a perfect
	// episode of the task made of what it achieved.
	if score, err := h.evaluate(map[string]any{"sparse": true}); ended && (err != nil || score != 1) {
		r.errorf("%s: the episode that made it, replayed to its end, scores %v on it (error %v); want 1", where, score, err)
	} else if err != nil {
		r.errorf("%s: Evaluate: %v", where, err)
	}
	if ex, ok := s.env.(envservice.Expert); ok {
		if _, err := call(s, func(ctx context.Context) ([]agentevolver.Message, error) { return ex.Demonstrate(ctx, task.TaskID) }); err != nil {
			r.errorf("%s: Demonstrate: %v; every capability taking a task id must accept a synthesised one", where, err)
		}
	}
	if mp, ok := s.env.(envservice.TaskMetadataProvider); ok {
		if _, err := call(s, func(ctx context.Context) (envservice.TaskMetadata, error) { return mp.TaskMetadata(ctx, task.TaskID) }); err != nil {
			r.errorf("%s: TaskMetadata: %v; every capability taking a task id must accept a synthesised one", where, err)
		}
	}
	if so, ok := s.env.(envservice.StepOracle); ok {
		if v, err := call(s, func(ctx context.Context) ([]bool, error) { return so.JudgeSteps(ctx, task.TaskID, actions) }); err != nil || len(v) != len(actions) {
			r.errorf("%s: JudgeSteps returned %d verdicts for %d actions, %v; every capability taking a task id must accept a synthesised one", where, len(v), len(actions), err)
		}
	}
}

// explorerSteps is the length of the RandomExplorer check's walk.
const explorerSteps = 4

// checkRandomExplorer: a walk of random actions on the first played task
// is accepted step by step and never ends the episode; the same history
// and seed give the same action; an unknown task, and a history that ended
// the episode (the expert's), are errors.
func (s *suite) checkRandomExplorer(r *report) {
	re, ok := s.env.(envservice.RandomExplorer)
	if !ok {
		r.skip("the environment is not an envservice.RandomExplorer")
		return
	}
	const seed = 1
	random := func(task string, history []agentevolver.Message) (agentevolver.Message, error) {
		return call(s, func(ctx context.Context) (agentevolver.Message, error) {
			return re.RandomAction(ctx, task, history, seed)
		})
	}
	task := s.played[0]
	where := "task " + quote(task)
	h, err := s.create(r, task, nil)
	if err != nil {
		r.errorf("%s: New: %v", where, err)
		return
	}
	defer func() {
		if err := h.close(); err != nil {
			r.errorf("%s: Close: %v", where, err)
		}
	}()
	if _, err := h.initState(); err != nil {
		r.errorf("%s: InitState: %v", where, err)
		return
	}
	var walk []agentevolver.Message
	for i := range explorerSteps {
		a, err := random(task, walk)
		if err != nil {
			r.errorf("%s: RandomAction at step %d: %v", where, i+1, err)
			return
		}
		res, err := h.step(a, nil)
		if err != nil {
			r.errorf("%s: Step %d of a random walk (%s): %v", where, i+1, clip(a.Content), err)
			return
		}
		if res.IsTerminated {
			r.errorf("%s: the random action %s of step %d ended the episode; RandomAction never ends it", where, clip(a.Content), i+1)
			return
		}
		walk = append(walk, a)
	}
	if a, err := random(task, walk[:2]); err != nil || !reflect.DeepEqual(a, walk[2]) {
		r.errorf("%s: RandomAction is not deterministic: step 3 of the walk drew %s, again %s (error %v)", where, clip(walk[2].Content), clip(a.Content), err)
	}
	if a, err := random(unknownTasks[0].id, nil); err == nil || isPanic(err) || isHung(err) {
		r.errorf("RandomAction of an unknown task returned %s, %v; want an error", clip(a.Content), err)
	}
	if p := s.plans[task]; p.source == fromExpert {
		if a, err := random(task, p.actions); err == nil || isPanic(err) || isHung(err) {
			r.errorf("%s: RandomAction after the expert's demonstration, which ended the episode, returned %s, %v; want an error", where, clip(a.Content), err)
		}
	}
}

// checkProcessBacked: ProcessBacked gives the same answer every time.
func (s *suite) checkProcessBacked(r *report) {
	pb, ok := s.env.(envservice.ProcessBacked)
	if !ok {
		r.skip("the environment is not an envservice.ProcessBacked")
		return
	}
	ask := func() (bool, error) {
		return call(s, func(context.Context) (bool, error) { return pb.ProcessBacked(), nil })
	}
	first, err := ask()
	if err != nil {
		r.errorf("ProcessBacked: %v", err)
		return
	}
	if again, err := ask(); err != nil || again != first {
		r.errorf("ProcessBacked answered %v, then %v (error %v); it must answer the same every time", first, again, err)
	}
	s.logf("ProcessBacked: %v", first)
}
