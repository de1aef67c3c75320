package cues_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/taskgen/cues"
)

// TestRemoteEnvironment runs the pipeline against toolworld served over
// the env-service protocol: no capability crosses HTTP, so the
// environment check replays the ground truth.
func TestRemoteEnvironment(t *testing.T) {
	m := manager(t, toolworld.Name, builtin.Config{Toolworld: toolworld.Config{TrainSize: 2}})
	ts := httptest.NewServer(envservice.NewServer(m, envservice.ServerConfig{DefaultEnvType: toolworld.Name}))
	t.Cleanup(ts.Close)
	c, err := envclient.New(envclient.Config{BaseURL: ts.URL, EnvType: toolworld.Name})
	if err != nil {
		t.Fatal(err)
	}
	st, err := cues.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &cues.Pipeline{Env: c, Model: serve(t, toolworldScript()), Store: st, Config: cues.Config{
		EnvType: toolworld.Name, Seed: 5, Workers: 2,
		Stage1: cues.Stage1Config{RolloutNum: 2, MaxSteps: 6}, Stage2: cues.Stage2Config{BatchSize: 6}}}
	stats, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s3 := stats.Stage3
	if s3.Tasks != 2 || s3.EnvChecked != 2 || s3.Accepted < 1 || s3.Accepted != s3.EnvPassed {
		t.Fatalf("stage 3 = %+v", s3)
	}
	names, _ := st.ListJSON("trajectories", "trajectory_")
	var tr cues.Trajectory
	if _, err := st.ReadJSON("trajectories/"+names[0], &tr); err != nil || tr.EnvCheck == nil || tr.EnvCheck.Method != cues.CheckReplay {
		t.Fatalf("accepted trajectory's check: %+v, %v", tr.EnvCheck, err)
	}
	// A remote environment cannot relabel: asking for hindsight fails at
	// the start.
	p2 := &cues.Pipeline{Env: c, Model: toolworldScript(), Store: st, Config: cues.Config{EnvType: toolworld.Name,
		Stage2: cues.Stage2Config{Method: cues.AbstractHindsight}}}
	if err := p2.Init(context.Background()); err == nil {
		t.Error("hindsight over HTTP was accepted")
	}
}
