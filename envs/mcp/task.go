package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of a task file, so that a hostile or broken file costs bounded
// memory and time.
const (
	// MaxTaskFileBytes bounds a task file.
	MaxTaskFileBytes = 32 << 20
	// MaxTaskLineBytes bounds one task (one line).
	MaxTaskLineBytes = 1 << 20
	// MaxTasks bounds the tasks of a file.
	MaxTasks = 100000
	// MaxChecks bounds the checks of one task.
	MaxChecks = 64
	// MaxTaskCalls bounds the setup and solution calls of one task.
	MaxTaskCalls = 64
	// MaxTaskIDBytes bounds a task id.
	MaxTaskIDBytes = 256
	// maxPatternBytes bounds a check's text or regular expression.
	maxPatternBytes = 4 << 10
)

// Check kinds (Check.Type).
const (
	// CheckToolResult passes when some call of Check.Tool during the
	// episode (any tool when Tool is empty) succeeded with a result that
	// matches.
	CheckToolResult = "tool_result"
	// CheckAnswer passes when the final answer matches.
	CheckAnswer = "answer"
	// CheckVerify passes when Check.Call, run on the instance's server at
	// evaluation time, succeeds with a result that matches.
	CheckVerify = "verify"
)

// Task is one task of an MCP environment, one line of a task file:
//
//	{"task_id": "memory-ada", "query": "Remember that Ada is a mathematician.",
//	 "checker": [{"type": "verify", "call": {"name": "read_graph"}, "contains": "\"name\":\"Ada\""}],
//	 "solution": {"calls": [{"name": "create_entities", "arguments": {...}}], "answer": "Done."}}
type Task struct {
	// TaskID identifies the task (required, unique, at most MaxTaskIDBytes).
	TaskID string `json:"task_id"`
	// Split is "train" (the default), "val", "test" or any other name.
	Split string `json:"split,omitempty"`
	// Query is the user's instruction (required).
	Query string `json:"query"`
	// Setup calls run, unseen by the agent, when an instance is created
	// (seed files, entities); a failing setup call fails the create.
	Setup []Call `json:"setup,omitempty"`
	// Checker lists the checks that score an episode (at least one). A
	// single check object is accepted in place of a list.
	Checker Checks `json:"checker"`
	// Solution, when present, is a reference solution: the Expert's
	// demonstration.
	Solution *Solution `json:"solution,omitempty"`
	// Difficulty grades the task, 1 the easiest; 0 means unknown.
	Difficulty int `json:"difficulty,omitempty"`
}

// Call is one tool call: a tool name and its arguments.
type Call struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

// Solution is a reference solution: calls in order, then the final answer.
type Solution struct {
	Calls  []Call `json:"calls"`
	Answer string `json:"answer"`
}

// Check is one check of a task. Exactly one of Exact, Contains and Regexp
// says what the checked text must be: Exact and Contains compare
// normalised texts (see Normalize), Regexp (RE2 syntax) matches the raw
// text.
type Check struct {
	// Type is CheckToolResult, CheckAnswer or CheckVerify.
	Type string `json:"type"`
	// Tool names the tool of a CheckToolResult; empty means any tool.
	Tool string `json:"tool,omitempty"`
	// Call is the verifying call of a CheckVerify.
	Call *Call `json:"call,omitempty"`

	Exact    *string `json:"exact,omitempty"`
	Contains *string `json:"contains,omitempty"`
	Regexp   *string `json:"regexp,omitempty"`

	re *regexp.Regexp
}

// Checks is a task's list of checks.
type Checks []Check

// UnmarshalJSON accepts a list of checks or a single check.
func (c *Checks) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var one Check
		if err := strictUnmarshal(data, &one); err != nil {
			return err
		}
		*c = Checks{one}
		return nil
	}
	var many []Check
	if err := json.Unmarshal(data, &many); err != nil {
		return err
	}
	*c = many
	return nil
}

// UnmarshalJSON decodes a check, refusing unknown fields (a misspelt
// "contains" must not make a check that always passes).
func (c *Check) UnmarshalJSON(data []byte) error {
	type plain Check
	var p plain
	if err := strictUnmarshal(data, &p); err != nil {
		return err
	}
	*c = Check(p)
	return nil
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// ErrBadTaskFile reports a task file or task that cannot be used; the
// error names the line.
var ErrBadTaskFile = errors.New("mcp: bad task file")

// ParseTasks reads a JSON-lines task file: one Task per line, blank lines
// and lines starting with # skipped. It refuses, with an error matching
// ErrBadTaskFile that names the line, a file over MaxTaskFileBytes or
// MaxTasks tasks, a line over MaxTaskLineBytes, unknown fields, a missing
// or repeated task id, an empty query, a task without checks and any check
// or call that is malformed (see Task and Check).
func ParseTasks(r io.Reader) ([]Task, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, MaxTaskFileBytes+1), 64<<10)
	var tasks []Task
	seen := map[string]bool{}
	total := 0
	for lineNo := 1; ; lineNo++ {
		line, err := readLine(br, MaxTaskLineBytes)
		total += len(line)
		if total > MaxTaskFileBytes {
			return nil, fmt.Errorf("%w: larger than %d bytes", ErrBadTaskFile, MaxTaskFileBytes)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: line %d: %v", ErrBadTaskFile, lineNo, err)
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) > 0 && trimmed[0] != '#' {
			var t Task
			if derr := strictUnmarshal(trimmed, &t); derr != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrBadTaskFile, lineNo, derr)
			}
			if verr := t.validate(); verr != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrBadTaskFile, lineNo, verr)
			}
			if seen[t.TaskID] {
				return nil, fmt.Errorf("%w: line %d: task id %q repeated", ErrBadTaskFile, lineNo, t.TaskID)
			}
			seen[t.TaskID] = true
			if len(tasks) == MaxTasks {
				return nil, fmt.Errorf("%w: more than %d tasks", ErrBadTaskFile, MaxTasks)
			}
			tasks = append(tasks, t)
		}
		if err != nil { // io.EOF
			return tasks, nil
		}
	}
}

// validate checks a task and compiles its regular expressions.
func (t *Task) validate() error {
	switch {
	case t.TaskID == "":
		return errors.New("task_id is required")
	case len(t.TaskID) > MaxTaskIDBytes || !utf8.ValidString(t.TaskID):
		return fmt.Errorf("task_id longer than %d bytes or not UTF-8", MaxTaskIDBytes)
	case strings.TrimSpace(t.Query) == "":
		return fmt.Errorf("task %q: query is required", t.TaskID)
	case len(t.Checker) == 0:
		return fmt.Errorf("task %q: checker needs at least one check", t.TaskID)
	case len(t.Checker) > MaxChecks:
		return fmt.Errorf("task %q: more than %d checks", t.TaskID, MaxChecks)
	case len(t.Setup) > MaxTaskCalls:
		return fmt.Errorf("task %q: more than %d setup calls", t.TaskID, MaxTaskCalls)
	case t.Difficulty < 0:
		return fmt.Errorf("task %q: negative difficulty", t.TaskID)
	}
	if t.Split == "" {
		t.Split = SplitTrain
	}
	for i, c := range t.Setup {
		if err := c.validate(); err != nil {
			return fmt.Errorf("task %q: setup call %d: %w", t.TaskID, i, err)
		}
	}
	if s := t.Solution; s != nil {
		if len(s.Calls) > MaxTaskCalls {
			return fmt.Errorf("task %q: more than %d solution calls", t.TaskID, MaxTaskCalls)
		}
		for i, c := range s.Calls {
			if err := c.validate(); err != nil {
				return fmt.Errorf("task %q: solution call %d: %w", t.TaskID, i, err)
			}
			if c.Name == FinalAnswerTool {
				return fmt.Errorf("task %q: solution call %d: put the answer in \"answer\", not a %s call", t.TaskID, i, FinalAnswerTool)
			}
		}
	}
	for i := range t.Checker {
		if err := t.Checker[i].validate(); err != nil {
			return fmt.Errorf("task %q: check %d: %w", t.TaskID, i, err)
		}
	}
	return nil
}

func (c Call) validate() error {
	if c.Name == "" || len(c.Name) > 128 {
		return errors.New("name is required (at most 128 bytes)")
	}
	return nil
}

func (c *Check) validate() error {
	n := 0
	for _, p := range []*string{c.Exact, c.Contains, c.Regexp} {
		if p != nil {
			n++
			if len(*p) > maxPatternBytes {
				return fmt.Errorf("pattern longer than %d bytes", maxPatternBytes)
			}
		}
	}
	if n != 1 {
		return errors.New("exactly one of exact, contains and regexp is required")
	}
	if c.Regexp != nil {
		re, err := regexp.Compile(*c.Regexp)
		if err != nil {
			return fmt.Errorf("regexp: %w", err)
		}
		c.re = re
	}
	switch c.Type {
	case CheckToolResult:
		if c.Call != nil {
			return errors.New("a tool_result check names its tool in \"tool\", not \"call\"")
		}
	case CheckAnswer:
		if c.Call != nil || c.Tool != "" {
			return errors.New("an answer check takes no tool or call")
		}
	case CheckVerify:
		if c.Call == nil {
			return errors.New("a verify check needs a call")
		}
		if err := c.Call.validate(); err != nil {
			return fmt.Errorf("call: %w", err)
		}
		if c.Tool != "" {
			return errors.New("a verify check names its tool in \"call\", not \"tool\"")
		}
	default:
		return fmt.Errorf("type %q: want %s, %s or %s", c.Type, CheckToolResult, CheckAnswer, CheckVerify)
	}
	return nil
}

// matchesResult reports whether a tool result satisfies the check: its
// text or, when it has one, its structured content's compact JSON.
func (c *Check) matchesResult(text, structured string) bool {
	return c.matches(text) || (structured != "" && c.matches(structured))
}

// matches reports whether text satisfies the check's pattern.
func (c *Check) matches(text string) bool {
	switch {
	case c.Exact != nil:
		return Normalize(text) == Normalize(*c.Exact)
	case c.Contains != nil:
		return strings.Contains(Normalize(text), Normalize(*c.Contains))
	case c.re != nil:
		return c.re.MatchString(text)
	}
	return false
}

// Normalize is the normal form exact and contains checks compare: lower
// case, runs of white space made one space, no leading or trailing space,
// quotes or final period.
func Normalize(s string) string {
	s = strings.ToLower(strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " "))
	s = strings.Trim(s, " \"'`")
	s = strings.TrimRight(s, ".!")
	return strings.TrimSpace(s)
}
