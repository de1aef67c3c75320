package avalon_test

import (
	"testing"

	"github.com/org/agentevolver/arena/avalon"
	"github.com/org/agentevolver/envservice/envtest"
)

// TestConformance runs the environment conformance suite on Avalon as a
// training environment. The same task and the same replies give the same
// game (Env's doc), so episodes are deterministic.
func TestConformance(t *testing.T) {
	env, err := avalon.NewEnv(avalon.EnvConfig{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	envtest.Run(t, env, envtest.Options{Deterministic: true})
}
