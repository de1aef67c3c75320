package textgame_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/textgame"
	"github.com/org/agentevolver/envservice"
)

// TestThroughEnvService plays the expert's episode of every training task
// over HTTP, as "agentevolver serve-env" and a trainer would.
func TestThroughEnvService(t *testing.T) {
	env, err := textgame.New(textgame.Config{})
	if errors.Is(err, textgame.ErrNoBinary) {
		t.Skipf("skipping: the game is not installed (%v); apt-get install open-adventure", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	m := envservice.NewManager(envservice.ManagerConfig{})
	if err := m.Register(textgame.Name, env); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(envservice.NewServer(m, envservice.ServerConfig{DefaultEnvType: textgame.Name}))
	defer ts.Close()
	client, err := envclient.New(envclient.Config{BaseURL: ts.URL, EnvType: textgame.Name, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ids, err := client.TaskIDs(ctx, textgame.Name, textgame.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) == 0 {
		t.Fatal("no training tasks")
	}
	for _, id := range ids {
		init, err := client.Create(ctx, textgame.Name, id, "", nil)
		if err != nil {
			t.Fatalf("create %s: %v", id, err)
		}
		inst := init.InstanceID()
		if len(init.State) != 2 {
			t.Fatalf("%s: init state %+v", id, init.State)
		}
		actions, err := env.Demonstrate(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var last envclient.StepResult
		for _, a := range actions {
			if last, err = client.Step(ctx, inst, a, nil); err != nil {
				t.Fatalf("%s step %q: %v", id, a.Content, err)
			}
		}
		if !last.IsTerminated || last.Reward != 1 {
			t.Errorf("%s: expert over HTTP ended %v with reward %v", id, last.IsTerminated, last.Reward)
		}
		score, err := client.Evaluate(ctx, inst, map[string]any{"sparse": true})
		if err != nil || score != 1 {
			t.Errorf("%s: Evaluate = %v, %v; want 1", id, score, err)
		}
		if _, err := client.Info(ctx, inst, nil); err != nil {
			t.Errorf("%s: Info: %v", id, err)
		}
		if ok, err := client.Release(ctx, inst); err != nil || !ok {
			t.Errorf("%s: Release = %v, %v", id, ok, err)
		}
		if _, err := client.Step(ctx, inst, actions[0], nil); !errors.Is(err, envclient.ErrInstanceNotFound) {
			t.Errorf("%s: Step after release: %v, want ErrInstanceNotFound", id, err)
		}
	}
	if _, err := client.Create(ctx, textgame.Name, "advent-train-9999", "", nil); !errors.Is(err, envclient.ErrBadRequest) {
		t.Errorf("create of an unknown task: %v, want ErrBadRequest", err)
	}
}
