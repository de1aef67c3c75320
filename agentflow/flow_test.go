package agentflow_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/envclient"
	"github.com/org/agentevolver/llm"
)

func newFlow(env envclient.Env) *agentflow.Flow {
	return &agentflow.Flow{
		Env:     env,
		Policy:  alwaysInc,
		Context: contextmgr.Config{Tokenizer: charTokenizer{}, Template: chatML{}},
		EnvType: "counter",
	}
}

func rollout(task string) agentflow.Rollout {
	return agentflow.Rollout{Task: agentevolver.Task{TaskID: task}, DataID: "0", RolloutID: "0"}
}

// trained returns the text of the response tokens that carry loss.
func trained(s agentevolver.Sample) string {
	var b strings.Builder
	for i, id := range s.ResponseIDs {
		if s.ResponseLossMask[i] == 1 {
			b.WriteString(decode([]int{id}))
		}
	}
	return b.String()
}

func TestRunEpisodes(t *testing.T) {
	tests := []struct {
		name       string
		goal       int
		setup      func(*counterEnv, *agentflow.Flow)
		wantTurns  int
		wantTerm   bool
		wantErr    string // substring of Trajectory.Error
		wantReward float64
		wantLastOb string // content of the last recorded observation
	}{
		{name: "success", goal: 3, wantTurns: 3, wantTerm: true, wantReward: 1, wantLastOb: "count is 2"},
		{
			name: "tool observations are converted", goal: 2,
			setup:     func(e *counterEnv, _ *agentflow.Flow) { e.toolObs = true },
			wantTurns: 2, wantTerm: true, wantReward: 1, wantLastOb: "count is 1",
		},
		{
			name: "max steps", goal: 10,
			setup:     func(_ *counterEnv, f *agentflow.Flow) { f.MaxSteps = 4 },
			wantTurns: 4, wantReward: 0.4, wantLastOb: "count is 3",
		},
		{
			name: "max steps, sparse", goal: 10,
			setup:     func(_ *counterEnv, f *agentflow.Flow) { f.MaxSteps, f.Sparse = 4, true },
			wantTurns: 4, wantReward: 0, wantLastOb: "count is 3",
		},
		{
			name: "token overflow", goal: 50,
			setup: func(_ *counterEnv, f *agentflow.Flow) {
				f.Context.MaxModelLen, f.Context.ResponseLength = 240, 40
			},
			// A 200-token window holds the task and four turns.
			wantTurns: 4, wantReward: 0.08, wantLastOb: "count is 3",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newCounterEnv(tt.goal)
			f := newFlow(env)
			if tt.setup != nil {
				tt.setup(env, f)
			}
			res, err := f.Run(context.Background(), rollout("t0"))
			if err != nil {
				t.Fatal(err)
			}
			traj := res.Trajectory
			if traj.IsTerminated != tt.wantTerm {
				t.Errorf("IsTerminated = %v, want %v", traj.IsTerminated, tt.wantTerm)
			}
			if (tt.wantErr == "") != (traj.Error == "") || !strings.Contains(traj.Error, tt.wantErr) {
				t.Errorf("Error = %q, want %q", traj.Error, tt.wantErr)
			}
			if traj.Reward.Outcome != tt.wantReward || traj.Reward.SuccessRate != map[bool]float64{true: 1, false: 0}[tt.wantReward >= 1] {
				t.Errorf("reward = %+v, want outcome %v", traj.Reward, tt.wantReward)
			}
			if traj.TaskID != "t0" || traj.Query != "Raise the counter to "+strconv.Itoa(tt.goal)+"." {
				t.Errorf("task/query = %q/%q", traj.TaskID, traj.Query)
			}
			// Steps: the two initial messages, then policy turns and the
			// observations between them; the final observation is dropped.
			if want := 2 + 2*tt.wantTurns - 1; len(traj.Steps) != want {
				t.Fatalf("%d steps, want %d: %v", len(traj.Steps), want, traj.Steps)
			}
			last := traj.Steps[len(traj.Steps)-1]
			if last.Role != agentevolver.RoleAssistant || last.Content != "inc" {
				t.Errorf("last step = %+v", last)
			}
			if ob := traj.Steps[len(traj.Steps)-2]; ob.Role != agentevolver.RoleUser || ob.Content != tt.wantLastOb {
				t.Errorf("last observation = %+v, want %q", ob, tt.wantLastOb)
			}
			if len(res.Samples) != 1 {
				t.Fatalf("%d samples", len(res.Samples))
			}
			s := res.Samples[0]
			if got, want := trained(s), strings.Repeat("inc<|im_end|>", tt.wantTurns); got != want {
				t.Errorf("trained on %q, want %q", got, want)
			}
			if len(s.ResponseLogProbs) != len(s.ResponseIDs) {
				t.Errorf("%d log-probs for %d tokens", len(s.ResponseLogProbs), len(s.ResponseIDs))
			}
			if want := (agentevolver.ExperienceUse{TrainMode: agentevolver.TrainDiscard}); !reflect.DeepEqual(traj.Experience, want) || !reflect.DeepEqual(s.Experience, want) || s.ExpMask {
				t.Errorf("experience: trajectory %+v, sample %+v (exp mask %v), want %+v", traj.Experience, s.Experience, s.ExpMask, want)
			}
			if env.open() != 0 || env.releases != 1 {
				t.Errorf("%d instances open, %d released", env.open(), env.releases)
			}
		})
	}
}

func TestRunOverflowBeforeFirstTurn(t *testing.T) {
	env := newCounterEnv(3)
	f := newFlow(env)
	f.Context.MaxModelLen, f.Context.ResponseLength = 60, 10
	_, err := f.Run(context.Background(), rollout("t0"))
	if !errors.Is(err, agentflow.ErrPromptTooLong) || !errors.Is(err, contextmgr.ErrContextFull) || !strings.Contains(err.Error(), "tokens, limit") {
		t.Fatalf("err = %v, want ErrPromptTooLong with the sizes", err)
	}
	if agentflow.CauseOf(err) != "" {
		t.Errorf("cause %q: a configuration error is not an episode failure", agentflow.CauseOf(err))
	}
	if env.open() != 0 {
		t.Error("instance not released")
	}
}

// TestRunEnvironmentFailures checks that every environment failure ends the
// episode with an *EpisodeError of its cause, the environment's message
// kept, no samples, and the instance released.
func TestRunEnvironmentFailures(t *testing.T) {
	nan := math.NaN()
	inf := math.Inf(1)
	tests := []struct {
		name      string
		setup     func(*counterEnv, *agentflow.Flow)
		cause     agentflow.FailureCause
		step      int
		message   string
		retriable bool
	}{
		{"create", func(e *counterEnv, _ *agentflow.Flow) { e.failCreates["t0"] = 1 }, agentflow.FailCreate, -1, "create t0", true},
		{"bad initial state", func(e *counterEnv, _ *agentflow.Flow) {
			e.initState = []agentevolver.Message{{Role: "system"}}
		}, agentflow.FailInitState, -1, "want [system, user]", false},
		{"step error", func(e *counterEnv, _ *agentflow.Flow) { e.stepErrAt = 2 }, agentflow.FailStep, 1, "counter crashed", true},
		{"step panic", func(e *counterEnv, _ *agentflow.Flow) { e.stepPanicAt = 2 }, agentflow.FailStepPanic, 1, "counter overflow", false},
		{"evaluate error", func(e *counterEnv, _ *agentflow.Flow) {
			e.evalErr = fmt.Errorf("judge offline: %w", envclient.ErrServer)
		}, agentflow.FailEvaluate, -1, "judge offline", false},
		{"NaN score", func(e *counterEnv, _ *agentflow.Flow) { e.evalScore = &nan }, agentflow.FailScore, -1, "NaN", false},
		{"infinite score", func(e *counterEnv, _ *agentflow.Flow) { e.evalScore = &inf }, agentflow.FailScore, -1, "+Inf", false},
		{"reward calculator error", func(_ *counterEnv, f *agentflow.Flow) {
			f.Reward = agentflow.RewardFunc(func(context.Context, agentflow.RewardInput) (float64, string, error) {
				return 0, "", errors.New("grader crashed")
			})
		}, agentflow.FailEvaluate, -1, "grader crashed", false},
		{"policy error", func(_ *counterEnv, f *agentflow.Flow) {
			f.Policy = policyFunc(func(context.Context, []agentevolver.Message) (string, error) { return "", errPolicyDown })
		}, agentflow.FailPolicy, 0, "policy down", false},
		{"reply from a stale adapter", func(_ *counterEnv, f *agentflow.Flow) {
			f.Policy = policyFunc(func(context.Context, []agentevolver.Message) (string, error) {
				return "", fmt.Errorf("server 2 answered with step-3: %w", llm.ErrStaleModel)
			})
		}, agentflow.FailStaleAdapter, 0, "step-3", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newCounterEnv(3)
			f := newFlow(env)
			tt.setup(env, f)
			res, err := f.Run(context.Background(), rollout("t0"))
			var ee *agentflow.EpisodeError
			if !errors.As(err, &ee) {
				t.Fatalf("err = %v, want an *EpisodeError", err)
			}
			if ee.Cause != tt.cause || ee.Step != tt.step || !strings.Contains(err.Error(), tt.message) {
				t.Errorf("cause %q step %d (%v), want %q step %d with %q", ee.Cause, ee.Step, err, tt.cause, tt.step, tt.message)
			}
			if len(res.Samples) != 0 {
				t.Errorf("%d samples from a failed episode", len(res.Samples))
			}
			if env.open() != 0 {
				t.Errorf("%d instances left open", env.open())
			}
			// The Runner retries only what another attempt may cure.
			env2 := newCounterEnv(3)
			f2 := newFlow(env2)
			tt.setup(env2, f2)
			if tt.cause == agentflow.FailCreate {
				env2.failCreates["t0"] = 5 // fails every attempt
			}
			r := &agentflow.Runner{Flow: f2, MaxAttempts: 2, Backoff: time.Millisecond}
			_, err = r.Run(context.Background(), []agentflow.Rollout{rollout("t0")})
			res2, rest := agentflow.RolloutErrors(err)
			if len(res2) != 1 || rest != nil {
				t.Fatalf("RolloutErrors(%v) = %v", err, res2)
			}
			if retried := res2[0].Attempts > 1; retried != tt.retriable {
				t.Errorf("attempts %d, want retried %v", res2[0].Attempts, tt.retriable)
			}
		})
	}
}

func TestRunFailures(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*counterEnv, *agentflow.Flow)
		want  error
	}{
		{"three initial messages", func(e *counterEnv, _ *agentflow.Flow) {
			e.initState = []agentevolver.Message{{Role: "system"}, {Role: "user"}, {Role: "user"}}
		}, agentflow.ErrInitState},
		{"last initial message not from the user", func(e *counterEnv, _ *agentflow.Flow) {
			e.initState = []agentevolver.Message{{Role: "system"}, {Role: "assistant"}}
		}, agentflow.ErrInitState},
		{"create fails", func(e *counterEnv, _ *agentflow.Flow) { e.failCreates["t0"] = 1 }, envclient.ErrUnavailable},
		{"policy fails", func(_ *counterEnv, f *agentflow.Flow) {
			f.Policy = policyFunc(func(context.Context, []agentevolver.Message) (string, error) { return "", errPolicyDown })
		}, errPolicyDown},
		{"reward fails", func(_ *counterEnv, f *agentflow.Flow) {
			f.Reward = agentflow.RewardFunc(func(context.Context, agentflow.RewardInput) (float64, string, error) { return 0, "", errPolicyDown })
		}, errPolicyDown},
		{"no env", func(_ *counterEnv, f *agentflow.Flow) { f.Env = nil }, agentflow.ErrConfig},
		{"bad context config", func(_ *counterEnv, f *agentflow.Flow) { f.Strategy = "nonsense" }, contextmgr.ErrConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newCounterEnv(3)
			f := newFlow(env)
			tt.setup(env, f)
			if _, err := f.Run(context.Background(), rollout("t0")); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if env.open() != 0 {
				t.Errorf("%d instances left open", env.open())
			}
		})
	}
}

func TestRunCancellationReleasesInstance(t *testing.T) {
	env := newCounterEnv(3)
	env.blockSteps = true
	env.stepStarted = make(chan struct{}, 1)
	f := newFlow(env)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.Run(ctx, rollout("t0"))
		done <- err
	}()
	<-env.stepStarted
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancellation")
	}
	if env.open() != 0 || env.releases != 1 {
		t.Errorf("%d instances open, %d released", env.open(), env.releases)
	}
}

func TestRunQueryAndSystemPrompt(t *testing.T) {
	env := newCounterEnv(1)
	var seen []agentevolver.Message
	f := newFlow(env)
	f.Policy = policyFunc(func(_ context.Context, msgs []agentevolver.Message) (string, error) {
		seen = msgs
		return "inc", nil
	})
	f.SystemPrompt = "Explore. The user asks: [USER_QUESTION]"
	r := rollout("t0")
	r.Task.Query = "Raise it once."
	res, err := f.Run(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Trajectory.Query != "Raise it once." {
		t.Errorf("query = %q", res.Trajectory.Query)
	}
	if len(seen) != 2 || seen[1].Content != "Explore. The user asks: Raise it once." || seen[0].Content != "You control a counter." {
		t.Errorf("policy saw %v", seen)
	}
}

// prepender injects a fixed experience the way the experience package does.
type prepender struct{ tip string }

func (p prepender) Inject(_ context.Context, _ agentevolver.Task, msgs []agentevolver.Message) ([]agentevolver.Message, []string, error) {
	exp := strings.Replace(contextmgr.DefaultExperienceTemplate, "{}", p.tip, 1)
	out := append([]agentevolver.Message(nil), msgs...)
	out[len(out)-1].Content = exp + out[len(out)-1].Content
	return out, []string{exp}, nil
}

func TestRunExperience(t *testing.T) {
	const tip = "inc is the only action"
	for _, mode := range []agentevolver.TrainMode{agentevolver.TrainDiscard, agentevolver.TrainKeep} {
		t.Run(string(mode), func(t *testing.T) {
			env := newCounterEnv(1)
			f := newFlow(env)
			f.Experience = prepender{tip: tip}
			var seen string
			f.Policy = policyFunc(func(_ context.Context, msgs []agentevolver.Message) (string, error) {
				seen = msgs[1].Content
				return "inc", nil
			})
			r := rollout("t0")
			r.AddExperience, r.TrainMode = true, mode
			res, err := f.Run(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(seen, tip) {
				t.Fatalf("policy did not see the experience: %q", seen)
			}
			use := res.Trajectory.Experience
			if !use.Requested || use.TrainMode != mode || len(use.Injected) != 1 {
				t.Errorf("experience = %+v", use)
			}
			s := res.Samples[0]
			prompt := decode(s.PromptIDs)
			if kept := strings.Contains(prompt, tip); kept != (mode == agentevolver.TrainKeep) {
				t.Errorf("mode %s: experience kept in the sample = %v", mode, kept)
			}
			// Stripped experience makes the sample off-policy (HET's exp_mask).
			if s.ExpMask != (mode == agentevolver.TrainDiscard) || !reflect.DeepEqual(s.Experience, use) {
				t.Errorf("mode %s: exp mask %v, sample experience %+v", mode, s.ExpMask, s.Experience)
			}
		})
	}
}

func TestRunRewardSeesFinalObservation(t *testing.T) {
	env := newCounterEnv(2)
	f := newFlow(env)
	f.Reward = agentflow.RewardFunc(func(ctx context.Context, in agentflow.RewardInput) (float64, string, error) {
		last := in.Trajectory.Steps[len(in.Trajectory.Steps)-1]
		if last.Content != "count is 2" || in.InstanceID == "" || in.Task.TaskID != "t0" {
			return 0, "", errors.New("unexpected input")
		}
		return 0.5, "half", nil
	})
	res, err := f.Run(context.Background(), rollout("t0"))
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Trajectory.Reward; r.Outcome != 0.5 || r.Description != "half" || r.SuccessRate != 0 {
		t.Errorf("reward = %+v", r)
	}
}

func TestObservation(t *testing.T) {
	tests := []struct {
		name string
		res  envclient.StepResult
		max  int
		want string
	}{
		{"user", envclient.StepResult{State: []agentevolver.Message{{Role: "user", Content: "ok"}}}, 0, "ok"},
		{"tool", envclient.StepResult{State: []agentevolver.Message{{Role: "tool", Content: "42", ToolCalls: []agentevolver.ToolCall{{ID: "c"}}}}}, 0, "42"},
		{"several", envclient.StepResult{State: []agentevolver.Message{{Role: "tool", Content: "a"}, {Role: "user", Content: ""}, {Role: "user", Content: "b"}}}, 0, "a\n\nb"},
		{"error info", envclient.StepResult{Info: map[string]any{"error": "boom"}}, 0, "[Error from environment: boom]"},
		{"empty", envclient.StepResult{}, 0, ""},
		{"cut at a rune boundary", envclient.StepResult{State: []agentevolver.Message{{Role: "user", Content: "aéé"}}}, 4, "aé" + contextmgr.TruncationMarker},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := agentflow.Observation(tt.res, tt.max)
			if got.Role != agentevolver.RoleUser || got.Content != tt.want || got.ToolCalls != nil {
				t.Errorf("got %+v, want user %q", got, tt.want)
			}
		})
	}
}

func TestRolloutSeedReachesThePolicyPerTurn(t *testing.T) {
	var seeds []int64
	env := newCounterEnv(3)
	f := newFlow(env)
	f.Policy = llm.ChatModelFunc(func(ctx context.Context, msgs []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
		if opts.Seed == nil {
			return llm.Completion{}, errors.New("no seed")
		}
		seeds = append(seeds, *opts.Seed)
		return alwaysInc.Chat(ctx, msgs, opts)
	})
	seed := int64(42)
	r := rollout("t0")
	r.Seed = &seed
	if _, err := f.Run(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if len(seeds) != 3 {
		t.Fatalf("policy called %d times, want 3", len(seeds))
	}
	for i, s := range seeds {
		if s != agentflow.TurnSeed(42, i) {
			t.Fatalf("turn %d seed %d, want %d", i, s, agentflow.TurnSeed(42, i))
		}
		if i > 0 && s == seeds[i-1] {
			t.Fatalf("turns %d and %d share seed %d", i-1, i, s)
		}
	}
}
