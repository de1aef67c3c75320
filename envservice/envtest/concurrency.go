package envtest

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/org/agentevolver"
)

// checkConcurrency runs Options.Concurrency episodes at once, each on its
// own instance, on the played tasks with at least two on the same task,
// and lists the first split alongside each; with Options.Deterministic each
// episode must equal the sequential one of its task.
func (s *suite) checkConcurrency(r *report) {
	n := s.opts.Concurrency
	if n < 0 {
		r.skip("Options.Concurrency is negative")
		return
	}
	// Episode i plays task i mod k: with k < n, tasks 0.. are played twice
	// or more at once.
	k := max(1, min(len(s.played), n-1))
	split := s.opts.Splits[0]
	want, listed := s.listed[split]
	trs := make([]*transcript, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			task := s.played[i%k]
			trs[i] = s.play(r, task, fmt.Sprintf("concurrent episode %d of %d: ", i+1, n), concurrent)
			if !listed {
				return
			}
			ids, err := s.taskIDs(s.ctx, split)
			switch {
			case err != nil:
				r.errorf("concurrent episode %d of %d: TaskIDs(%q) alongside the episodes: %v", i+1, n, split, err)
			case !slices.Equal(ids, want):
				r.errorf("concurrent episode %d of %d: TaskIDs(%q) alongside the episodes listed other tasks (%d) than alone (%d)", i+1, n, split, len(ids), len(want))
			}
		})
	}
	wg.Wait()
	if !s.opts.Deterministic {
		s.logf("%d episodes ran at once on %d tasks; not compared with the sequential ones (Options.Deterministic is false)", n, k)
		return
	}
	for i, tr := range trs {
		task := s.played[i%k]
		seq := s.seq[task]
		if tr == nil || seq == nil {
			continue
		}
		if diff := tr.diff(seq); diff != "" {
			r.errorf("concurrent episode %d of %d, task %q, differs from the sequential episode of the task: %s (Options.Deterministic is set)", i+1, n, task, diff)
		}
	}
}

// diff describes the first difference between two transcripts of a task,
// or returns "".
func (t *transcript) diff(want *transcript) string {
	if d := diffMessages(t.init, want.init); d != "" {
		return "initial state " + d
	}
	for i := range min(len(t.steps), len(want.steps)) {
		got, w := t.steps[i], want.steps[i]
		if d := diffMessages(got.State, w.State); d != "" {
			return fmt.Sprintf("step %d: observation %s", i+1, d)
		}
		if got.Reward != w.Reward {
			return fmt.Sprintf("step %d: reward %v, sequentially %v", i+1, got.Reward, w.Reward)
		}
		if got.IsTerminated != w.IsTerminated {
			return fmt.Sprintf("step %d: is_terminated %v, sequentially %v", i+1, got.IsTerminated, w.IsTerminated)
		}
	}
	if len(t.steps) != len(want.steps) {
		return fmt.Sprintf("%d steps, sequentially %d", len(t.steps), len(want.steps))
	}
	if !sameScore(t.dense, want.dense) {
		return fmt.Sprintf("score %v, sequentially %v", t.dense, want.dense)
	}
	if !sameScore(t.sparse, want.sparse) {
		return fmt.Sprintf("sparse score %v, sequentially %v", t.sparse, want.sparse)
	}
	return ""
}

func sameScore(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// diffMessages describes the first difference between two message lists,
// or returns "".
func diffMessages(got, want []agentevolver.Message) string {
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		switch {
		case g.Role != w.Role:
			return fmt.Sprintf("message %d: role %q, sequentially %q", i, g.Role, w.Role)
		case g.Content != w.Content:
			return fmt.Sprintf("message %d: %s", i, diffText(g.Content, w.Content))
		case g.Name != w.Name || g.ToolCallID != w.ToolCallID || !slices.Equal(g.ToolCalls, w.ToolCalls):
			return fmt.Sprintf("message %d: name, tool call id or tool calls differ", i)
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d messages, sequentially %d", len(got), len(want))
	}
	return ""
}

// diffText shows where two texts first differ.
func diffText(got, want string) string {
	i := 0
	for i < min(len(got), len(want)) && got[i] == want[i] {
		i++
	}
	from := max(0, i-20)
	excerpt := func(s string) string {
		to := min(len(s), i+40)
		return fmt.Sprintf("%q", s[from:to])
	}
	return fmt.Sprintf("from byte %d, %s, sequentially %s", i, excerpt(got), excerpt(want))
}
