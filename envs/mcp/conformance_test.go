package mcp_test

import (
	"testing"

	"github.com/org/agentevolver/envservice/envtest"
)

// TestConformance runs the environment conformance suite on the MCP
// environment: on the in-process key-value server (no node needed), then
// on the npm memory server, a process per instance, where it is installed.
// Every session and process must be gone afterwards: the suite closes what
// it creates (TestMain checks the processes).
func TestConformance(t *testing.T) {
	t.Run("kv", func(t *testing.T) {
		env, kv := newKVEnv(t)
		envtest.Run(t, env, envtest.Options{Deterministic: true})
		waitSessions(t, kv, 0)
		if n := env.LiveInstances(); n != 0 {
			t.Errorf("%d instances still open after the suite", n)
		}
	})
	t.Run("memory", func(t *testing.T) {
		env := newNPMEnv(t, "memory", nil)
		envtest.Run(t, env, envtest.Options{Deterministic: true})
		if n := env.LiveInstances(); n != 0 {
			t.Errorf("%d instances still open after the suite", n)
		}
	})
}
