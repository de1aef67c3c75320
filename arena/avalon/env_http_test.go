package avalon_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/arena/avalon"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
)

// TestEnvOverHTTP serves Env with the env-service protocol and replays a
// winning demonstration through the HTTP client: every state arrives
// with its messages and roles intact, and the game scores 1.
func TestEnvOverHTTP(t *testing.T) {
	ctx := context.Background()
	env, err := avalon.NewEnv(avalon.EnvConfig{Game: avalon.Config{MaxRetries: 1}, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	m := envservice.NewManager(envservice.ManagerConfig{})
	defer m.Close()
	if err := m.Register(avalon.EnvName, env); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(envservice.NewServer(m, envservice.ServerConfig{DefaultEnvType: avalon.EnvName, TrustClientIDs: true}))
	defer srv.Close()
	client, err := envclient.New(envclient.Config{BaseURL: srv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := client.TaskIDs(ctx, avalon.EnvName, avalon.SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	var demo []agentevolver.Message
	var task string
	for _, id := range ids {
		if demo, err = env.Demonstrate(ctx, id); err == nil {
			task = id
			break
		}
		if !errors.Is(err, avalon.ErrNoDemonstration) {
			t.Fatal(err)
		}
	}
	if task == "" {
		t.Fatal("the informed baseline won no game")
	}
	init, err := client.Create(ctx, avalon.EnvName, task, "http-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(init.State) != 2 || init.State[0].Role != agentevolver.RoleSystem {
		t.Fatalf("initial state over HTTP: %+v", init.State)
	}
	for k, action := range demo {
		res, err := client.Step(ctx, "http-1", action, nil)
		if err != nil {
			t.Fatal(err)
		}
		if last := k == len(demo)-1; res.IsTerminated != last {
			t.Fatalf("step %d of %d: terminated %v", k, len(demo), res.IsTerminated)
		}
		if !res.IsTerminated {
			if _, err := avalon.ReadQuestion(res.State); err != nil {
				t.Fatalf("step %d: the state is not a seat's request: %v", k, err)
			}
		}
	}
	score, err := client.Evaluate(ctx, "http-1", nil)
	if err != nil || score != 1 {
		t.Fatalf("score %v, %v", score, err)
	}
	if ok, err := client.Release(ctx, "http-1"); !ok || err != nil {
		t.Fatalf("release: %v %v", ok, err)
	}
}
