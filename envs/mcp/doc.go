// Package mcp turns any MCP (Model Context Protocol) server into a
// training environment: the agent completes a task by calling the
// server's tools, and a task file says how to check that it did.
//
//	env, err := mcp.New(ctx, mcp.Config{
//		Server: mcp.Server{
//			Command: "node_modules/.bin/mcp-server-memory",
//			Env:     []string{"MEMORY_FILE_PATH=" + mcp.InstanceDirPlaceholder + "/memory.jsonl"},
//		},
//		TaskFile: "tasks.jsonl",
//	})
//	defer env.Close()
//	m := envservice.NewManager(envservice.ManagerConfig{})
//	err = m.Register(mcp.Name, env) // then serve it, or hand m to the trainer
//
// Env implements envservice.Environment, so `agentevolver serve-env` and
// the trainer run it like any other environment, plus the optional
// capabilities ProfileProvider (the server as one entity whose operations
// are its tools), CorpusProvider (system prompt, queries and reference
// solutions of a split), Expert (a task's reference solution, for the
// warm start) and TaskMetadataProvider (a task's difficulty).
//
// # Servers and processes
//
// Server names the server in one of three ways:
//
//   - Command (with Args, Env, Dir): a stdio server. Every instance, that
//     is every episode, starts its own process when it is created and
//     kills it when it is closed (released, reaped or shut down by the
//     Manager). InstanceDirPlaceholder in Args, Env or Dir becomes a fresh
//     temporary directory per process, removed with it, so that episodes
//     never share state: the filesystem server's root, the memory server's
//     MEMORY_FILE_PATH.
//   - URL: a streamable-HTTP server, started and stopped by someone else
//     and shared by all instances. Each instance opens its own MCP session
//     (initialize, then an Mcp-Session-Id) and ends it with a DELETE on
//     Close. Whether sessions share state is the server's business: use
//     it for stateless servers, servers that keep state per session, or
//     tasks whose setup calls bring the state they need.
//   - Dial: a stream to a fresh session of a server in this process (a
//     test double, an SDK server over net.Pipe) or behind a socket.
//
// No server process outlives its instance. The process is started
// outside any request's context and killed, with its whole process group
// (Setpgid on Unix), by Instance.Close; Close waits until it is reaped
// and then removes the instance directory. A create that fails, times out
// or panics kills its process before it returns. A Step or Evaluate that
// panics kills the process before the panic goes on (the Manager turns it
// into an error). Env.Close closes every instance still open. A server
// whose leader exits has its group killed at once, so its children go
// too. On Linux the kernel kills a server whose parent dies (Pdeathsig),
// so even a trainer killed with SIGKILL leaves none behind. Only a
// process that leaves the group (setsid) can escape. The tests count the
// test process's children before and after.
//
// # Initial state and actions
//
// New starts the server once, lists its tools and checks that every tool
// a task names exists. An instance's initial state is a system prompt
// listing the tools (name, description, JSON schema of the arguments) and
// the action format, then the task's query as the user message.
// Config.Tools cuts the listed (and callable) tools down to a few, for a
// small policy; setup and verify calls may still use any tool.
//
// An action is an assistant message with OpenAI-style tool calls
// (Message.ToolCalls, up to MaxCallsPerAction, each answered by a tool
// message carrying its ToolCallID) or with exactly one JSON call
// {"name": "tool", "arguments": {...}} in its content, bare, in a fenced
// ```json block or in <tool_call> tags (answered by one user message).
// The episode ends with the pseudo-tool final_answer
// ({"name": "final_answer", "arguments": {"answer": "..."}}), or with the
// call that reaches Config.MaxCalls (malformed actions count). A message
// without a call does not end the episode: it gets an error observation,
// so a model must answer through final_answer.
//
// Observations are the tool results: their text content (embedded text
// resources included, images and links as placeholders), or the
// structured content as JSON when a result has no text, cut to
// Config.MaxObservationBytes. Everything the agent can get wrong is an
// observation starting with "error:", never a failed episode: no call or
// several in the text, invalid JSON, an unknown tool, arguments that break
// the tool's schema (required arguments, top-level types and
// additionalProperties false are checked here, the rest by the server), a
// tool error (isError), a JSON-RPC error answer and a call that takes
// longer than Config.CallTimeout. A server that crashes or closes the
// session is an environment failure: Step (and Evaluate) return an error
// matching ErrServerFailed, with the exit status and the tail of the
// server's stderr, and the trainer excludes the episode.
//
// # Tasks and checks
//
// A task file has one JSON object per line (see ParseTasks and Task):
// task_id, query, an optional split (train by default), optional hidden
// setup calls, a checker and an optional reference solution:
//
//	{"task_id": "fs-notes", "query": "Create notes.txt containing hello",
//	 "checker": {"type": "verify", "call": {"name": "read_text_file", "arguments": {"path": "notes.txt"}}, "exact": "hello"},
//	 "solution": {"calls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "hello"}}], "answer": "Done."}}
//
// A checker is a list of checks (or one), each of one type:
//
//   - tool_result: some successful call of "tool" (any tool when empty)
//     during the episode returned a matching result;
//   - answer: the final answer matches;
//   - verify: "call", run on the instance's server when the episode is
//     evaluated, succeeds with a matching result (the memory server's
//     read_graph holds the entity the agent created).
//
// and exactly one pattern: exact or contains (on normalised text: see
// Normalize) or regexp (RE2, on the raw text). A result matches when its
// text or its structured content's JSON does. Evaluate is the fraction of
// checks passed (dense), or with params["sparse"] == true 1 when all pass
// and 0 otherwise; the reward of the terminal step is that score, 0
// before. The parser is defensive: bounded sizes (MaxTaskFileBytes,
// MaxTaskLineBytes, MaxTasks, MaxChecks), unknown fields refused, every
// error naming its line; FuzzParseTasks checks it.
//
// testdata holds task files for the npm servers
// @modelcontextprotocol/server-memory, -filesystem and -everything, whose
// reference solutions the tests play on the real servers.
//
// # Client
//
// The package speaks MCP through the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): one sdk.Client per Env, one
// ClientSession per instance, initialize with protocol version 2025-06-18
// and no client capabilities. A stdio server is a process this package
// starts itself (process group, Pdeathsig, reaping and the instance
// directory stay in its hands); the SDK talks to it through an
// IOTransport over the process's pipes, as it talks to a Dial stream. On
// both, lines that are not JSON-RPC (stray output some servers write) are
// dropped before the SDK reads them. A URL server gets the SDK's
// StreamableClientTransport (JSON or server-sent event answers, no
// standalone event stream, Server.Headers on every request). A JSON-RPC
// error answer is an error observation, and so is a result the SDK cannot
// decode when the server still answers a ping; any other failure of a
// call is a server failure.
package mcp
