package dipgame_test

import (
	"context"
	"errors"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/arena/diplomacy"
	"github.com/org/agentevolver/arena/diplomacy/dipgame"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envs/builtin"
	"github.com/org/agentevolver/envservice/envtest"
	"github.com/org/agentevolver/llm"
)

func smallEnv(t *testing.T, cfg dipgame.EnvConfig) *dipgame.Env {
	t.Helper()
	if cfg.Game.MaxPhases == 0 {
		cfg.Game.MaxPhases = 3
	}
	if cfg.Game.NegotiationRounds == 0 {
		cfg.Game.NegotiationRounds = 1
	}
	cfg.TrainTasks, cfg.ValTasks, cfg.TestTasks = 4, 2, 1
	env, err := dipgame.NewEnv(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestEnvConformance(t *testing.T) {
	env := smallEnv(t, dipgame.EnvConfig{Opponents: []string{"random", "greedy", "random", "greedy", "random", "greedy"}})
	envtest.Run(t, env, envtest.Options{Deterministic: true, Tasks: 2, Concurrency: 3})
}

// TestEnvEpisodeMatchesPlay plays a task through the instance with the
// greedy bot's replies and checks the reward against Play with the greedy
// bot in that seat.
func TestEnvEpisodeMatchesPlay(t *testing.T) {
	ctx := context.Background()
	env := smallEnv(t, dipgame.EnvConfig{Power: "france", Opponents: []string{"random"}})
	ids, err := env.TaskIDs(ctx, "train", nil)
	if err != nil || len(ids) != 4 {
		t.Fatal(ids, err)
	}
	task, err := dipgame.ParseEnvTask(ids[0])
	if err != nil || task.Power != diplomacy.France || task.ID() != ids[0] {
		t.Fatal(task, err)
	}
	in, err := env.New(ctx, ids[0], "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	init, err := in.InitState(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	state, steps := init.State, 0
	var last envclient.StepResult
	for {
		c, err := dipgame.Greedy{}.Chat(ctx, state, llm.ChatOptions{})
		if err != nil {
			t.Fatal(err)
		}
		last, err = in.Step(ctx, c.Message, nil)
		if err != nil {
			t.Fatal(err)
		}
		steps++
		if last.IsTerminated {
			break
		}
		state = last.State
	}
	score, err := in.Evaluate(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	models := make([]llm.ChatModel, diplomacy.NumPowers)
	for i, p := range diplomacy.Powers() {
		models[i] = dipgame.Random{Seed: task.Seed ^ uint64(i)}
		if p == diplomacy.France {
			models[i] = dipgame.Greedy{}
		}
	}
	res, err := dipgame.Play(ctx, dipgame.Config{MaxPhases: 3, NegotiationRounds: 1, Chat: llm.ChatOptions{MaxTokens: dipgame.DefaultOpponentMaxTokens, Temperature: llm.Float(0)}}, task.Seed, models, nil)
	if err != nil {
		t.Fatal(err)
	}
	if score != res.Score(diplomacy.France) || last.Reward != score {
		t.Errorf("episode score %v (reward %v), Play %v", score, last.Reward, res.Score(diplomacy.France))
	}
	// Sparse, a game that is not a solo win scores 0.
	if sparse, err := in.Evaluate(ctx, map[string]any{"sparse": true}); err != nil || score <= 0 || score >= 1 || sparse != 0 {
		t.Errorf("sparse score %v (%v) of a game scoring %v; want 0", sparse, err, score)
	}
	if steps < 3 {
		t.Errorf("%d steps", steps)
	}
	if _, err := in.Step(ctx, agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "x"}, nil); !errors.Is(err, dipgame.ErrNotAsked) {
		t.Errorf("step after the end: %v", err)
	}
	if _, err := env.Demonstrate(ctx, ids[0]); !errors.Is(err, dipgame.ErrNoDemonstration) {
		t.Errorf("a 3-phase game cannot be won: %v", err)
	}
}

func TestEnvConfigErrors(t *testing.T) {
	for _, cfg := range []dipgame.EnvConfig{
		{Opponents: []string{"gpt-9"}},
		{Opponents: []string{"random", "greedy"}},
		{Power: "Narnia"},
		{TrainTasks: -1},
		{Snapshots: map[string]string{"old": "/nowhere"}},
	} {
		if _, err := dipgame.NewEnv(cfg); !errors.Is(err, dipgame.ErrConfig) {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
	for _, id := range []string{"", "seed=1", "seed=1,power=FRANCE", "seed=x,power=FRANCE,opponents=random", "seed=1,power=FRANCE,opponents=random,extra=1", "seed=1,seed=2,power=FRANCE,opponents=random"} {
		if _, err := dipgame.ParseEnvTask(id); !errors.Is(err, envclient.ErrBadRequest) {
			t.Errorf("%q: %v", id, err)
		}
	}
}

func TestBuiltinRegistration(t *testing.T) {
	env, err := builtin.Open(context.Background(), dipgame.EnvName, builtin.Config{Diplomacy: dipgame.EnvConfig{Opponents: []string{"greedy"}, TrainTasks: 2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := env.(*dipgame.Env); !ok {
		t.Fatalf("%T", env)
	}
	_, err = builtin.Open(context.Background(), dipgame.EnvName, builtin.Config{Diplomacy: dipgame.EnvConfig{Snapshots: map[string]string{"old": "/x"}}}, nil)
	if err == nil {
		t.Error("snapshots without a loader opened")
	}
}

// TestEnvDemonstrationReplaysToAWin finds a task whose 20-phase game the
// greedy bot wins against random bots and replays its demonstration on a
// fresh instance: the same game, to a score of 1.
func TestEnvDemonstrationReplaysToAWin(t *testing.T) {
	if testing.Short() {
		t.Skip("plays 20-phase games")
	}
	ctx := context.Background()
	env, err := dipgame.NewEnv(dipgame.EnvConfig{Game: dipgame.Config{NegotiationRounds: -1}, Opponents: []string{"random"}, TrainTasks: 12})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := env.TaskIDs(ctx, "train", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		demo, err := env.Demonstrate(ctx, id)
		if errors.Is(err, dipgame.ErrNoDemonstration) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		in, err := env.New(ctx, id, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		if _, err := in.InitState(ctx, nil); err != nil {
			t.Fatal(err)
		}
		var last envclient.StepResult
		for i, a := range demo {
			if last, err = in.Step(ctx, a, nil); err != nil {
				t.Fatal(err)
			}
			if last.IsTerminated != (i == len(demo)-1) {
				t.Fatalf("step %d of %d: terminated %v", i, len(demo), last.IsTerminated)
			}
		}
		if score, _ := in.Evaluate(ctx, nil); score != 1 || last.Reward != 1 {
			t.Fatalf("the demonstration scored %v (reward %v)", score, last.Reward)
		}
		return
	}
	t.Fatalf("the greedy bot won none of %d games", len(ids))
}
