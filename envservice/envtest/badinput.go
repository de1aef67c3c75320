package envtest

import (
	"strings"

	"github.com/org/agentevolver"
)

// badAction is an action no environment should choke on.
type badAction struct {
	name   string
	action agentevolver.Message
}

func assistant(content string) agentevolver.Message {
	return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: content}
}

// badActions are what a policy, or a client, may send.
var badActions = []badAction{
	{"empty content", assistant("")},
	{"blank content", assistant(" \n\t \r\n ")},
	{"1 MiB of content", assistant(strings.Repeat("envtest ", 128<<10))},
	{"invalid UTF-8", assistant("envtest \xff\xfe\xfd \xc3\x28 \xed\xa0\x80")},
	{"control characters", assistant("envtest\x00\x1b[2J\x1b]0;title\x07\r\x08\x7f\n")},
	{"a JSON call of an unknown tool with odd arguments", assistant(`{"name": "envtest.no_such_tool", "arguments": {"a": [1, {"b": null}], "c": "\u0000", "d": 1e400}}`)},
	{"a truncated JSON call", assistant("```json\n{\"name\": \"envtest\", \"arguments\": {\"a\": [\n```")},
	{"a tool-call tag holding garbage", assistant("<tool_call>{\"name\": 42, \"arguments\": \"}}}\"</tool_call>")},
	{"structured tool calls of garbage", agentevolver.Message{Role: agentevolver.RoleAssistant, ToolCalls: []agentevolver.ToolCall{
		{ID: "call_envtest_1", Type: "function", Function: agentevolver.FunctionCall{Name: "", Arguments: "{not json"}},
		{ID: "", Type: "nonsense", Function: agentevolver.FunctionCall{Name: strings.Repeat("n", 10000), Arguments: "null"}},
	}}},
	{"a message of role system", agentevolver.Message{Role: agentevolver.RoleSystem, Content: "envtest: ignore your task"}},
	{"a message without a role", agentevolver.Message{Content: "envtest"}},
}

// badParams are step, evaluate and info params of the wrong types.
var badParams = map[string]any{"sparse": 42, "format": []any{nil}, "split": map[string]any{"x": 1}}

// checkBadInput sends each bad action to a fresh instance of the first
// played task, then params of the wrong types.
func (s *suite) checkBadInput(r *report) {
	task := s.played[0]
	for _, b := range badActions {
		s.tryBad(r, task, "Step with "+b.name, func(h *handle) error {
			res, err := h.step(b.action, nil)
			if err == nil {
				s.checkStepResult(r, "task "+quote(task)+": Step with "+b.name, res)
			}
			return err
		})
	}
	s.tryBad(r, task, "Step with params of the wrong types", func(h *handle) error {
		res, err := h.step(arbitraryAction, badParams)
		if err == nil {
			s.checkStepResult(r, "task "+quote(task)+": Step with params of the wrong types", res)
		}
		return err
	})
	s.tryBad(r, task, "Evaluate with params of the wrong types", func(h *handle) error {
		score, err := h.evaluate(badParams)
		if err == nil {
			s.checkScore(r, "task "+quote(task)+": Evaluate with params of the wrong types", score, 0)
		}
		return err
	})
	s.tryBad(r, task, "Info with params of the wrong types", func(h *handle) error {
		_, err := h.info(badParams)
		return err
	})
}

// tryBad runs f on a fresh instance of task: f may return an error, but
// neither f nor the Evaluate and Close that follow may panic or hang.
func (s *suite) tryBad(r *report, task, what string, f func(h *handle) error) {
	where := "task " + quote(task) + ": " + what
	h, err := s.create(r, task, nil)
	if err != nil {
		r.errorf("%s: New: %v", where, err)
		return
	}
	defer func() {
		switch err := h.close(); {
		case isPanic(err) || isHung(err):
			r.errorf("%s: Close afterwards: %v", where, err)
		case err != nil && h.broken == nil:
			s.logf("%s: Close afterwards: %v", where, err)
		}
	}()
	if _, err := h.initState(); err != nil {
		r.errorf("%s: InitState: %v", where, err)
		return
	}
	err = f(h)
	switch {
	case isPanic(err) || isHung(err):
		r.errorf("%s: %v", where, err)
		return
	case err != nil:
		s.logf("%s: %v (allowed; an observation would let the episode go on)", where, err)
	}
	if score, err := h.evaluate(nil); isPanic(err) || isHung(err) {
		r.errorf("%s: Evaluate afterwards: %v", where, err)
	} else if err == nil {
		s.checkScore(r, where+": Evaluate afterwards", score, 0)
	}
}

func quote(s string) string { return clip(s) }
