package experience

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
)

// DefaultWorkedExampleChars bounds a worked example's text, in code
// points. Every expert solution of toolworld's default splits fits (the
// longest takes 265, the mean 140), and three examples with the injection
// template stay within a few hundred tokens of a small policy's context of
// about a thousand.
const DefaultWorkedExampleChars = 300

// WorkedExampleSummarizer keeps each successful episode as a worked
// example: the task and the actions that solved it. It needs no language
// model, so the experience mechanism can be run and measured with the
// small in-process policy. The zero value is ready to use.
//
// An episode is a success when its Reward.Outcome is above Threshold. Its
// experience has the text
//
//	Task: What is the phone number of the person I meet on Tue?
//	Solved with:
//	calendar.list day=Tue
//	contacts.find name=Sam
//	task.finish answer=555-1457
//
// one action per line (an action of several lines keeps them), as the
// policy writes them: an action that holds one fenced block (toolworld's
// ```tool blocks) is written as the block's body, so the example shows the
// calls and not the fences and prose around them; any other action as its
// text; thinking is stripped, and structured tool calls are written as
// JSON lines {"name": …, "arguments": …}. The system prompt already shows
// the fence, the calls are what a policy can copy and adapt to a similar
// task, and fences would add a dozen characters per call to a small
// context. Observations are left out for the same reason.
//
// Actions that were answered with an error (an observation starting with
// the word "error", as toolworld's are) are left out unless KeepErrors is
// set: the episode succeeded despite them, and a policy should not copy
// them. Failed episodes give no experience, nor do episodes that failed in
// the environment or the model (Error), discarded ones, those with a
// non-finite outcome and those without an action.
//
// The text is bounded by MaxChars: a long task is cut (ending in "…") to
// leave room for the actions, and an episode whose actions alone do not fit
// in the bound gives no experience, since a cut solution would teach a
// wrong one. Key is the task's query (the first user message, without any
// experience injected into it), the "Task:" line Trajectory.Query when set,
// TaskID the episode's task, Score its outcome and Source
// SourceWorkedExample; ID and Created are left for the store.
//
// Episodes of the same task with the same actions give one experience,
// with the best outcome. Experiences come sorted by task id, key and text,
// whatever the order of the trajectories. A WorkedExampleSummarizer is
// safe for concurrent use when its fields are not changed.
type WorkedExampleSummarizer struct {
	// Threshold: an episode whose outcome is above it is a success; the
	// zero value keeps every episode with a positive outcome.
	Threshold float64
	// MaxChars bounds each experience's text, in code points; 0 or less
	// means DefaultWorkedExampleChars.
	MaxChars int
	// KeepErrors keeps actions that were answered with an error.
	KeepErrors bool
	// Logger receives a debug record per episode that gave no experience
	// and an info record per call; nil discards them.
	Logger *slog.Logger
}

var _ Summarizer = (*WorkedExampleSummarizer)(nil)

// Summarize implements Summarizer; see WorkedExampleSummarizer for how. It
// fails only when ctx has ended.
func (s *WorkedExampleSummarizer) Summarize(ctx context.Context, trajectories []agentevolver.Trajectory) ([]Experience, error) {
	log := s.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	type identity struct{ task, key, text string }
	best := map[identity]int{} // index in out
	var out []Experience
	for _, t := range trajectories {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("experience: worked examples: %w", err)
		}
		ep, ok := viewEpisode(t)
		if !ok || !(ep.outcome > s.Threshold) {
			continue
		}
		text, ok := s.text(ep)
		if !ok {
			log.DebugContext(ctx, "experience: episode gives no worked example", "task_id", ep.taskID,
				"steps", len(ep.steps), "max_chars", s.maxChars())
			continue
		}
		id := identity{ep.taskID, ep.key, text}
		if i, dup := best[id]; dup {
			out[i].Score = max(out[i].Score, ep.outcome)
			continue
		}
		best[id] = len(out)
		out = append(out, Experience{Text: text, Key: ep.key, TaskID: ep.taskID, Score: ep.outcome, Source: SourceWorkedExample})
	}
	slices.SortFunc(out, func(a, b Experience) int {
		return cmp.Or(cmp.Compare(a.TaskID, b.TaskID), cmp.Compare(a.Key, b.Key), cmp.Compare(a.Text, b.Text))
	})
	log.InfoContext(ctx, "experience: worked examples", "trajectories", len(trajectories), "examples", len(out))
	return out, nil
}

func (s *WorkedExampleSummarizer) maxChars() int {
	if s.MaxChars <= 0 {
		return DefaultWorkedExampleChars
	}
	return s.MaxChars
}

// Parts of a worked example's text.
const (
	workedTaskPrefix = "Task: "
	workedSolvedWith = "\nSolved with:\n"
)

// text writes ep's worked example, reporting false when it has no action
// to show or its actions do not fit in MaxChars.
func (s *WorkedExampleSummarizer) text(ep summaryEpisode) (string, bool) {
	var actions []string
	for _, st := range ep.steps {
		if !s.KeepErrors && isErrorObservation(st.observation) {
			continue
		}
		if a := workedAction(st.message); a != "" {
			actions = append(actions, a)
		}
	}
	if len(actions) == 0 {
		return "", false
	}
	solution := strings.Join(actions, "\n")
	task := oneLine(ep.task)
	limit := s.maxChars()
	room := limit - utf8.RuneCountInString(workedTaskPrefix+workedSolvedWith+solution)
	// A task cut to less than this says too little to be worth the example.
	const minTask = 16
	n := utf8.RuneCountInString(task)
	if room < min(n, minTask) {
		return "", false
	}
	return workedTaskPrefix + clipCodePoints(task, room) + workedSolvedWith + solution, true
}

// workedAction is an action as a worked example shows it: the body of an
// action that is one fenced block, else its text; thinking stripped,
// structured tool calls as JSON lines.
func workedAction(m agentevolver.Message) string {
	m.Content = fencedBody(contextmgr.StripThink(m.Content))
	return actionText(m)
}

// fencedBody returns the body of the one fenced code block in s (the lines
// between "```lang" and "```"), or s when it has none or several.
func fencedBody(s string) string {
	if strings.Count(s, "```") != 2 {
		return s
	}
	_, inner, _ := strings.Cut(s, "```")
	inner, _, _ = strings.Cut(inner, "```")
	if info, body, ok := strings.Cut(inner, "\n"); ok && !strings.ContainsAny(strings.TrimSpace(info), " \t") {
		inner = body // drop the info string ("tool")
	}
	if body := strings.TrimSpace(inner); body != "" {
		return body
	}
	return s
}

// isErrorObservation reports an observation that says the action failed:
// it starts with the word "error" in any case ("error: …", "Error …").
func isErrorObservation(obs string) bool {
	const word = "error"
	if len(obs) < len(word) || !strings.EqualFold(obs[:len(word)], word) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(obs[len(word):])
	return len(obs) == len(word) || !unicode.IsLetter(r)
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
