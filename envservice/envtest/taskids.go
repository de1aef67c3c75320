package envtest

import (
	"context"
	"errors"
	"slices"

	"github.com/org/agentevolver/envclient"
)

// unknownSplit is a split no environment has.
const unknownSplit = "envtest-no-such-split"

// checkTaskIDs checks TaskIDs on each split and on an unknown one, and
// picks the tasks the later checks play.
func (s *suite) checkTaskIDs(r *report) {
	for _, split := range s.opts.Splits {
		ids, ok := s.listSplit(r, split)
		if !ok {
			continue
		}
		s.listed[split] = ids
		for _, id := range spread(ids, s.opts.Tasks) {
			if !slices.Contains(s.played, id) {
				s.played = append(s.played, id)
			}
		}
	}
	s.logf("playing %d tasks: %q", len(s.played), s.played)

	ids, err := s.taskIDs(s.ctx, unknownSplit)
	switch {
	case err == nil && len(ids) > 0:
		r.errorf("TaskIDs(%q), a split the environment does not have, listed %d tasks; want an error matching envclient.ErrBadRequest (or no tasks)", unknownSplit, len(ids))
	case err != nil && (isPanic(err) || isHung(err)):
		r.errorf("TaskIDs(%q): %v", unknownSplit, err)
	case err != nil && !errors.Is(err, envclient.ErrBadRequest):
		r.errorf("TaskIDs(%q), an unknown split: the error %s does not match envclient.ErrBadRequest, so the env service answers 500 (an environment failure) rather than 400 (a bad request)", unknownSplit, clip(err.Error()))
	}

	if len(s.opts.Splits) > 0 {
		split := s.opts.Splits[0]
		ctx, cancel := context.WithCancel(s.ctx)
		cancel()
		ids, err := s.taskIDs(ctx, split)
		switch {
		case err != nil && !errors.Is(err, context.Canceled):
			r.errorf("TaskIDs(%q) with a cancelled context: %v; want an error wrapping context.Canceled (or the tasks)", split, err)
		case err == nil && s.listed[split] != nil && !slices.Equal(ids, s.listed[split]):
			r.errorf("TaskIDs(%q) with a cancelled context listed other tasks than without (%d, not %d); want an error wrapping context.Canceled or the same tasks", split, len(ids), len(s.listed[split]))
		}
	}
}

// taskIDs calls TaskIDs under call, with ctx in place of the suite's.
func (s *suite) taskIDs(ctx context.Context, split string) ([]string, error) {
	return callIn(ctx, s, func(ctx context.Context) ([]string, error) { return s.env.TaskIDs(ctx, split, nil) })
}

// listSplit lists split twice and checks the listing.
func (s *suite) listSplit(r *report, split string) ([]string, bool) {
	ids, err := s.taskIDs(s.ctx, split)
	if err != nil {
		r.errorf("TaskIDs(%q): %v", split, err)
		return nil, false
	}
	if len(ids) == 0 {
		r.errorf("TaskIDs(%q) listed no tasks; list some, or leave the split out of Options.Splits", split)
		return nil, false
	}
	seen := make(map[string]int, len(ids))
	dups := 0
	for i, id := range ids {
		if id == "" {
			r.errorf("TaskIDs(%q) lists an empty task id at index %d; the env service refuses to create an empty task_id", split, i)
		}
		if j, ok := seen[id]; ok {
			if dups++; dups <= 3 {
				r.errorf("TaskIDs(%q) lists %q twice, at index %d and %d", split, id, j, i)
			}
			continue
		}
		seen[id] = i
	}
	if dups > 3 {
		r.errorf("TaskIDs(%q) lists %d duplicate ids in all", split, dups)
	}
	again, err := s.taskIDs(s.ctx, split)
	switch {
	case err != nil:
		r.errorf("TaskIDs(%q), called a second time: %v", split, err)
	case !slices.Equal(ids, again):
		i := 0
		for i < min(len(ids), len(again)) && ids[i] == again[i] {
			i++
		}
		r.errorf("TaskIDs(%q) is not deterministic: a second call listed %d tasks (the first %d), differing from index %d on", split, len(again), len(ids), i)
	}
	s.logf("TaskIDs(%q): %d tasks", split, len(ids))
	return ids, true
}

// spread returns n of ids, the first, the last and evenly between them,
// in order; all of them when there are no more than n.
func spread(ids []string, n int) []string {
	if len(ids) <= n {
		return ids
	}
	if n == 1 {
		return ids[:1]
	}
	out := make([]string, n)
	for i := range n {
		out[i] = ids[i*(len(ids)-1)/(n-1)]
	}
	return out
}
