package avalon

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/envservice"
	"github.com/org/agentevolver/llm"
)

// episode is one driven instance: the prompts the trained seat saw, the
// replies sent, the final step and the score.
type episode struct {
	prompts [][]agentevolver.Message
	replies []string
	last    envclient.StepResult
	score   float64
}

// drive plays an instance to its end with policy answering every prompt
// (seeded by the call's index) and closes it.
func drive(t *testing.T, env *Env, taskID string, policy llm.ChatModel) episode {
	t.Helper()
	ctx := context.Background()
	inst, err := env.New(ctx, taskID, "i", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	init, err := inst.InitState(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ep episode
	state := init.State
	for k := 0; ; k++ {
		if k > 500 {
			t.Fatal("the game does not end")
		}
		ep.prompts = append(ep.prompts, state)
		seed := int64(k)
		c, err := policy.Chat(ctx, state, llm.ChatOptions{Seed: &seed})
		if err != nil {
			t.Fatal(err)
		}
		ep.replies = append(ep.replies, c.Message.Content)
		res, err := inst.Step(ctx, c.Message, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.IsTerminated {
			ep.last = res
			break
		}
		state = res.State
	}
	if ep.score, err = inst.Evaluate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return ep
}

func newTestEnv(t *testing.T, cfg EnvConfig) *Env {
	t.Helper()
	env, err := NewEnv(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func taskIDs(t *testing.T, env *Env, split string) []string {
	t.Helper()
	ids, err := env.TaskIDs(context.Background(), split, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestEnvObservationsArePlayRequests checks that the episode shows the
// trained seat exactly the requests Play sends that seat, that its
// reward is the game's outcome for the seat, and that the same task and
// replies give the same game.
func TestEnvObservationsArePlayRequests(t *testing.T) {
	for _, opp := range []string{OpponentRandom, OpponentInformed, OpponentSaboteur, OpponentCautious} {
		t.Run(opp, func(t *testing.T) {
			env := newTestEnv(t, EnvConfig{Opponents: []string{opp}, Seed: 3})
			for _, id := range taskIDs(t, env, SplitTrain)[:4] {
				policy := Random{Seed: 9, Noise: 0.2}
				ep := drive(t, env, id, policy)
				again := drive(t, env, id, policy)
				if !reflect.DeepEqual(ep.prompts, again.prompts) || ep.score != again.score {
					t.Fatalf("%s: the same task and replies gave another game", id)
				}
				// Play the same game directly, the seat played by the
				// replies the episode sent.
				res, seat, rec, err := env.playAs(context.Background(), id, NewScripted(ep.replies...))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(rec.Requests(), ep.prompts) {
					t.Fatalf("%s: the episode's %d prompts differ from Play's %d requests", id, len(ep.prompts), len(rec.Requests()))
				}
				want := 0.0
				if res.Won(seat) {
					want = 1
				}
				if ep.score != want || ep.last.Reward != want {
					t.Fatalf("%s: score %v, step reward %v, want %v", id, ep.score, ep.last.Reward, want)
				}
				for k, p := range ep.prompts {
					if p[0].Role != agentevolver.RoleSystem || !strings.HasPrefix(p[0].Content, "You are "+PlayerName(seat)+" ") {
						t.Fatalf("%s call %d: the prompt is not seat %d's", id, k, seat)
					}
					for _, m := range p {
						if strings.Contains(m.Content, "True roles") {
							t.Fatalf("%s call %d: the prompt shows the roles", id, k)
						}
						for other := range res.Roles {
							if other != seat && strings.Contains(m.Content, "["+PlayerName(other)+" ONLY]") {
								t.Fatalf("%s call %d: the prompt shows %s's private message", id, k, PlayerName(other))
							}
						}
					}
				}
			}
		})
	}
}

// TestEnvStepSemantics checks the initial state, re-asks of unreadable
// answers, the fallback after MaxRetries, the terminal step and steps
// after it.
func TestEnvStepSemantics(t *testing.T) {
	ctx := context.Background()
	env := newTestEnv(t, EnvConfig{Game: Config{MaxRetries: 1}, Seed: 1})
	id := taskIDs(t, env, SplitVal)[0]
	inst, err := env.New(ctx, id, "i", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	init, err := inst.InitState(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(init.State) != 2 || init.State[0].Role != agentevolver.RoleSystem || init.State[1].Role != agentevolver.RoleUser {
		t.Fatalf("initial state %+v: want [system, user]", init.State)
	}
	if _, err := inst.InitState(ctx, nil); !errors.Is(err, envclient.ErrBadRequest) {
		t.Fatalf("second InitState: %v", err)
	}
	if score, _ := inst.Evaluate(ctx, nil); score != 0 {
		t.Fatalf("unfinished game scores %v", score)
	}
	// Answer with gibberish until a question that parses is asked: a
	// discussion takes anything; a team, vote or target question is asked
	// again once (MaxRetries 1), then falls back.
	state, reasked := init.State, false
	for k := 0; k < 500; k++ {
		q, err := ReadQuestion(state)
		if err != nil {
			t.Fatalf("call %d: %v", k, err)
		}
		res, err := inst.Step(ctx, agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "<think>?</think>banana"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.IsTerminated {
			if res.Reward != 0 && res.Reward != 1 {
				t.Fatalf("terminal reward %v", res.Reward)
			}
			if _, err := inst.Step(ctx, agentevolver.Message{Content: "x"}, nil); !errors.Is(err, ErrNoQuestion) || !errors.Is(err, envclient.ErrBadRequest) {
				t.Fatalf("step after the end: %v", err)
			}
			if !reasked {
				t.Fatal("no unreadable answer was asked again")
			}
			return
		}
		next := res.State
		switch {
		case q.Action != ActionDiscuss && q.Reask == "":
			// First unreadable answer: the same question, the answer and
			// the moderator's re-ask.
			if len(next) != 4 || !reflect.DeepEqual(next[:2], state[:2]) || next[2].Content != "<think>?</think>banana" || !strings.Contains(next[3].Content, "could not be read") {
				t.Fatalf("call %d (%s): re-ask %+v", k, q.Action, next)
			}
			if res.Info["reask"] != true {
				t.Fatalf("call %d: re-ask not marked in info %v", k, res.Info)
			}
			reasked = true
		default:
			// A discussion, or the second unreadable answer: the game
			// moves on to a fresh question.
			if len(next) != 2 {
				t.Fatalf("call %d (%s, reask %v): next state has %d messages", k, q.Action, q.Reask != "", len(next))
			}
		}
		state = next
	}
	t.Fatal("the game does not end")
}

// TestEnvCloseFreesGoroutines closes instances in the middle of their
// games and checks that no goroutine is left behind.
func TestEnvCloseFreesGoroutines(t *testing.T) {
	ctx := context.Background()
	env := newTestEnv(t, EnvConfig{Opponents: []string{OpponentRandom}})
	before := runtime.NumGoroutine()
	ids := taskIDs(t, env, SplitTrain)[:20]
	var insts []envservice.Instance
	for i, id := range ids {
		inst, err := env.New(ctx, id, "i", nil)
		if err != nil {
			t.Fatal(err)
		}
		insts = append(insts, inst)
		if i%2 == 0 {
			continue // never asked anything: closed before its first question
		}
		if _, err := inst.InitState(ctx, nil); err != nil {
			t.Fatal(err)
		}
		for range i {
			if _, err := inst.Step(ctx, agentevolver.Message{Content: "Yes [0, 1]"}, nil); err != nil {
				break
			}
		}
	}
	for _, inst := range insts {
		if err := inst.Close(); err != nil {
			t.Fatal(err)
		}
		if err := inst.Close(); err != nil { // idempotent
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines before, %d after closing every instance", before, n)
	}
}

// TestEnvTasks checks task ids, splits and errors.
func TestEnvTasks(t *testing.T) {
	ctx := context.Background()
	env := newTestEnv(t, EnvConfig{Seed: 5, TrainTasks: 50, ValTasks: 20, TestTasks: 20})
	seen := map[uint64]string{}
	for _, split := range []string{SplitTrain, SplitVal, SplitTest} {
		ids := taskIDs(t, env, split)
		if !reflect.DeepEqual(ids, taskIDs(t, env, split)) {
			t.Fatalf("%s: task ids change between calls", split)
		}
		for _, id := range ids {
			task, err := ParseEnvTask(id)
			if err != nil {
				t.Fatal(err)
			}
			if task.ID() != id {
				t.Fatalf("round trip %q -> %q", id, task.ID())
			}
			if prev, ok := seen[task.Seed]; ok {
				t.Fatalf("seed %d in %s and %s", task.Seed, prev, split)
			}
			seen[task.Seed] = split
		}
	}
	if _, err := env.TaskIDs(ctx, "dev", nil); !errors.Is(err, ErrUnknownSplit) || !errors.Is(err, envclient.ErrBadRequest) {
		t.Fatalf("unknown split: %v", err)
	}
	for _, id := range []string{
		"", "seed=1", "seed=1,players=5,seat=1", "seed=1,players=5,seat=1,role=Merlin,opponents=random",
		"seed=1,players=4,seat=1,opponents=random", "seed=1,players=5,seat=7,opponents=random",
		"seed=1,players=5,seat=1,opponents=gpt", "seed=1,players=5,role=Percival,opponents=random",
		"seed=1,players=5,seat=1,opponents=random+random",
	} {
		if _, err := env.New(ctx, id, "i", nil); !errors.Is(err, ErrUnknownTask) || !errors.Is(err, envclient.ErrBadRequest) {
			t.Errorf("New(%q): %v, want ErrUnknownTask", id, err)
		}
	}
	// By role: the trained seat is the one dealt the role.
	byRole := newTestEnv(t, EnvConfig{Role: "Merlin", Opponents: []string{OpponentRandom, OpponentInformed, OpponentRandom, OpponentInformed}})
	for _, id := range taskIDs(t, byRole, SplitTrain)[:5] {
		inst, err := byRole.New(ctx, id, "i", nil)
		if err != nil {
			t.Fatal(err)
		}
		init, err := inst.InitState(ctx, nil)
		inst.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(init.State[0].Content, "Your role is Merlin.") {
			t.Fatalf("%s: not Merlin's prompt", id)
		}
	}
	if _, err := NewEnv(EnvConfig{Seat: "nine"}); !errors.Is(err, ErrConfig) {
		t.Fatalf("bad seat: %v", err)
	}
	if _, err := NewEnv(EnvConfig{Opponents: []string{"gpt"}}); !errors.Is(err, ErrConfig) {
		t.Fatalf("unknown opponent: %v", err)
	}
	// A named model plays where the configuration says.
	named := newTestEnv(t, EnvConfig{Opponents: []string{"mine"}, Models: map[string]llm.ChatModel{"mine": Random{Seed: 4}}})
	if ep := drive(t, named, taskIDs(t, named, SplitTrain)[0], Random{Informed: true}); len(ep.prompts) == 0 {
		t.Fatal("no prompts")
	}
}

// TestEnvExpertAndCorpus checks that a demonstration replays to a win and
// that the corpus is deterministic.
func TestEnvExpertAndCorpus(t *testing.T) {
	ctx := context.Background()
	env := newTestEnv(t, EnvConfig{Seed: 2})
	wins, losses := 0, 0
	for _, id := range taskIDs(t, env, SplitTrain)[:12] {
		demo, err := env.Demonstrate(ctx, id)
		if errors.Is(err, ErrNoDemonstration) {
			losses++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		wins++
		replies := make([]string, len(demo))
		for i, m := range demo {
			replies[i] = m.Content
		}
		if ep := drive(t, env, id, NewScripted(replies...)); ep.score != 1 || len(ep.replies) != len(demo) {
			t.Fatalf("%s: the demonstration replays to score %v in %d of %d calls", id, ep.score, len(ep.replies), len(demo))
		}
	}
	if wins == 0 || losses == 0 {
		t.Fatalf("informed baseline: %d wins, %d losses in 12 games", wins, losses)
	}
	a, err := env.Corpus(ctx, SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	b, err := env.Corpus(ctx, SplitTrain)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) == 0 || !reflect.DeepEqual(a, b) {
		t.Fatalf("corpus of %d documents, not deterministic: %v", len(a), !reflect.DeepEqual(a, b))
	}
}
