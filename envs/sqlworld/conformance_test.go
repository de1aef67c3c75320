package sqlworld_test

import (
	"testing"
	"time"

	"github.com/org/agentevolver/envs/sqlworld"
	"github.com/org/agentevolver/envservice/envtest"
)

// TestConformance runs the environment conformance suite on sqlworld. Its
// Env is small (Corpus, which the suite calls twice, runs every task of a
// split) with the long statement timeout of sharedEnv, for -race on a
// loaded machine.
func TestConformance(t *testing.T) {
	requireData(t)
	env, err := sqlworld.New(sqlworld.Config{TrainSize: 30, ValSize: 10, TestSize: 10, StatementTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Close() })
	envtest.Run(t, env, envtest.Options{Deterministic: true})
}
