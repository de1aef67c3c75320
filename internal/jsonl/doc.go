// Package jsonl reads JSON-lines files the way the module's readers of
// trajectories (agentflow) and task files (taskgen) share: one value per
// line, blank lines skipped, every line bounded.
package jsonl
