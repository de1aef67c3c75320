package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/internal/envkit"
)

// Name is the environment's name (its env_type).
const Name = "mcp"

// Split names. A task file may use others.
const (
	SplitTrain = "train"
	SplitVal   = "val"
	SplitTest  = "test"
)

// Defaults used when a Config field is zero.
const (
	DefaultCallTimeout         = 30 * time.Second
	DefaultStartTimeout        = 30 * time.Second
	DefaultMaxObservationBytes = 8 << 10
	DefaultMaxCalls            = 32
)

// Errors callers can test with errors.Is.
var (
	// ErrServerFailed reports an MCP server that crashed, closed the
	// session or stopped answering the protocol: an environment failure.
	// Step, Evaluate and New return it (wrapped, with the server's exit
	// status and the tail of its stderr); the trainer then excludes the
	// episode.
	ErrServerFailed = errors.New("mcp: server failed")
	// ErrUnknownTask reports a task id that names no task.
	ErrUnknownTask = envkit.Kind("mcp: unknown task", envclient.ErrBadRequest)
	// ErrUnknownSplit reports a split no task belongs to (other than
	// train, val and test, which may be empty).
	ErrUnknownSplit = envkit.Kind("mcp: unknown split", envclient.ErrBadRequest)
	// ErrBadParams reports params of the wrong form.
	ErrBadParams = envkit.Kind("mcp: bad params", envclient.ErrBadRequest)
	// ErrClosed reports a call on a closed instance or environment.
	ErrClosed = envkit.Kind("mcp: closed", envclient.ErrInstanceNotFound)
	// ErrNoSolution reports a task without a reference solution (Expert).
	ErrNoSolution = errors.New("mcp: task has no reference solution")
)

// Server says how to reach an MCP server: exactly one of Command, URL and
// Dial is set.
type Server struct {
	// Command, Args, Env ("KEY=VALUE", added to this process's
	// environment) and Dir start a stdio server, one process per
	// instance. InstanceDirPlaceholder in Args, Env or Dir becomes a fresh
	// directory per process.
	Command string   `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []string `yaml:"env"`
	Dir     string   `yaml:"dir"`

	// URL is a streamable-HTTP MCP endpoint shared by all instances; each
	// instance opens its own MCP session on it (see doc.go on sharing).
	URL string `yaml:"url"`
	// Headers are sent with every HTTP request (an Authorization header,
	// say).
	Headers map[string]string `yaml:"headers"`
	// HTTPClient sends the HTTP requests; nil means a client without a
	// timeout of its own (Config.CallTimeout bounds every call).
	HTTPClient *http.Client `yaml:"-"`

	// Dial opens a newline-delimited JSON-RPC stream to a fresh server
	// session, one per instance: an in-process server for tests, a socket.
	// Closing the stream must end that session.
	Dial func(ctx context.Context) (io.ReadWriteCloser, error) `yaml:"-"`
}

func (s Server) usesInstanceDir() bool {
	if strings.Contains(s.Dir, InstanceDirPlaceholder) {
		return true
	}
	for _, a := range append(slices.Clip(s.Args), s.Env...) {
		if strings.Contains(a, InstanceDirPlaceholder) {
			return true
		}
	}
	return false
}

// Config configures an Env. Server and at least one task (TaskFile or
// Tasks) are required; every other zero value means the default. Its YAML
// keys are those of a run configuration's env.mcp section, Server's
// inline; the fields that hold code have none.
type Config struct {
	// Server is the MCP server every instance talks to.
	Server Server `yaml:",inline"`
	// TaskFile is a JSON-lines task file (see ParseTasks).
	TaskFile string `yaml:"task_file"`
	// Tasks are tasks given in code, after those of TaskFile.
	Tasks []Task `yaml:"-"`
	// CallTimeout bounds one tool call (DefaultCallTimeout). A call that
	// takes longer is answered with an error observation.
	CallTimeout time.Duration `yaml:"call_timeout"`
	// StartTimeout bounds starting a server and its MCP handshake
	// (DefaultStartTimeout).
	StartTimeout time.Duration `yaml:"start_timeout"`
	// MaxObservationBytes bounds one tool result shown to the agent
	// (DefaultMaxObservationBytes); longer ones are cut with a note.
	MaxObservationBytes int `yaml:"max_observation_bytes"`
	// MaxCalls bounds the tool calls of an episode, malformed ones
	// included (DefaultMaxCalls); the call that reaches it ends the
	// episode.
	MaxCalls int `yaml:"max_calls"`
	// Tools, when not empty, are the only tools the agent sees and may
	// call (a server's tool set cut down for a small policy); setup and
	// verify calls may still use any tool. Each must be a server tool.
	Tools []string `yaml:"tools"`
	// Instructions, when not empty, replace the opening of the system
	// prompt; the tool list always follows.
	Instructions string `yaml:"instructions"`
	// Logger receives debug records and warnings; nil discards them.
	Logger *slog.Logger `yaml:"-"`
}

// Env is an MCP server served as a training environment. It implements
// envservice.Environment and the optional capabilities ProfileProvider,
// CorpusProvider, Expert, TaskMetadataProvider and ProcessBacked. It is safe for
// concurrent use. Close it to kill every server process still running.
type Env struct {
	cfg     Config
	log     *slog.Logger
	tasks   map[string]*Task
	splits  map[string][]string
	tools   []Tool            // the tools the agent sees (Config.Tools)
	schema  map[string]schema // every server tool's schema
	exposed map[string]bool   // the names of e.tools
	server  serverInfo
	system  string
	client  *sdk.Client

	mu     sync.Mutex
	live   map[*Instance]struct{}
	closed bool
}

var (
	_ envservice.Environment          = (*Env)(nil)
	_ envservice.ProfileProvider      = (*Env)(nil)
	_ envservice.CorpusProvider       = (*Env)(nil)
	_ envservice.Expert               = (*Env)(nil)
	_ envservice.TaskMetadataProvider = (*Env)(nil)
	_ envservice.ProcessBacked        = (*Env)(nil)
	_ envservice.Instance             = (*Instance)(nil)
)

// ProcessBacked reports whether every instance starts a server process of
// its own (Server.Command), so that a Manager counts instances against its
// limit of process-backed instances (envservice.ManagerConfig.
// MaxProcessInstances). An environment on a shared HTTP server or a Dial
// function starts none.
func (e *Env) ProcessBacked() bool { return e.cfg.Server.Command != "" }

// New reads the tasks, then starts the server once to list its tools and
// checks that every tool a task names exists. It returns an error for a
// bad config or task file, a server that cannot be started or
// initialised (matching ErrServerFailed), a server tool named
// FinalAnswerTool, and ctx's error when ctx ends.
func New(ctx context.Context, cfg Config) (*Env, error) {
	n := 0
	for _, set := range []bool{cfg.Server.Command != "", cfg.Server.URL != "", cfg.Server.Dial != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, errors.New("mcp: set exactly one of Server.Command, Server.URL and Server.Dial")
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.MaxObservationBytes <= 0 {
		cfg.MaxObservationBytes = DefaultMaxObservationBytes
	}
	if cfg.MaxCalls <= 0 {
		cfg.MaxCalls = DefaultMaxCalls
	}
	e := &Env{cfg: cfg, log: cfg.Logger, tasks: map[string]*Task{}, splits: map[string][]string{},
		schema: map[string]schema{}, exposed: map[string]bool{}, live: map[*Instance]struct{}{}}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	e.client = newClient(e.log)
	if cfg.Server.Command != "" {
		// The instance directories of a server killed with SIGKILL, which
		// removes nothing; those of live processes stay.
		if _, err := envservice.SweepStaleDirs("", instanceDirPrefix, e.log); err != nil {
			e.log.Warn("mcp: removing stale instance directories", "err", err)
		}
	}
	var tasks []Task
	if cfg.TaskFile != "" {
		f, err := os.Open(cfg.TaskFile)
		if err != nil {
			return nil, fmt.Errorf("mcp: %w", err)
		}
		tasks, err = ParseTasks(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%w (%s)", err, cfg.TaskFile)
		}
	}
	for _, t := range cfg.Tasks {
		if err := t.validate(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadTaskFile, err)
		}
		tasks = append(tasks, t)
	}
	if len(tasks) == 0 {
		return nil, errors.New("mcp: no tasks (set Config.TaskFile or Config.Tasks)")
	}
	for i := range tasks {
		t := &tasks[i]
		if _, dup := e.tasks[t.TaskID]; dup {
			return nil, fmt.Errorf("%w: task id %q repeated", ErrBadTaskFile, t.TaskID)
		}
		e.tasks[t.TaskID] = t
		e.splits[t.Split] = append(e.splits[t.Split], t.TaskID)
	}

	conn, err := e.connect(ctx)
	if err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	tools, err := conn.sess.listTools(tctx)
	cancel()
	if err != nil {
		ferr := e.failure(ctx, err, conn)
		_ = conn.close()
		return nil, ferr
	}
	_ = conn.close()
	e.server = conn.sess.server
	for _, t := range tools {
		if t.Name == FinalAnswerTool {
			return nil, fmt.Errorf("mcp: the server has a tool named %s, which the environment reserves", FinalAnswerTool)
		}
		e.schema[t.Name] = parseSchema(t.InputSchema)
		if len(cfg.Tools) == 0 || slices.Contains(cfg.Tools, t.Name) {
			e.tools = append(e.tools, t)
			e.exposed[t.Name] = true
		}
	}
	for _, n := range cfg.Tools {
		if _, ok := e.schema[n]; !ok {
			return nil, fmt.Errorf("mcp: Config.Tools names %q, which the server does not offer", n)
		}
	}
	for _, t := range tasks {
		if err := e.checkToolNames(t); err != nil {
			return nil, fmt.Errorf("%w: task %q: %v", ErrBadTaskFile, t.TaskID, err)
		}
	}
	e.system = e.systemPrompt()
	return e, nil
}

// checkToolNames reports a task naming a tool the server lacks, or whose
// solution or tool_result checks need a tool the agent cannot call.
func (e *Env) checkToolNames(t Task) error {
	var any, agent []string
	for _, c := range t.Setup {
		any = append(any, c.Name)
	}
	if t.Solution != nil {
		for _, c := range t.Solution.Calls {
			agent = append(agent, c.Name)
		}
	}
	for _, c := range t.Checker {
		if c.Tool != "" {
			agent = append(agent, c.Tool)
		}
		if c.Call != nil {
			any = append(any, c.Call.Name)
		}
	}
	for _, n := range append(any, agent...) {
		if _, ok := e.schema[n]; !ok {
			return fmt.Errorf("the server has no tool %q", n)
		}
	}
	for _, n := range agent {
		if !e.exposed[n] {
			return fmt.Errorf("the agent cannot call %q (not in Config.Tools)", n)
		}
	}
	return nil
}

// Tools returns the tools the agent sees (all the server's, or those of
// Config.Tools), as listed when the Env was made.
func (e *Env) Tools() []Tool { return slices.Clone(e.tools) }

// Task returns the task taskID names.
func (e *Env) Task(taskID string) (Task, error) {
	t, err := e.task(taskID)
	if err != nil {
		return Task{}, err
	}
	return *t, nil
}

func (e *Env) task(taskID string) (*Task, error) {
	t, ok := e.tasks[taskID]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownTask, clip(taskID, 64))
	}
	return t, nil
}

// TaskIDs lists the tasks of split in file order. train, val and test are
// always known (possibly empty); another split is known when a task has
// it. params are ignored.
func (e *Env) TaskIDs(ctx context.Context, split string, _ map[string]any) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ids, ok := e.splits[split]
	if !ok && split != SplitTrain && split != SplitVal && split != SplitTest {
		return nil, fmt.Errorf("%w: %q", ErrUnknownSplit, clip(split, 64))
	}
	return slices.Clone(ids), nil
}

// New creates an instance of taskID: it connects to the server (with a
// stdio server, starts its own process), runs the task's setup calls and
// returns a *Instance. Whatever fails, panics included, no process
// survives a failed New. params may hold "sparse" (bool), the default
// scoring of the terminal step's reward.
func (e *Env) New(ctx context.Context, taskID, instanceID string, params map[string]any) (envservice.Instance, error) {
	return e.newInstance(ctx, taskID, instanceID, params)
}

func (e *Env) newInstance(ctx context.Context, taskID, instanceID string, params map[string]any) (_ *Instance, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := e.task(taskID)
	if err != nil {
		return nil, err
	}
	sparse, _, err := sparseParam(params)
	if err != nil {
		return nil, err
	}
	conn, err := e.connect(ctx)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok { // an error or a panic
			_ = conn.close()
		}
	}()
	in := &Instance{env: e, task: t, id: instanceID, sparse: sparse, conn: conn}
	for i, c := range t.Setup {
		res, err := in.run(ctx, c.Name, c.Arguments)
		if err != nil {
			return nil, fmt.Errorf("mcp: setup call %d (%s) of task %s: %w", i, c.Name, t.TaskID, err)
		}
		if res.IsError {
			return nil, fmt.Errorf("mcp: setup call %d (%s) of task %s failed: %s", i, c.Name, t.TaskID, clip(resultText(res), 512))
		}
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, ErrClosed
	}
	e.live[in] = struct{}{}
	e.mu.Unlock()
	ok = true
	e.log.Debug("mcp: new instance", "task_id", taskID, "instance_id", instanceID, "pid", conn.pid())
	return in, nil
}

// Close closes every instance still open, killing their server processes,
// and makes later creates fail with ErrClosed. It is idempotent.
func (e *Env) Close() error {
	e.mu.Lock()
	e.closed = true
	live := make([]*Instance, 0, len(e.live))
	for in := range e.live {
		live = append(live, in)
	}
	e.mu.Unlock()
	var errs []error
	for _, in := range live {
		errs = append(errs, in.shutdown())
	}
	return errors.Join(errs...)
}

func (e *Env) forget(in *Instance) {
	e.mu.Lock()
	delete(e.live, in)
	e.mu.Unlock()
}

// LiveInstances returns how many instances are open (created, not closed).
func (e *Env) LiveInstances() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.live)
}

// conn is one connection to the server: an SDK session, its transport
// and, for a stdio server, its process.
type conn struct {
	sess *session // nil until the handshake is done
	t    *recordingTransport
	proc *process // nil unless Server.Command
	http bool     // Server.URL

	once sync.Once
	err  error
}

func (c *conn) pid() int {
	if c.proc == nil {
		return 0
	}
	return c.proc.pid()
}

// close kills the process, breaks the connection (failing any call in
// flight at once) and ends the session. Idempotent. Its error is the
// kill's for a stdio server, the stream's Close for a Dial server, and nil
// for an HTTP server, whose DELETE is best effort.
func (c *conn) close() error {
	c.once.Do(func() {
		if c.proc != nil {
			c.err = c.proc.kill() // first, so that nothing waits on a live server
		}
		cerr := c.t.close()
		if c.sess != nil {
			_ = c.sess.cs.Close()
		}
		if c.proc == nil && !c.http {
			c.err = cerr
		}
	})
	return c.err
}

// exited reports whether the server is a process that has ended.
func (c *conn) exited() bool { return c.proc != nil && c.proc.exited() }

// connect opens a session to the server, bounded by StartTimeout.
func (e *Env) connect(ctx context.Context) (_ *conn, err error) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.StartTimeout)
	defer cancel()
	srv := e.cfg.Server
	c := &conn{}
	switch {
	case srv.Command != "":
		p, err := startProcess(srv)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrServerFailed, err)
		}
		c.proc = p
		c.t = &recordingTransport{Transport: streamTransport(p.stdout, p.stdout, p.stdin)}
	case srv.URL != "":
		c.http = true
		c.t = &recordingTransport{Transport: httpTransport(srv)}
	default:
		rwc, err := srv.Dial(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: dial: %v", ErrServerFailed, err)
		}
		c.t = &recordingTransport{Transport: streamTransport(rwc, rwc, nopWriteCloser{rwc})}
	}
	ok := false
	defer func() {
		if !ok { // an error or a panic
			_ = c.close()
		}
	}()
	sess, err := connectSession(ctx, e.client, c.t)
	if err != nil {
		return nil, e.failure(ctx, err, c)
	}
	c.sess = sess
	ok = true
	return c, nil
}

// failure turns a transport error into an ErrServerFailed error with the
// process's state, or returns ctx's error when ctx ended.
func (e *Env) failure(ctx context.Context, err error, c *conn) error {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	detail := ""
	if c != nil && c.proc != nil {
		// A crashed server is reaped promptly; give it a moment so that
		// the error says how it ended.
		select {
		case <-c.proc.done:
		case <-time.After(200 * time.Millisecond):
		}
		detail = " (" + c.proc.describe() + ")"
	}
	return fmt.Errorf("%w: %v%s", ErrServerFailed, err, detail)
}

// systemPrompt lists the tools and the action format.
func (e *Env) systemPrompt() string {
	var b strings.Builder
	if e.cfg.Instructions != "" {
		b.WriteString(strings.TrimSpace(e.cfg.Instructions))
	} else {
		name := e.server.Name
		if name == "" {
			name = "an MCP server"
		}
		fmt.Fprintf(&b, "You complete the user's task with the tools of %s. Call one tool per message, "+
			"as a structured tool call or as a JSON block:\n```json\n{\"name\": \"TOOL\", \"arguments\": {...}}\n```\n"+
			"The tool's result comes back as the next message. When the task is done, call %s "+
			"with your answer: {\"name\": \"%s\", \"arguments\": {\"answer\": \"...\"}}.", name, FinalAnswerTool, FinalAnswerTool)
	}
	b.WriteString("\n\nTools:")
	for _, t := range e.toolsWithFinal() {
		fmt.Fprintf(&b, "\n- %s: %s\n  arguments: %s", t.Name, strings.TrimSpace(t.Description), compactSchema(t.InputSchema))
	}
	return b.String()
}

// finalAnswerSchema is the input schema of FinalAnswerTool.
const finalAnswerSchema = `{"type":"object","properties":{"answer":{"type":"string","description":"the final answer to the user's task"}},"required":["answer"]}`

func (e *Env) toolsWithFinal() []Tool {
	return append(slices.Clone(e.tools), Tool{Name: FinalAnswerTool,
		Description: "End the task and give the final answer.", InputSchema: json.RawMessage(finalAnswerSchema)})
}

// compactSchema renders a schema as compact JSON without its $schema key.
func compactSchema(raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return "{}"
	}
	delete(m, "$schema")
	data, err := json.Marshal(m)
	if err != nil {
		return "{}"
	}
	return string(data)
}

// sparseParam reads params["sparse"] (envservice.SparseParam).
func sparseParam(params map[string]any) (sparse, present bool, err error) {
	return envservice.SparseParam(params, ErrBadParams)
}

// clip shortens s to at most n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
