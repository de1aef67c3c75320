package grader

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/org/agentevolver"
)

// Defaults of Limits.
const (
	// DefaultMaxStepChars bounds each message shown to a judge (and the
	// query and the reference solution), in code points: about 2,000
	// tokens.
	DefaultMaxStepChars = 8000
	// DefaultMaxChars bounds a whole rendered trajectory, in code points:
	// about 25,000 tokens.
	DefaultMaxChars = 100_000
)

// Limits bound the text a judge is shown. The reference shows everything,
// so a long episode could overflow the judge's context window and fail on
// every retry; here a long message keeps its beginning and its end, and a
// long trajectory its first and last messages, with a marker saying how
// much was left out.
type Limits struct {
	// MaxStepChars bounds the content of each message, and the query and
	// the reference solution, in code points; 0 means DefaultMaxStepChars,
	// negative means no bound.
	MaxStepChars int
	// MaxChars bounds the whole rendered trajectory, in code points; 0
	// means DefaultMaxChars, negative means no bound. The first message is
	// always kept.
	MaxChars int
}

func (l Limits) withDefaults() Limits {
	if l.MaxStepChars == 0 {
		l.MaxStepChars = DefaultMaxStepChars
	}
	if l.MaxChars == 0 {
		l.MaxChars = DefaultMaxChars
	}
	return l
}

// SplitTrajectory separates an episode's messages the way the reference's
// judges read them (reference §4.8): the first message is the system
// prompt, the second, which must be a user message, is the task query, and
// the rest is what the agent did. Episodes of agentflow always start this
// way. It returns an error matching ErrBadTrajectory for fewer than two
// messages or a second message that is not the user's. The returned slice
// shares steps' backing array.
func SplitTrajectory(steps []agentevolver.Message) (query string, agent []agentevolver.Message, err error) {
	if len(steps) < 2 || steps[1].Role != agentevolver.RoleUser {
		return "", nil, fmt.Errorf("%w: want a system message, then the user's query, got roles %q", ErrBadTrajectory, roles(steps, 2))
	}
	return steps[1].Content, steps[2:], nil
}

// RenderSteps writes the agent part of a trajectory (after
// SplitTrajectory) as the reference's judges show it: each assistant
// message i (0-based in agent) as
//
//	>>> STEP {i/2} <<<
//	<|ACTION|>
//	{content}
//	<|END|>
//
// and each user message as an <|OBSERVATION|> ... <|END|> block, every
// block followed by a blank line. Steps are numbered i/2 as in the
// reference, so two assistant messages in a row share a number. The first
// message must be an assistant message and every message an assistant or
// a user message; otherwise the error matches ErrBadTrajectory. Contents
// and the whole text are bounded by lim.
func RenderSteps(agent []agentevolver.Message, lim Limits) (string, error) {
	lim = lim.withDefaults()
	if len(agent) == 0 || agent[0].Role != agentevolver.RoleAssistant {
		return "", fmt.Errorf("%w: the agent's part must start with an assistant message, got roles %q", ErrBadTrajectory, roles(agent, 1))
	}
	blocks := make([]string, len(agent))
	for i, m := range agent {
		var b strings.Builder
		switch m.Role {
		case agentevolver.RoleAssistant:
			b.WriteString(">>> STEP ")
			b.WriteString(strconv.Itoa(i / 2))
			b.WriteString(" <<<\n<|ACTION|>\n")
		case agentevolver.RoleUser:
			b.WriteString("<|OBSERVATION|>\n")
		default:
			return "", fmt.Errorf("%w: message %d of the agent's part has role %q; roles must be assistant or user", ErrBadTrajectory, i, m.Role)
		}
		b.WriteString(clipMiddle(m.Content, lim.MaxStepChars))
		b.WriteString("\n<|END|>\n\n")
		blocks[i] = b.String()
	}
	return joinBounded(blocks, lim.MaxChars), nil
}

// renderDialogue writes every message as "{ROLE}: {content}" followed by a
// blank line, the llm-gt judge's rendering in the reference.
func renderDialogue(steps []agentevolver.Message, lim Limits) string {
	lim = lim.withDefaults()
	blocks := make([]string, len(steps))
	for i, m := range steps {
		blocks[i] = strings.ToUpper(m.Role) + ": " + clipMiddle(m.Content, lim.MaxStepChars) + "\n\n"
	}
	return joinBounded(blocks, lim.MaxChars)
}

// clipMiddle bounds s to about n code points, keeping its first and last
// n/2 and saying how many were cut. n < 0 means no bound.
func clipMiddle(s string, n int) string {
	if n < 0 || len(s) <= n {
		return s
	}
	count := utf8.RuneCountInString(s)
	if count <= n {
		return s
	}
	head, tail := n-n/2, n/2
	cut := count - head - tail
	return prefixRunes(s, head) + "\n[… " + strconv.Itoa(cut) + " characters omitted …]\n" + suffixRunes(s, tail)
}

// joinBounded concatenates blocks; when they exceed max code points it
// keeps the first block, then further blocks up to half the budget, then
// as many of the last blocks as fit, with a marker for those left out.
func joinBounded(blocks []string, max int) string {
	sizes := make([]int, len(blocks))
	total := 0
	for i, b := range blocks {
		sizes[i] = utf8.RuneCountInString(b)
		total += sizes[i]
	}
	if max < 0 || total <= max {
		return strings.Join(blocks, "")
	}
	used, i := 0, 0
	for i < len(blocks) && (i == 0 || used+sizes[i] <= max/2) {
		used += sizes[i]
		i++
	}
	const markerSize = 40 // an upper bound on the marker's length
	j := len(blocks)
	for j > i && used+sizes[j-1]+markerSize <= max {
		used += sizes[j-1]
		j--
	}
	if j == i {
		return strings.Join(blocks, "")
	}
	var b strings.Builder
	for _, s := range blocks[:i] {
		b.WriteString(s)
	}
	fmt.Fprintf(&b, "[… %d messages omitted …]\n\n", j-i)
	for _, s := range blocks[j:] {
		b.WriteString(s)
	}
	return b.String()
}

// prefixRunes returns the first n code points of s.
func prefixRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// suffixRunes returns the last n code points of s.
func suffixRunes(s string, n int) string {
	i := len(s)
	for n > 0 && i > 0 {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		n--
	}
	return s[i:]
}

// roles lists the roles of up to n first messages, for error messages.
func roles(msgs []agentevolver.Message, n int) []string {
	out := make([]string, 0, min(n, len(msgs)))
	for _, m := range msgs[:min(n, len(msgs))] {
		out = append(out, m.Role)
	}
	return out
}
