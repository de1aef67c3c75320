package experience

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
)

// Sources of the experiences the package's summarisers make
// (Experience.Source).
const (
	// SourceLLM marks lessons an LLMSummarizer distilled.
	SourceLLM = "llm"
	// SourceWorkedExample marks worked examples a WorkedExampleSummarizer
	// kept.
	SourceWorkedExample = "worked_example"
)

// ErrMalformedAnswer reports a summary model's answer that holds no lesson
// in the required format (and is not the answer NONE). The group it
// answered gives no experiences.
var ErrMalformedAnswer = errors.New("experience: malformed summary answer")

// GroupError reports one group of trajectories a summariser could not
// summarise, and why. A group is what one request covers: trajectories
// of one task (LLMSummarizerConfig.BatchSize at most).
type GroupError struct {
	// TaskID is the group's task (its query when the trajectories carry no
	// task id).
	TaskID string
	// Trajectories is the number of trajectories in the group.
	Trajectories int
	// Err is the cause: it matches ErrMalformedAnswer for an answer that
	// could not be parsed, llm.ErrUnavailable for an endpoint outage, or is
	// the model's own error.
	Err error
}

// Error implements error.
func (e *GroupError) Error() string {
	return fmt.Sprintf("experience: summarising task %q (%d trajectories): %v", e.TaskID, e.Trajectories, e.Err)
}

// Unwrap returns the cause.
func (e *GroupError) Unwrap() error { return e.Err }

// SummaryError reports the groups of one Summarize call that gave no
// experiences because their request or its answer failed. It comes with
// the experiences of the groups that succeeded. errors.Is sees through it
// to every group's cause, so errors.Is(err, llm.ErrUnavailable) tells an
// outage from bad answers (errors.Is(err, ErrMalformedAnswer)); errors.As
// gives the counts.
type SummaryError struct {
	// Groups is the number of groups the call had to summarise.
	Groups int
	// Failed are the groups that failed, in the order of the groups.
	Failed []*GroupError
}

// Error implements error.
func (e *SummaryError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "experience: %d of %d summary groups failed", len(e.Failed), e.Groups)
	if len(e.Failed) > 0 {
		b.WriteString("; first: ")
		b.WriteString(e.Failed[0].Error())
	}
	return b.String()
}

// Unwrap returns the failed groups' errors.
func (e *SummaryError) Unwrap() []error {
	errs := make([]error, len(e.Failed))
	for i, g := range e.Failed {
		errs[i] = g
	}
	return errs
}

// Count returns the number of failed groups whose cause matches target
// (errors.Is), such as ErrMalformedAnswer or llm.ErrUnavailable.
func (e *SummaryError) Count(target error) int {
	n := 0
	for _, g := range e.Failed {
		if errors.Is(g.Err, target) {
			n++
		}
	}
	return n
}

// summaryEpisode is the part of a trajectory the summarisers read.
type summaryEpisode struct {
	taskID string
	// key is the first user message's text with the injected experience
	// removed: what retrieval will compare queries with.
	key string
	// task is the instruction shown in summaries: Trajectory.Query, or key
	// when it is empty.
	task    string
	steps   []summaryStep
	outcome float64
}

// summaryStep is one action of the agent and what the environment answered.
type summaryStep struct {
	// message is the agent's turn; action is its text with thinking
	// stripped and structured tool calls written out as JSON lines.
	message     agentevolver.Message
	action      string
	observation string
}

// viewEpisode reads a trajectory. It reports false for a trajectory no
// summariser should learn from: one that failed in the environment or the
// model (Error), was discarded, has a non-finite outcome, no task text or
// no action.
//
// The task is the user message after the leading system messages (else
// Trajectory.Query); the agent's actions are the assistant messages after
// it, each followed by the non-assistant messages up to the next action as
// its observation. Experience injected at rollout
// (Trajectory.Experience.Injected, and anything matching
// contextmgr.DefaultExperienceTemplate) is removed from the task, so an
// experience never carries older experiences along.
func viewEpisode(t agentevolver.Trajectory) (summaryEpisode, bool) {
	if t.Error != "" || t.Discarded || math.IsNaN(t.Reward.Outcome) || math.IsInf(t.Reward.Outcome, 0) {
		return summaryEpisode{}, false
	}
	ep := summaryEpisode{taskID: t.TaskID, outcome: t.Reward.Outcome}
	start := slices.IndexFunc(t.Steps, func(m agentevolver.Message) bool { return m.Role != agentevolver.RoleSystem })
	if start >= 0 && t.Steps[start].Role == agentevolver.RoleUser {
		ep.key = cleanQuery(t.Steps[start].Content, t.Experience.Injected)
		start++
	} else if start < 0 {
		start = len(t.Steps)
	}
	ep.task = strings.TrimSpace(t.Query)
	if ep.key == "" {
		ep.key = ep.task
	}
	if ep.task == "" {
		ep.task = ep.key
	}
	for _, m := range t.Steps[start:] {
		if m.Role == agentevolver.RoleAssistant {
			ep.steps = append(ep.steps, summaryStep{message: m, action: actionText(m)})
			continue
		}
		if n := len(ep.steps); n > 0 && strings.TrimSpace(m.Content) != "" {
			if ep.steps[n-1].observation != "" {
				ep.steps[n-1].observation += "\n"
			}
			ep.steps[n-1].observation += strings.TrimSpace(m.Content)
		}
	}
	if ep.key == "" || len(ep.steps) == 0 {
		return summaryEpisode{}, false
	}
	return ep, true
}

// defaultStripper removes experience injected with the default template.
var defaultStripper = &contextmgr.TemplateStripper{}

// cleanQuery removes injected experience from a task's user message: each
// text the injector reported, then anything the default template wrapped.
func cleanQuery(content string, injected []string) string {
	for _, exp := range injected {
		if exp != "" {
			content = strings.Replace(content, exp, "", 1)
		}
	}
	if _, cleaned, ok := defaultStripper.Strip(content, agentevolver.TrainDiscard); ok {
		content = cleaned
	}
	return strings.TrimSpace(content)
}

// actionText is an assistant turn as text: its content with thinking
// stripped, then one JSON line {"name": …, "arguments": …} per structured
// tool call.
func actionText(m agentevolver.Message) string {
	parts := []string{}
	if c := strings.TrimSpace(contextmgr.StripThink(m.Content)); c != "" {
		parts = append(parts, c)
	}
	for _, tc := range m.ToolCalls {
		parts = append(parts, toolCallLine(tc))
	}
	return strings.Join(parts, "\n")
}

// toolCallLine writes a structured tool call as one JSON line; arguments
// that are not valid JSON are kept as a string.
func toolCallLine(tc agentevolver.ToolCall) string {
	var args any = tc.Function.Arguments
	if a := strings.TrimSpace(tc.Function.Arguments); a != "" && json.Valid([]byte(a)) {
		args = json.RawMessage(a)
	} else if a == "" {
		args = json.RawMessage("{}")
	}
	b, err := json.Marshal(struct {
		Name      string `json:"name"`
		Arguments any    `json:"arguments"`
	}{tc.Function.Name, args})
	if err != nil { // unreachable: both fields always marshal
		return tc.Function.Name + " " + tc.Function.Arguments
	}
	return string(b)
}

// clipCodePoints cuts s to at most max code points, ending a cut text with "…".
// The cut falls after the last whole word when that keeps at least two
// thirds of the room. max <= 0 leaves s unchanged.
func clipCodePoints(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	n, cut, word := 0, 0, -1 // word: byte offset of the last white space
	for i, r := range s {
		if n == max-1 {
			cut = i
			if !unicode.IsSpace(r) && word >= 0 && utf8.RuneCountInString(s[:word]) >= 2*(max-1)/3 {
				cut = word
			}
			break
		}
		if unicode.IsSpace(r) {
			word = i
		}
		n++
	}
	return strings.TrimRightFunc(s[:cut], unicode.IsSpace) + "…"
}

// stripAnswerThinking returns the answer part of a completion: the text after
// the last "</think>" when there is one (a reasoning model's thinking, with
// or without its opening tag); else the text before an unterminated
// "<think>" (thinking cut off by the token limit holds no answer); else the
// whole text. Lessons drafted while thinking are not the answer.
func stripAnswerThinking(s string) string {
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		s = s[i+len("</think>"):]
	} else if i := strings.Index(s, "<think>"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// formatOutcome writes an outcome with two decimals.
func formatOutcome(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
