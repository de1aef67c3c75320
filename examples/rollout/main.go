// Command rollout runs episodes of the built-in toolworld environment (or
// of any env service) with a model behind an OpenAI-compatible
// chat-completions endpoint, such as vLLM, ollama or a hosted API, and
// prints a readable transcript of each episode, its score and a summary.
//
//	go run ./examples/rollout --base-url http://127.0.0.1:8000/v1 --model qwen2.5-7b-instruct --tasks 3
//
// Episodes run concurrently through agentflow's Runner; each talks to an
// environment instance through the Linear context manager (or the one
// --context names). --out also writes the trajectories as JSON lines.
// Ctrl-C stops the episodes, releases their environment instances and
// prints what finished; a second Ctrl-C quits at once. See README.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal the default handling returns, so that a second
	// Ctrl-C ends the program at once.
	context.AfterFunc(ctx, stop)
	code := exitCode(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr)
	stop()
	os.Exit(code)
}
