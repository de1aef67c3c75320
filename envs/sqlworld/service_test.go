package sqlworld_test

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/sqlworld"
	"github.com/org/agentevolver/envservice"
)

// The expert plays tasks of every split through the real stack:
// envclient.Client -> HTTP -> envservice.Server -> Manager -> sqlworld.
func TestThroughEnvService(t *testing.T) {
	env := sharedEnv(t)
	m := envservice.NewManager(envservice.ManagerConfig{})
	if err := m.Register(sqlworld.Name, env); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ts := httptest.NewServer(envservice.NewServer(m, envservice.ServerConfig{DefaultEnvType: sqlworld.Name}))
	defer ts.Close()
	client, err := envclient.New(envclient.Config{BaseURL: ts.URL, EnvType: sqlworld.Name, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := client.Health(ctx); err != nil {
		t.Fatal(err)
	}
	profile, err := m.Profile(sqlworld.Name)
	if err != nil || len(profile.Entities) != 4 {
		t.Errorf("Profile = %+v, %v", profile, err)
	}
	for _, split := range []string{sqlworld.SplitTrain, sqlworld.SplitVal, sqlworld.SplitTest} {
		ids, err := client.TaskIDs(ctx, sqlworld.Name, split)
		if err != nil || len(ids) == 0 {
			t.Fatalf("TaskIDs(%s) = %d ids, %v", split, len(ids), err)
		}
		for _, id := range ids[:6] {
			init, err := client.Create(ctx, sqlworld.Name, id, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			info, _ := env.Task(id)
			if len(init.State) != 2 || init.State[1].Content != info.Question || !strings.Contains(init.State[0].Content, "```submit") {
				t.Fatalf("%s: init state %+v", id, init.State)
			}
			inst := init.InstanceID()
			bad, err := client.Step(ctx, inst, sqlAction("SELECT * FROM nowhere"), nil)
			if err != nil || !strings.HasPrefix(bad.State[0].Content, "error: no such table") || bad.IsTerminated {
				t.Fatalf("%s: bad query over HTTP: %+v, %v", id, bad, err)
			}
			actions, _ := env.Demonstrate(ctx, id)
			for i, a := range actions {
				res, err := client.Step(ctx, inst, a, nil)
				if err != nil {
					t.Fatal(err)
				}
				if last := i == len(actions)-1; res.IsTerminated != last || last && res.Reward != 1 {
					t.Fatalf("%s step %d: %+v", id, i, res)
				}
			}
			for _, sparse := range []bool{true, false} {
				if score, err := client.Evaluate(ctx, inst, map[string]any{"sparse": sparse}); err != nil || score != 1 {
					t.Fatalf("%s: Evaluate(sparse=%v) = %v, %v", id, sparse, score, err)
				}
			}
			if ok, err := client.Release(ctx, inst); err != nil || !ok {
				t.Fatalf("%s: Release = %v, %v", id, ok, err)
			}
		}
	}
	if _, err := client.Create(ctx, sqlworld.Name, "sql-train-99999", "", nil); !errors.Is(err, envclient.ErrBadRequest) {
		t.Errorf("create of an unknown task over HTTP: %v, want ErrBadRequest", err)
	}
}
