package contextmgr_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/llm"
)

// callOnce runs one call of cm with model and returns its prompt.
func callOnce(t *testing.T, cm contextmgr.ContextManager, model llm.ChatModel) []agentevolver.Message {
	t.Helper()
	prompt, err := cm.Prompt()
	if err != nil {
		t.Fatal(err)
	}
	out, err := model.Chat(context.Background(), prompt, llm.ChatOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cm.RecordLLM(context.Background(), prompt, out); err != nil {
		t.Fatal(err)
	}
	if _, err := cm.Action(); err != nil {
		t.Fatal(err)
	}
	return prompt
}

func TestPerCall(t *testing.T) {
	for _, ids := range []bool{false, true} {
		t.Run(map[bool]string{false: "text", true: "sampled ids"}[ids], func(t *testing.T) {
			cm, err := contextmgr.New(contextmgr.StrategyPerCall, testConfig())
			if err != nil {
				t.Fatal(err)
			}
			pc := cm.(*contextmgr.PerCall)
			states := [][]agentevolver.Message{
				{system("rules"), user("history 1\n\nquestion 1")},
				{system("rules"), user("history 2\n\nquestion 2")},
				{system("rules"), user("history 2\n\nquestion 2"), {Role: agentevolver.RoleAssistant, Content: "b"}, user("again")},
				{user("history 3")}, // no system message: the initial one is added
			}
			replies := []string{"a", "b", "<think>c</think>yes", "d"}
			model := &scriptedModel{replies: replies, ids: ids}
			if err := cm.Init(states[0]); err != nil {
				t.Fatal(err)
			}
			var prompts [][]agentevolver.Message
			for k := range replies {
				prompts = append(prompts, callOnce(t, cm, model))
				if k+1 < len(states) {
					if err := pc.RecordState(states[k+1]); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := pc.RecordState([]agentevolver.Message{user("game over")}); err != nil {
				t.Fatal(err)
			}
			for k, p := range prompts[:3] {
				if !reflect.DeepEqual(p, states[k]) {
					t.Errorf("prompt %d = %+v, want the state %+v", k, p, states[k])
				}
			}
			if want := []agentevolver.Message{system("rules"), user("history 3")}; !reflect.DeepEqual(prompts[3], want) {
				t.Errorf("prompt 3 = %+v, want %+v", prompts[3], want)
			}
			cm.Finish()
			if got := len(cm.Steps()); got != 2+2*len(replies)-1 {
				t.Errorf("%d steps recorded", got)
			}
			reward := agentevolver.NewReward(1, "won", 0)
			samples, err := cm.Samples(agentevolver.Trajectory{Reward: reward})
			if err != nil {
				t.Fatal(err)
			}
			if len(samples) != len(replies) {
				t.Fatalf("%d samples for %d calls", len(samples), len(replies))
			}
			for k, s := range samples {
				if got := trainedText(t, s); got != replies[k]+"<|im_end|>" {
					t.Errorf("sample %d trains on %q", k, got)
				}
				full := append(append([]agentevolver.Message(nil), prompts[k]...), agentevolver.Message{Role: agentevolver.RoleAssistant, Content: replies[k]})
				want, err := (chatML{defaultSystem: "You are helpful."}).Apply(full, tokenizerOpts())
				if err != nil {
					t.Fatal(err)
				}
				if got := decode(t, s.InputIDs); got != want {
					t.Errorf("sample %d tokens %q, want the rendering %q", k, got, want)
				}
				if !reflect.DeepEqual(s.Messages[:len(s.Messages)-1], prompts[k]) {
					t.Errorf("sample %d messages %+v", k, s.Messages)
				}
				if !reflect.DeepEqual(s.RewardScores, reward) {
					t.Errorf("sample %d reward %+v", k, s.RewardScores)
				}
			}
		})
	}
}

func TestPerCallLimits(t *testing.T) {
	// No bound on the samples by default; a prompt longer than
	// MaxPromptLen is skipped, not an error.
	cfg := testConfig()
	cfg.MaxPromptLen = 200
	cm, err := contextmgr.NewPerCall(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := cm.Init([]agentevolver.Message{system("s"), user("q")}); err != nil {
		t.Fatal(err)
	}
	n := 40
	model := &scriptedModel{replies: strings.Split(strings.Repeat("r", n), ""), ids: true}
	for k := range n {
		callOnce(t, cm, model)
		q := "q"
		if k == 10 {
			q = strings.Repeat("long ", 60)
		}
		if err := cm.RecordEnv(user(q)); err != nil { // one observation: [system, obs]
			t.Fatal(err)
		}
	}
	cm.Finish()
	samples, err := cm.Samples(agentevolver.Trajectory{})
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != n-1 {
		t.Fatalf("%d samples of %d calls, one with a long prompt", len(samples), n)
	}
	if _, err := cm.Prompt(); err == nil {
		t.Fatal("Prompt after Finish without a state")
	}
}
