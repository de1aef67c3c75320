package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
)

// transcriptIndent starts every message line under its role label.
const transcriptIndent = "  "

// printer writes transcripts and the summary.
type printer struct {
	w          io.Writer
	width      int
	maxChars   int
	showSystem bool
	maxSteps   int
}

// episode is a finished episode as printed.
type episode struct {
	res      agentflow.Result
	exchange *exchange // nil when the recording is missing
}

// turns is the number of actions the agent took.
func (e episode) turns() int {
	if e.exchange != nil {
		return len(e.exchange.turns)
	}
	n := 0
	for _, m := range e.res.Trajectory.Steps {
		if m.Role == agentevolver.RoleAssistant {
			n++
		}
	}
	return n
}

// ending says how the episode ended.
func (e episode) ending(maxSteps int) string {
	t := e.res.Trajectory
	switch {
	case t.Error != "":
		return "environment error"
	case t.IsTerminated:
		return "finished"
	case e.turns() >= maxSteps:
		return "step limit"
	}
	return "context full"
}

// transcript prints one episode: every message under its role label, then
// the score.
func (p *printer) transcript(i, total int, e episode) {
	t := e.res.Trajectory
	fmt.Fprintf(p.w, "=== episode %d/%d: task %s, rollout %s ===\n", i, total, sanitize(t.TaskID), sanitize(t.RolloutID))
	if x := e.exchange; x != nil {
		for _, m := range x.initial {
			p.initial(m)
		}
		for k, tr := range x.turns {
			p.message(fmt.Sprintf("assistant, turn %d", k+1), tr.action)
			p.observation(tr)
		}
	} else {
		// No recording (it should not happen): the trajectory as the
		// policy saw it.
		for _, m := range t.Steps {
			p.message(m.Role, m)
		}
	}
	if t.Error != "" {
		p.block("error", t.Error)
	}
	status := "no success"
	if t.Reward.SuccessRate >= 1 {
		status = "success"
	}
	fmt.Fprintf(p.w, "--- score %.2f (%s), %d turns, %s", t.Reward.Outcome, status, e.turns(), e.ending(p.maxSteps))
	if t.Reward.Madness < 0 {
		fmt.Fprint(p.w, ", degenerate output (repetition or leaked chat markup)")
	}
	fmt.Fprint(p.w, "\n\n")
}

// initial prints an initial message; a system prompt is shortened to its
// first line unless showSystem.
func (p *printer) initial(m agentevolver.Message) {
	if m.Role != agentevolver.RoleSystem || p.showSystem {
		p.message(m.Role, m)
		return
	}
	first, rest, _ := strings.Cut(strings.TrimSpace(m.Content), "\n")
	lines := wrap(first, p.width, transcriptIndent)
	fmt.Fprintf(p.w, "[%s]\n", sanitize(m.Role))
	for _, l := range lines {
		fmt.Fprintln(p.w, l)
	}
	if rest = strings.TrimSpace(rest); rest != "" {
		fmt.Fprintf(p.w, "%s(%d more lines; --show-system prints them)\n", transcriptIndent, strings.Count(rest, "\n")+1)
	}
}

// observation prints the environment's answer to one action.
func (p *printer) observation(tr turn) {
	if tr.err != nil {
		p.block("environment error", tr.err.Error())
		return
	}
	label := "environment"
	if tr.result.IsTerminated {
		label += fmt.Sprintf(", episode over, reward %g", tr.result.Reward)
	}
	if len(tr.result.State) == 0 {
		p.block(label, "(no observation)")
		return
	}
	for _, m := range tr.result.State {
		l := label
		if m.Role != agentevolver.RoleUser {
			l += ", " + sanitize(m.Role)
		}
		p.message(l, m)
	}
}

// message prints a message's text and tool calls under a label.
func (p *printer) message(label string, m agentevolver.Message) {
	text := m.Content
	for _, c := range m.ToolCalls {
		if text != "" {
			text += "\n"
		}
		text += fmt.Sprintf("call %s %s", c.Function.Name, c.Function.Arguments)
	}
	if text == "" {
		text = "(empty)"
	}
	p.block(sanitize(label), text)
}

// block prints a label and text, clipped and wrapped.
func (p *printer) block(label, text string) {
	fmt.Fprintf(p.w, "[%s]\n", label)
	for _, l := range wrap(clipText(text, p.maxChars), p.width, transcriptIndent) {
		fmt.Fprintln(p.w, l)
	}
}

// summary prints one row per finished episode, the failures, and the mean
// score and success rate.
func (p *printer) summary(eps []episode, failures []*agentflow.RolloutError, rollouts, n int, interrupted bool) {
	fmt.Fprintln(p.w, "=== summary ===")
	if len(eps) > 0 {
		tw := tabwriter.NewWriter(p.w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TASK\tROLLOUT\tSCORE\tTURNS\tEND")
		for _, e := range eps {
			t := e.res.Trajectory
			fmt.Fprintf(tw, "%s\t%s\t%.2f\t%d\t%s\n", sanitize(t.TaskID), sanitize(t.RolloutID), t.Reward.Outcome, e.turns(), e.ending(p.maxSteps))
		}
		_ = tw.Flush()
	}
	for _, f := range failures {
		p.block(fmt.Sprintf("failed: task %s, rollout %s, %d attempts", sanitize(f.TaskID), sanitize(f.RolloutID), f.Attempts), f.Err.Error())
	}

	var sum float64
	solved := 0
	tasks := map[string]bool{} // task id -> solved by some episode
	for _, e := range eps {
		r := e.res.Trajectory.Reward
		sum += r.Outcome
		ok := r.SuccessRate >= 1
		if ok {
			solved++
		}
		tasks[e.res.Trajectory.DataID] = tasks[e.res.Trajectory.DataID] || ok
	}
	fmt.Fprintf(p.w, "episodes: %d finished", len(eps))
	if len(failures) > 0 {
		fmt.Fprintf(p.w, ", %d failed", len(failures))
	}
	if missing := rollouts - len(eps) - len(failures); interrupted && missing > 0 {
		fmt.Fprintf(p.w, ", %d unfinished (interrupted)", missing)
	}
	if len(eps) == 0 {
		fmt.Fprintln(p.w)
		return
	}
	fmt.Fprintf(p.w, " | mean score %.3f | success rate %.1f%% (%d/%d)\n", sum/float64(len(eps)), 100*float64(solved)/float64(len(eps)), solved, len(eps))
	if n > 1 {
		k := 0
		for _, ok := range tasks {
			if ok {
				k++
			}
		}
		fmt.Fprintf(p.w, "tasks solved by at least one of %d episodes: %d/%d\n", n, k, len(tasks))
	}
}
