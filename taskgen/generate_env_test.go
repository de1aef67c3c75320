package taskgen_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/toolworld"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/taskgen"
)

func newTextLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// newToolworld returns a small toolworld served in process, and the
// environment itself for its capabilities.
func newToolworld(t testing.TB) (*envservice.Manager, *toolworld.Env) {
	t.Helper()
	env, err := toolworld.New(toolworld.Config{TrainSize: 12, ValSize: 3, TestSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	m := envservice.NewManager(envservice.ManagerConfig{})
	if err := m.Register(toolworld.Name, env); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, env
}

func toolworldSeeds(t testing.TB, env *toolworld.Env, n int) []agentevolver.Task {
	t.Helper()
	ids, err := env.TaskIDs(context.Background(), toolworld.SplitTrain, nil)
	if err != nil {
		t.Fatal(err)
	}
	seeds := make([]agentevolver.Task, n)
	for i := range seeds {
		seeds[i] = agentevolver.Task{TaskID: ids[i], EnvType: toolworld.Name}
	}
	return seeds
}

// replayScore plays a ground truth, one command line per action, on a
// fresh instance of taskID and returns the sparse score.
func replayScore(t *testing.T, env *toolworld.Env, taskID, groundTruth string) float64 {
	t.Helper()
	ctx := context.Background()
	in, err := env.New(ctx, taskID, "replay", nil)
	if err != nil {
		t.Fatalf("%s: %v", taskID, err)
	}
	defer in.Close()
	for line := range strings.SplitSeq(groundTruth, "\n") {
		if _, err := in.Step(ctx, agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "```tool\n" + line + "\n```"}, nil); err != nil {
			t.Fatalf("%s: step %q: %v", taskID, line, err)
		}
	}
	score, err := in.Evaluate(ctx, map[string]any{"sparse": true})
	if err != nil {
		t.Fatal(err)
	}
	return score
}

// TestGenerateHindsight runs self-questioning with no LLM on toolworld:
// random walks, hindsight tasks and the environment check. Every task is
// a hindsight task that its ground truth solves.
func TestGenerateHindsight(t *testing.T) {
	m, env := newToolworld(t)
	g := &taskgen.Generator{
		Explorer:   &taskgen.RandomWalkExplorer{Env: m, Actions: env},
		Summarizer: &taskgen.HindsightSummarizer{Synthesizer: env},
		PostFilter: &taskgen.EnvPostFilter{Env: m, Expert: env},
		N:          2,
		Seed:       1,
	}
	seeds := toolworldSeeds(t, env, 6)
	objs, rep, err := g.Generate(context.Background(), seeds)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Explored != 12 || rep.ExploreFailures != 0 || rep.SummarizeFailures != 0 || rep.Objectives+rep.EmptySummaries != 12 {
		t.Errorf("report %+v", rep)
	}
	if len(objs) < 6 || rep.AfterPostFilter != len(objs) || rep.AfterPostFilter != rep.AfterRealtime || rep.PostFailures != 0 {
		t.Fatalf("%d objectives, report %+v", len(objs), rep)
	}
	for _, o := range objs {
		tk := o.Task
		if !strings.HasPrefix(tk.TaskID, toolworld.HindsightPrefix) || tk.EnvType != toolworld.Name || tk.Evaluator != agentevolver.EvaluatorEnv ||
			!tk.OpenQuery || tk.Query == "" || o.Confidence == nil || *o.Confidence != 1 {
			t.Errorf("objective %+v", o)
		}
		if s := replayScore(t, env, tk.TaskID, tk.GroundTruth); s != 1 {
			t.Errorf("%s: ground truth scores %v", tk.TaskID, s)
		}
	}
	// The same run again gives the same tasks in the same order.
	again, _, err := g.Generate(context.Background(), seeds)
	if err != nil || mustJSON(t, again) != mustJSON(t, objs) {
		t.Errorf("not reproducible (%v)", err)
	}
}

// TestRandomWalkExplorer checks the walk: the exploration prompt with the
// profile and the seed's instruction, MaxSteps actions, all of them the
// environment's random ones.
func TestRandomWalkExplorer(t *testing.T) {
	m, env := newToolworld(t)
	seed := toolworldSeeds(t, env, 1)[0]
	info, err := env.Task(seed.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	traj, err := (&taskgen.RandomWalkExplorer{Env: m, Actions: env, MaxSteps: 3}).Explore(context.Background(), seed, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(traj.Steps) < 2 || !strings.Contains(traj.Steps[1].Content, "curious environment explorer") ||
		!strings.Contains(traj.Steps[1].Content, "`"+info.Instruction+"`") || !strings.Contains(traj.Steps[1].Content, env.Profile().Background) {
		t.Fatalf("prompt %q", traj.Steps[1].Content)
	}
	var actions []agentevolver.Message
	for _, s := range traj.Steps {
		if s.Role == agentevolver.RoleAssistant {
			actions = append(actions, s)
		}
	}
	if len(actions) != 3 {
		t.Fatalf("%d actions", len(actions))
	}
	for i, a := range actions {
		want, err := env.RandomAction(context.Background(), seed.TaskID, actions[:i], 5)
		if err != nil || want.Content != a.Content {
			t.Errorf("action %d %q, want %q (%v)", i, a.Content, want.Content, err)
		}
	}
}

// badExpert demonstrates a solution that changes nothing.
type badExpert struct{}

func (badExpert) Demonstrate(context.Context, string) ([]agentevolver.Message, error) {
	return []agentevolver.Message{{Role: agentevolver.RoleAssistant, Content: "```tool\ncontacts.list\n```"}}, nil
}

func TestEnvPostFilter(t *testing.T) {
	m, env := newToolworld(t)
	seed := toolworldSeeds(t, env, 1)[0]
	ctx := context.Background()
	obj := agentevolver.TaskObjective{Task: seed}
	if _, keep, err := (&taskgen.EnvPostFilter{Env: m, Expert: env}).Filter(ctx, obj); !keep || err != nil {
		t.Errorf("expert replay: keep %v, %v", keep, err)
	}
	if _, keep, err := (&taskgen.EnvPostFilter{Env: m, Expert: badExpert{}}).Filter(ctx, obj); keep || err != nil {
		t.Errorf("bad expert: keep %v, %v", keep, err)
	}
	synthetic := obj
	synthetic.Task.Evaluator = agentevolver.EvaluatorSynthetic
	if _, keep, err := (&taskgen.EnvPostFilter{Env: m, Expert: env}).Filter(ctx, synthetic); keep || !errors.Is(err, taskgen.ErrNotEnvScored) {
		t.Errorf("synthetic: keep %v, %v", keep, err)
	}
	unknown := obj
	unknown.Task.TaskID = "hs1:nope"
	if _, keep, err := (&taskgen.EnvPostFilter{Env: m, Expert: env}).Filter(ctx, unknown); keep || err == nil {
		t.Errorf("unknown task: keep %v, %v", keep, err)
	}
	// Solving with a policy: the expert's replay as the policy.
	demo, err := env.Demonstrate(ctx, seed.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	if _, keep, err := (&taskgen.EnvPostFilter{Env: m, Policy: taskgen.ReplayPolicy(demo)}).Filter(ctx, obj); !keep || err != nil {
		t.Errorf("policy: keep %v, %v", keep, err)
	}
}

// nothing is a synthesiser for which no episode achieves anything.
type nothing struct{}

func (nothing) SynthesizeTask(context.Context, string, []agentevolver.Message) (agentevolver.Task, error) {
	return agentevolver.Task{}, envservice.ErrNothingAchieved
}

func TestHindsightNothingAchieved(t *testing.T) {
	objs, err := (&taskgen.HindsightSummarizer{Synthesizer: nothing{}}).Summarize(context.Background(), taskgen.Exploration{Task: agentevolver.Task{TaskID: "x"}})
	if err != nil || objs != nil {
		t.Errorf("got %v, %v", objs, err)
	}
}
