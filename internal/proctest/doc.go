// Package proctest checks, in tests, that no process a test started
// outlives it: environments that run programs (envs/mcp, envs/textgame)
// must take their processes with them.
package proctest
