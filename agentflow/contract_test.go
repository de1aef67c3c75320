package agentflow_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/envclient"
)

// mutedEnv is a counterEnv whose steps that do not end the episode return
// no observation and a reward.
type mutedEnv struct{ *counterEnv }

func (e mutedEnv) Step(ctx context.Context, id string, action agentevolver.Message, params map[string]any) (envclient.StepResult, error) {
	res, err := e.counterEnv.Step(ctx, id, action, params)
	if err == nil && !res.IsTerminated {
		res.State, res.Reward = nil, 0.5
	}
	return res, err
}

// TestFlowWarnsOnceAboutContract checks that a step with no observation
// and a reward from a step that did not end the episode are accepted, and
// each logged once for all the Flows sharing a ContractWarnings, however
// many episodes show them.
func TestFlowWarnsOnceAboutContract(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	shared := &agentflow.ContractWarnings{}
	for range 2 { // two Flows of one run
		f := newFlow(mutedEnv{newCounterEnv(3)})
		f.Logger, f.Warnings = log, shared
		for _, task := range []string{"t0", "t1"} {
			if _, err := f.Run(context.Background(), rollout(task)); err != nil {
				t.Fatal(err)
			}
		}
	}
	out := logs.String()
	for _, kind := range []string{agentflow.WarnEmptyObservation, agentflow.WarnStepReward} {
		if n := strings.Count(out, "warning="+kind); n != 1 {
			t.Errorf("%s logged %d times, want once:\n%s", kind, n, out)
		}
		if shared.Count(kind) != 8 { // 2 flows x 2 episodes x 2 non-final steps
			t.Errorf("%s counted %d times, want 8", kind, shared.Count(kind))
		}
	}

	// A well-behaved environment draws no warning; a Flow without a
	// shared ContractWarnings warns once by itself.
	logs.Reset()
	f := newFlow(newCounterEnv(3))
	f.Logger = log
	if _, err := f.Run(context.Background(), rollout("t0")); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "warning=") {
		t.Errorf("warnings for a well-behaved environment:\n%s", logs.String())
	}
	f = newFlow(mutedEnv{newCounterEnv(3)})
	f.Logger = log
	for range 3 {
		if _, err := f.Run(context.Background(), rollout("t0")); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(logs.String(), "warning="+agentflow.WarnStepReward); n != 1 {
		t.Errorf("an unshared Flow warned %d times, want once:\n%s", n, logs.String())
	}
}
