package toolworld_test

import (
	"testing"

	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice/envtest"
)

// TestConformance runs the environment conformance suite on toolworld,
// which implements every optional capability of envservice.
func TestConformance(t *testing.T) {
	env, err := toolworld.New(toolworld.Config{TrainSize: 30, ValSize: 10, TestSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	envtest.Run(t, env, envtest.Options{Deterministic: true})
}
