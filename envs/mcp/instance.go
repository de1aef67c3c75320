package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/internal/envkit"
)

// maxRecordBytes bounds the text of a tool result kept for the checks.
const maxRecordBytes = 1 << 20

// Instance is one episode: one MCP session and, with a stdio server, one
// server process, started by Env.New and killed by Close. Like every
// envservice.Instance it is not safe for concurrent use (the Manager
// serialises calls on it), except that Close may be called at any time.
type Instance struct {
	env    *Env
	task   *Task
	id     string
	sparse bool
	conn   *conn

	records  []record
	calls    int // tool calls made or attempted (final answers excluded)
	finished bool
	answered bool
	answer   string
	failed   error // the server failure, once there was one

	verifyAt    int // the step the cached verify results belong to
	verifyCache map[int]bool
	steps       int

	closed atomic.Bool
}

// record is one tool call of the episode and its result.
type record struct {
	tool    string
	isError bool
	text    string // the result's text, bounded by maxRecordBytes
	struc   string // its structured content as JSON, bounded likewise
}

// InitState returns the system prompt (the server's tools and the action
// format) and the task's query, with info {instance_id, task_id}.
func (in *Instance) InitState(ctx context.Context, _ map[string]any) (envclient.InitState, error) {
	if err := in.usable(ctx); err != nil {
		return envclient.InitState{}, err
	}
	return envclient.InitState{
		State: []agentevolver.Message{
			{Role: agentevolver.RoleSystem, Content: in.env.system},
			{Role: agentevolver.RoleUser, Content: in.task.Query},
		},
		Info: map[string]any{"instance_id": in.id, "task_id": in.task.TaskID},
	}, nil
}

// Step runs the tool calls of the action (see ParseAction) and returns
// their results: one tool message per structured call (with its
// ToolCallID), or one user message for a call written in the content.
// Unknown tools, unreadable or schema-violating arguments, tool errors,
// protocol errors and calls that time out are observations starting with
// "error:"; the episode goes on. A final_answer call ends the episode, as
// does the call that reaches Config.MaxCalls; the step's reward is then
// Evaluate's score (sparse per params["sparse"], else the create params),
// and 0 before. A server that crashed or closed the session is an error
// matching ErrServerFailed, for this step and every later call. If Step
// panics, the server process is killed before the panic goes on.
func (in *Instance) Step(ctx context.Context, action agentevolver.Message, params map[string]any) (_ envclient.StepResult, err error) {
	defer in.killOnPanic()
	if err := in.usable(ctx); err != nil {
		return envclient.StepResult{}, err
	}
	sparse, present, err := sparseParam(params)
	if err != nil {
		return envclient.StepResult{}, err
	}
	if !present {
		sparse = in.sparse
	}
	if in.finished {
		return envclient.StepResult{
			State:        []agentevolver.Message{{Role: agentevolver.RoleUser, Content: "error: the episode is over; no more calls are accepted"}},
			IsTerminated: true, Info: map[string]any{},
		}, nil
	}
	in.steps++
	structured := len(action.ToolCalls) > 0
	var obs []agentevolver.Message
	add := func(c ParsedCall, text string) {
		if structured {
			obs = append(obs, agentevolver.Message{Role: agentevolver.RoleTool, Content: text, ToolCallID: c.ID, Name: c.Name})
		} else {
			obs = append(obs, agentevolver.Message{Role: agentevolver.RoleUser, Content: text})
		}
	}
	calls, perr := ParseAction(action)
	if perr != nil {
		in.calls++
		obs = append(obs, agentevolver.Message{Role: agentevolver.RoleUser, Content: "error: " + perr.Error()})
	}
	for _, c := range calls {
		switch {
		case in.finished:
			add(c, "error: not run, the episode ended with the final answer")
			continue
		case c.Name == FinalAnswerTool:
			in.finish(c)
			add(c, "final answer recorded; the episode is over")
			continue
		case in.calls >= in.env.cfg.MaxCalls:
			add(c, fmt.Sprintf("error: not run, the limit of %d calls is reached", in.env.cfg.MaxCalls))
			continue
		}
		in.calls++
		text, err := in.callForAgent(ctx, c)
		if err != nil {
			return envclient.StepResult{}, err
		}
		add(c, text)
	}
	res := envclient.StepResult{State: obs, Info: map[string]any{"calls": in.calls}}
	if !in.finished && in.calls >= in.env.cfg.MaxCalls {
		in.finished = true
		res.State = append(res.State, agentevolver.Message{Role: agentevolver.RoleUser,
			Content: fmt.Sprintf("The limit of %d calls is reached; the episode is over.", in.env.cfg.MaxCalls)})
	}
	if in.finished {
		res.IsTerminated = true
		if res.Reward, err = in.score(ctx, sparse); err != nil {
			return envclient.StepResult{}, err
		}
	}
	return res, nil
}

// finish records a final answer: the "answer" argument, a string or any
// JSON value (kept as its JSON text).
func (in *Instance) finish(c ParsedCall) {
	in.finished, in.answered = true, true
	switch a := c.Arguments["answer"].(type) {
	case nil:
	case string:
		in.answer = a
	default:
		data, _ := json.Marshal(a)
		in.answer = string(data)
	}
}

// callForAgent runs one call of the agent and returns its observation.
func (in *Instance) callForAgent(ctx context.Context, c ParsedCall) (string, error) {
	if c.Err != nil {
		return "error: " + c.Err.Error(), nil
	}
	sch, ok := in.env.schema[c.Name]
	if !ok || !in.env.exposed[c.Name] {
		return fmt.Sprintf("error: unknown tool %q; the tools are %s", clip(c.Name, 64), in.env.toolNames()), nil
	}
	if problem := sch.check(c.Arguments); problem != "" {
		return fmt.Sprintf("error: invalid arguments for %s: %s", c.Name, problem), nil
	}
	res, err := in.run(ctx, c.Name, c.Arguments)
	if err != nil {
		return "", err
	}
	in.records = append(in.records, record{tool: c.Name, isError: res.IsError,
		text: clip(resultText(res), maxRecordBytes), struc: clip(resultStructured(res), maxRecordBytes)})
	text := resultText(res)
	if res.IsError && !strings.HasPrefix(text, "error:") {
		text = "error: " + text
	}
	if text == "" {
		text = "(empty result)"
	}
	return truncateObservation(text, in.env.cfg.MaxObservationBytes), nil
}

// run calls a tool with the call timeout. A JSON-RPC error answer, a call
// that times out while ctx is alive and a result the SDK cannot decode
// from a server that still answers a ping become error results; a broken
// session is an error matching ErrServerFailed, remembered for later
// calls; ctx's end is ctx's error.
func (in *Instance) run(ctx context.Context, name string, args map[string]any) (*sdk.CallToolResult, error) {
	if in.failed != nil {
		return nil, in.failed
	}
	cctx, cancel := context.WithTimeout(ctx, in.env.cfg.CallTimeout)
	defer cancel()
	res, err := in.conn.sess.callTool(cctx, name, args)
	var rerr *jsonrpc.Error
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &rerr):
		return errorResult(rerr.Message), nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		if in.conn.exited() {
			break
		}
		return errorResult(fmt.Sprintf("the tool %s did not answer within %s", name, in.env.cfg.CallTimeout)), nil
	case !broken(err) && !in.conn.exited() && in.conn.sess.answers(ctx, min(pingTimeout, in.env.cfg.CallTimeout)):
		// The server is alive and answered this call wrongly: a result
		// the SDK cannot decode, say.
		return errorResult(err.Error()), nil
	}
	in.failed = in.env.failure(ctx, err, in.conn)
	in.env.log.Warn("mcp: server failed", "task_id", in.task.TaskID, "instance_id", in.id, "err", in.failed)
	return nil, in.failed
}

// truncateObservation cuts text to at most max bytes on a rune boundary,
// saying how much was cut.
func truncateObservation(text string, max int) string {
	if len(text) <= max {
		return text
	}
	cut := max
	for cut > 0 && !utf8RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + fmt.Sprintf("\n[truncated: %d more bytes]", len(text)-cut)
}

func (e *Env) toolNames() string {
	names := make([]string, 0, len(e.tools)+1)
	for _, t := range e.tools {
		names = append(names, t.Name)
	}
	sort.Strings(names)
	return strings.Join(append(names, FinalAnswerTool), ", ")
}

// Evaluate scores the episode so far: with params["sparse"] == true, 1
// when every check passes and 0 otherwise; else the fraction of checks
// passed. Verify checks call the server (once per state: their results are
// kept until the next step); a server failure is an error matching
// ErrServerFailed.
func (in *Instance) Evaluate(ctx context.Context, params map[string]any) (_ float64, err error) {
	defer in.killOnPanic()
	if err := in.usable(ctx); err != nil {
		return 0, err
	}
	sparse, _, err := sparseParam(params)
	if err != nil {
		return 0, err
	}
	return in.score(ctx, sparse)
}

func (in *Instance) score(ctx context.Context, sparse bool) (float64, error) {
	if in.failed != nil {
		return 0, in.failed
	}
	if in.verifyCache == nil || in.verifyAt != in.steps {
		in.verifyCache, in.verifyAt = map[int]bool{}, in.steps
	}
	passed := 0
	for i := range in.task.Checker {
		c := &in.task.Checker[i]
		ok := false
		switch c.Type {
		case CheckToolResult:
			for _, r := range in.records {
				if !r.isError && (c.Tool == "" || c.Tool == r.tool) && c.matchesResult(r.text, r.struc) {
					ok = true
					break
				}
			}
		case CheckAnswer:
			ok = in.answered && c.matches(in.answer)
		case CheckVerify:
			var cached bool
			if ok, cached = in.verifyCache[i]; !cached {
				res, err := in.run(ctx, c.Call.Name, c.Call.Arguments)
				if err != nil {
					return 0, fmt.Errorf("mcp: verify call %s: %w", c.Call.Name, err)
				}
				ok = !res.IsError && c.matchesResult(resultText(res), resultStructured(res))
				in.verifyCache[i] = ok
			}
		}
		if ok {
			passed++
		}
	}
	total := len(in.task.Checker)
	if sparse {
		if passed == total {
			return 1, nil
		}
		return 0, nil
	}
	return float64(passed) / float64(total), nil
}

// Info describes the tools: the system prompt's text by default, the
// OpenAI function tools with params["format"] == "openai", or the server's
// tool list as MCP describes it with "mcp". final_answer is included in
// the first two.
func (in *Instance) Info(ctx context.Context, params map[string]any) (any, error) {
	if err := in.usable(ctx); err != nil {
		return nil, err
	}
	switch f := params["format"]; f {
	case nil, "", "text":
		return in.env.system, nil
	case "openai":
		return in.env.OpenAITools(), nil
	case "mcp":
		return in.env.Tools(), nil
	default:
		return nil, fmt.Errorf("%w: format must be \"text\", \"openai\" or \"mcp\", got %v", ErrBadParams, f)
	}
}

// OpenAITools returns the server's tools and final_answer as OpenAI
// function tools ({"type": "function", "function": {name, description,
// parameters}}), for a chat model's tools parameter.
func (e *Env) OpenAITools() []map[string]any {
	var out []map[string]any
	for _, t := range e.toolsWithFinal() {
		var params any = map[string]any{"type": "object"}
		var m map[string]any
		if json.Unmarshal(t.InputSchema, &m) == nil {
			delete(m, "$schema")
			params = m
		}
		out = append(out, map[string]any{"type": "function", "function": map[string]any{
			"name": t.Name, "description": t.Description, "parameters": params}})
	}
	return out
}

// Close ends the session and kills the server process and its process
// group, waiting until it is reaped, and removes the instance directory.
// Later calls fail with ErrClosed. It is idempotent.
func (in *Instance) Close() error { return in.shutdown() }

func (in *Instance) shutdown() error {
	in.closed.Store(true)
	err := in.conn.close()
	in.env.forget(in)
	return err
}

// killOnPanic kills the server when the calling method panics, then lets
// the panic go on (the Manager turns it into an error).
func (in *Instance) killOnPanic() {
	if r := recover(); r != nil {
		_ = in.shutdown()
		panic(r)
	}
}

// Pid returns the server process's id, 0 when the server is not a
// process this environment started.
func (in *Instance) Pid() int { return in.conn.pid() }

func (in *Instance) usable(ctx context.Context) error {
	return envkit.Usable(ctx, in.closed.Load(), ErrClosed)
}
