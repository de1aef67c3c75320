package cues

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of model replies, which are untrusted input.
const (
	// MaxReplyBytes bounds the part of a reply that is parsed; the rest is
	// ignored.
	MaxReplyBytes = 1 << 20
	// MaxTasksPerReply bounds the task blocks read from one reply.
	MaxTasksPerReply = 64
	// MaxFieldBytes bounds a task's description, query or action sequence;
	// a longer field drops its block.
	MaxFieldBytes = 64 << 10
	// MaxConcepts bounds the concepts read from one reply.
	MaxConcepts = 256
	// MaxConceptBytes bounds one concept.
	MaxConceptBytes = 200
	// MaxActions bounds the actions SplitActions returns.
	MaxActions = 64
)

// clipReply cuts s to MaxReplyBytes on a rune boundary.
func clipReply(s string) string {
	if len(s) <= MaxReplyBytes {
		return s
	}
	n := MaxReplyBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ParseAction reads the action of an explorer's or actor's reply
// (reference §2.7.2): the text inside the first <action>…</action>,
// stripped, with ok true. A reply without a complete pair of tags gives
// the whole reply stripped and ok false, as the reference falls back to;
// the caller counts it. An empty result means the reply held nothing.
func ParseAction(reply string) (action string, ok bool) {
	reply = clipReply(reply)
	if i := strings.Index(reply, "<action>"); i >= 0 {
		rest := reply[i+len("<action>"):]
		if j := strings.Index(rest, "</action>"); j >= 0 {
			return strings.TrimSpace(rest[:j]), true
		}
	}
	return strings.TrimSpace(reply), false
}

// ParsedTask is one <task> block of an abstractor's reply.
type ParsedTask struct {
	Description string
	Query       string
	// Confidence is the block's confidence, 1 when absent or unreadable,
	// clamped into [0, 1].
	Confidence float64
	// GT is the action sequence, its lines' indentation kept (common
	// leading indentation removed), "" when the block has none.
	GT string
}

// TaskParseReport says what ParseTasks found besides the tasks.
type TaskParseReport struct {
	// Blocks is the number of <task> blocks examined.
	Blocks int
	// Incomplete counts blocks without a description or a query, which
	// are dropped, and TooLong blocks with a field over MaxFieldBytes.
	Incomplete, TooLong int
	// Truncated reports a reply cut at MaxReplyBytes or MaxTasksPerReply.
	Truncated bool
}

// ParseTasks reads an abstractor's reply (reference §2.8.2 step 4): every
// <task>…</task> block, shortest body first, holding lines
// "Description: …", "Query: …", "Confidence: …" and "ActionSequence:"
// followed by the steps. Labels are matched on the trimmed line, with
// surrounding markdown emphasis (**Query:**) ignored; a label's value may
// continue on the lines after it until the next label. Blocks need a
// description and a query.
//
// [BUG/QUIRK fixed] the reference strips every line, so the indentation
// of code in the action sequence is lost; here the action sequence's
// lines keep it (trailing white space, blank lines at either end and the
// indentation common to all lines are removed).
func ParseTasks(reply string) ([]ParsedTask, TaskParseReport) {
	var rep TaskParseReport
	if len(reply) > MaxReplyBytes {
		rep.Truncated = true
	}
	reply = clipReply(reply)
	var out []ParsedTask
	for rest := reply; ; {
		i := strings.Index(rest, "<task>")
		if i < 0 {
			break
		}
		rest = rest[i+len("<task>"):]
		j := strings.Index(rest, "</task>")
		if j < 0 {
			break
		}
		body := rest[:j]
		rest = rest[j+len("</task>"):]
		if rep.Blocks == MaxTasksPerReply {
			rep.Truncated = true
			break
		}
		rep.Blocks++
		t, tooLong := parseTaskBody(body)
		switch {
		case tooLong:
			rep.TooLong++
		case t.Description == "" || t.Query == "":
			rep.Incomplete++
		default:
			out = append(out, t)
		}
	}
	return out, rep
}

// labels of a task block, lower case.
const (
	labelDescription = "description"
	labelQuery       = "query"
	labelConfidence  = "confidence"
	labelActions     = "actionsequence"
)

// splitLabel reports whether a trimmed line starts with one of the task
// block's labels and returns the label and what follows its colon.
func splitLabel(line string) (label, value string, ok bool) {
	t := strings.TrimLeft(line, "*#- \t")
	colon := strings.IndexByte(t, ':')
	if colon < 0 || colon > 40 {
		return "", "", false
	}
	name := strings.ToLower(strings.Trim(t[:colon], "* \t"))
	name = strings.NewReplacer(" ", "", "_", "").Replace(name)
	switch name {
	case labelDescription, labelQuery, labelConfidence, labelActions:
		return name, strings.TrimSpace(strings.TrimLeft(t[colon+1:], "*")), true
	}
	return "", "", false
}

func parseTaskBody(body string) (ParsedTask, bool) {
	t := ParsedTask{Confidence: 1}
	fields := map[string][]string{}
	var cur string
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if label, value, ok := splitLabel(line); ok {
			cur = label
			if value != "" {
				fields[cur] = append(fields[cur], value)
			}
			continue
		}
		if cur == "" {
			continue
		}
		if cur == labelActions {
			fields[cur] = append(fields[cur], line)
		} else if s := strings.TrimSpace(line); s != "" {
			fields[cur] = append(fields[cur], s)
		}
	}
	t.Description = strings.Join(fields[labelDescription], " ")
	t.Query = strings.Join(fields[labelQuery], " ")
	t.GT = dedent(fields[labelActions])
	if c := fields[labelConfidence]; len(c) > 0 {
		if f, err := strconv.ParseFloat(strings.TrimSpace(c[0]), 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			t.Confidence = min(max(f, 0), 1)
		}
	}
	tooLong := len(t.Description) > MaxFieldBytes || len(t.Query) > MaxFieldBytes || len(t.GT) > MaxFieldBytes
	return t, tooLong
}

// dedent joins lines with blank lines at either end removed and the
// leading white space common to all non-blank lines cut.
func dedent(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return ""
	}
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ind, false
			continue
		}
		for !strings.HasPrefix(ind, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimPrefix(l, prefix)
		if strings.TrimSpace(out[i]) == "" {
			out[i] = ""
		}
	}
	return strings.Join(out, "\n")
}

// ParseJudge reads a judge's verdict (reference §2.9.3): success iff the
// lower-cased reply, with markdown asterisks removed, contains
// "success: true" or "successful: true". The reference also accepts
// "success: **true**", which removing the asterisks covers, as it covers
// "**Success:** true", which the reference misses.
func ParseJudge(reply string) bool {
	s := strings.ToLower(strings.ReplaceAll(clipReply(reply), "*", ""))
	return strings.Contains(s, "success: true") || strings.Contains(s, "successful: true")
}

// ParseRewrites reads a rewriter's reply (reference §2.10): one variant
// per line, stripped, with leading "-" or "•" and then leading digits,
// "、" and "." removed repeatedly; blank lines, the original query and
// repeats are dropped; at most k are kept. Unlike the reference it does
// not pad a short answer with placeholders.
func ParseRewrites(reply, original string, k int) []string {
	var out []string
	orig := strings.TrimSpace(original)
	for _, line := range strings.Split(clipReply(reply), "\n") {
		if len(out) >= k {
			break
		}
		s := strings.TrimSpace(line)
		s = strings.TrimSpace(strings.TrimLeft(s, "-•"))
		for {
			t := strings.TrimLeft(s, "0123456789、.")
			t = strings.TrimSpace(t)
			if t == s {
				break
			}
			s = t
		}
		if s == "" || s == orig || len(s) > MaxFieldBytes {
			continue
		}
		dup := false
		for _, o := range out {
			if o == s {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}

// ParseConcepts reads a concept extractor's reply (reference §2.6): a
// list literal such as ["cat", 'dog'] when the trimmed reply is one (the
// reference's Python literal), otherwise the reply split on commas and
// newlines; items are trimmed of white space, quotes and brackets, blank
// and over-long ones (MaxConceptBytes) dropped, at most MaxConcepts kept.
func ParseConcepts(reply string) []string {
	s := strings.TrimSpace(clipReply(reply))
	var items []string
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		items = splitListLiteral(s[1 : len(s)-1])
	} else {
		items = strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' })
	}
	var out []string
	for _, it := range items {
		if len(out) >= MaxConcepts {
			break
		}
		it = strings.Trim(strings.TrimSpace(it), "\"'[]` \t\r")
		if it == "" || len(it) > MaxConceptBytes {
			continue
		}
		out = append(out, it)
	}
	return out
}

// splitListLiteral splits the inside of a list literal on the commas
// outside quotes.
func splitListLiteral(s string) []string {
	var items []string
	var quote rune
	start := 0
	for i, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
		case r == '"' || r == '\'':
			quote = r
		case r == ',':
			items = append(items, s[start:i])
			start = i + 1
		}
	}
	return append(items, s[start:])
}

// SplitActions cuts a ground-truth action sequence into the actions to
// send, one environment step each, for replaying it: the bodies of
// <action>…</action> tags when it has any; else the parts between step
// markers ("# step1", "Step 2:", …) when it has any; else its fenced code
// blocks (each with its fences) when it has any; else its non-blank
// lines, with list markers ("1.", "-") removed. At most MaxActions.
func SplitActions(gt string) []string {
	gt = clipReply(gt)
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && len(out) < MaxActions {
			out = append(out, s)
		}
	}
	if strings.Contains(gt, "<action>") {
		for rest := gt; ; {
			a, ok := ParseAction(rest)
			if !ok {
				break
			}
			add(a)
			rest = rest[strings.Index(rest, "</action>")+len("</action>"):]
		}
		return out
	}
	lines := strings.Split(gt, "\n")
	if parts, ok := splitAt(lines, isStepMarker); ok {
		for _, p := range parts {
			add(p)
		}
		return out
	}
	if blocks := fencedBlocks(lines); len(blocks) > 0 {
		for _, b := range blocks {
			add(b)
		}
		return out
	}
	for _, l := range lines {
		l = strings.TrimSpace(l)
		l = strings.TrimSpace(strings.TrimLeft(l, "-*•"))
		if t := strings.TrimLeft(l, "0123456789"); t != l && (strings.HasPrefix(t, ".") || strings.HasPrefix(t, ")")) {
			l = strings.TrimSpace(t[1:])
		}
		add(l)
	}
	return out
}

// isStepMarker reports a line such as "# step1", "Step 2:", "## Step 3 -".
func isStepMarker(line string) bool {
	s := strings.ToLower(strings.TrimSpace(line))
	s = strings.TrimSpace(strings.TrimLeft(s, "#*"))
	if !strings.HasPrefix(s, "step") {
		return false
	}
	s = strings.TrimSpace(s[len("step"):])
	d := strings.TrimLeft(s, "0123456789")
	if d == s {
		return false
	}
	d = strings.TrimSpace(strings.Trim(d, "*:.-) \t"))
	return d == ""
}

// splitAt returns the texts between marker lines (what precedes the first
// marker dropped), and whether there was a marker.
func splitAt(lines []string, marker func(string) bool) ([]string, bool) {
	var parts []string
	var cur []string
	seen := false
	for _, l := range lines {
		if marker(l) {
			if seen {
				parts = append(parts, strings.Join(cur, "\n"))
			}
			seen, cur = true, nil
			continue
		}
		cur = append(cur, l)
	}
	if seen {
		parts = append(parts, strings.Join(cur, "\n"))
	}
	return parts, seen
}

// fencedBlocks returns the ``` fenced blocks of lines, fences included;
// an unclosed block runs to the end.
func fencedBlocks(lines []string) []string {
	var blocks []string
	var cur []string
	in := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			if in {
				cur = append(cur, t)
				blocks = append(blocks, strings.Join(cur, "\n"))
				cur, in = nil, false
				continue
			}
			in, cur = true, []string{t}
			continue
		}
		if in {
			cur = append(cur, l)
		}
	}
	if in {
		blocks = append(blocks, strings.Join(cur, "\n"))
	}
	return blocks
}
