package textgame_test

import (
	"errors"
	"testing"

	"github.com/org/agentevolver/envs/textgame"
	"github.com/org/agentevolver/envservice/envtest"
)

// TestConformance runs the environment conformance suite on textgame: the
// real game, one process per instance. The same task and commands give the
// same transcript (the package doc's "Randomness and reproducibility").
func TestConformance(t *testing.T) {
	env, err := textgame.New(textgame.Config{})
	if errors.Is(err, textgame.ErrNoBinary) {
		t.Skipf("skipping: the game is not installed (%v); apt-get install open-adventure", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	envtest.Run(t, env, envtest.Options{Deterministic: true})
}
