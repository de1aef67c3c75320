package contextmgr_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/llm"
)

func testConfig() contextmgr.Config {
	return contextmgr.Config{Tokenizer: charTokenizer{}, Template: chatML{defaultSystem: "You are helpful."}}
}

func enc(s string) []int { return charTokenizer{}.Encode(s) }

func decode(t *testing.T, ids []int) string {
	t.Helper()
	s, err := charTokenizer{}.Decode(ids)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func user(s string) agentevolver.Message {
	return agentevolver.Message{Role: agentevolver.RoleUser, Content: s}
}
func system(s string) agentevolver.Message {
	return agentevolver.Message{Role: agentevolver.RoleSystem, Content: s}
}

// turn runs one policy turn and one observation through cm.
func turn(t *testing.T, cm contextmgr.ContextManager, model llm.ChatModel, obs string) []agentevolver.Message {
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
	if err := cm.RecordEnv(user(obs)); err != nil {
		t.Fatal(err)
	}
	return prompt
}

func allTokens(h []contextmgr.ExtendedMessage) []int {
	var ids []int
	for _, m := range h {
		ids = append(ids, m.Tokens...)
	}
	return ids
}

func TestLinearEpisodeTokens(t *testing.T) {
	for _, withIDs := range []bool{true, false} {
		t.Run(map[bool]string{true: "policy ids", false: "re-tokenised"}[withIDs], func(t *testing.T) {
			cm, err := contextmgr.NewLinear(testConfig())
			if err != nil {
				t.Fatal(err)
			}
			// Three initial messages exercise the fixed prefix accumulator.
			init := []agentevolver.Message{system("sys"), user("part one"), user("part two")}
			if err := cm.Init(init); err != nil {
				t.Fatal(err)
			}
			model := &scriptedModel{replies: []string{"call a()", "call b()"}, ids: withIDs}
			p1 := turn(t, cm, model, "result a")
			if !reflect.DeepEqual(p1, init) {
				t.Errorf("first prompt = %v, want the initial messages", p1)
			}
			p2 := turn(t, cm, model, "result b")
			if len(p2) != 5 || p2[3].Content != "call a()" || p2[4].Content != "result a" {
				t.Errorf("second prompt = %v", p2)
			}

			// Concatenated message tokens are the tokenised rendering.
			h := cm.History()
			var all []agentevolver.Message
			for _, m := range h {
				all = append(all, m.Message())
			}
			text, _ := chatML{}.Apply(all, tokenizerOpts())
			if got, want := decode(t, allTokens(h)), text; got != want {
				t.Errorf("history renders as\n%q\nwant\n%q", got, want)
			}

			cm.Finish()
			h = cm.History()
			if len(h) != 6 || h[5].Author != contextmgr.AuthorLLM {
				t.Fatalf("Finish left %d messages ending with %q", len(h), h[len(h)-1].Author)
			}
			traj := agentevolver.Trajectory{TaskID: "t1", DataID: "0", RolloutID: "3", Reward: agentevolver.NewReward(1, "", 0)}
			samples, err := cm.Samples(traj)
			if err != nil {
				t.Fatal(err)
			}
			if len(samples) != 1 {
				t.Fatalf("%d samples, want 1", len(samples))
			}
			s := samples[0]
			if s.TaskID != "t1" || s.DataID != "0" || s.RolloutID != "3" || s.RewardScores.Outcome != 1 {
				t.Errorf("sample ids/reward = %+v", s)
			}
			if want := allTokens(h[:3]); !slices.Equal(s.PromptIDs, want) {
				t.Errorf("prompt = %q, want the initial messages %q", decode(t, s.PromptIDs), decode(t, want))
			}
			wantResp := "<|im_start|>assistant\ncall a()<|im_end|>\n<|im_start|>user\nresult a<|im_end|>\n<|im_start|>assistant\ncall b()<|im_end|>\n"
			if got := decode(t, s.ResponseIDs); got != wantResp {
				t.Errorf("response = %q, want %q", got, wantResp)
			}
			// Loss on the policy's text and its <|im_end|>, nowhere else.
			var trained strings.Builder
			for i, id := range s.ResponseIDs {
				if s.ResponseLossMask[i] == 1 {
					trained.WriteString(decode(t, []int{id}))
				}
			}
			if got := trained.String(); got != "call a()<|im_end|>call b()<|im_end|>" {
				t.Errorf("trained tokens = %q", got)
			}
			if slices.Contains(s.PromptLossMask, 1) {
				t.Error("prompt has loss")
			}
			// Step ids: each policy turn's body (not its header) is a
			// step; observations and headers are -1.
			var stepText [2]strings.Builder
			for i, id := range s.ResponseIDs {
				switch k := s.StepIDs[i]; {
				case k >= 0 && k < 2:
					stepText[k].WriteString(decode(t, []int{id}))
				case k != -1:
					t.Fatalf("step id %d at %d", k, i)
				}
			}
			if len(s.StepIDs) != len(s.ResponseIDs) || stepText[0].String() != "call a()<|im_end|>\n" || stepText[1].String() != "call b()<|im_end|>\n" {
				t.Errorf("steps hold %q and %q (%d ids for %d tokens)", stepText[0].String(), stepText[1].String(), len(s.StepIDs), len(s.ResponseIDs))
			}
			wantSteps := []agentevolver.SampleStep{{Action: "call a()", Observation: "result a"}, {Action: "call b()"}}
			if !reflect.DeepEqual(s.Steps, wantSteps) || s.Query != "sys\npart one\npart two" {
				t.Errorf("steps %+v, query %q", s.Steps, s.Query)
			}
			n := len(s.InputIDs)
			if len(s.AttentionMask) != n || len(s.PositionIDs) != n || len(s.LossMask) != n || len(s.PromptIDs)+len(s.ResponseIDs) != n {
				t.Fatal("array lengths disagree")
			}
			for i := range n {
				if s.PositionIDs[i] != i || s.AttentionMask[i] != 1 {
					t.Fatalf("position/attention at %d = %d/%d", i, s.PositionIDs[i], s.AttentionMask[i])
				}
			}
			if withIDs {
				if len(s.ResponseLogProbs) != len(s.ResponseIDs) {
					t.Fatalf("%d log-probs for %d response tokens", len(s.ResponseLogProbs), len(s.ResponseIDs))
				}
				// Every trained token was sampled and has its log-prob;
				// untrained ones have 0.
				for i, lp := range s.ResponseLogProbs {
					if (lp != 0) != (s.ResponseLossMask[i] == 1) {
						t.Fatalf("token %d (%q): log-prob %v, loss %d", i, decode(t, s.ResponseIDs[i:i+1]), lp, s.ResponseLossMask[i])
					}
				}
			} else if s.ResponseLogProbs != nil {
				t.Error("log-probs without a policy that reports them")
			}
		})
	}
}

func TestLinearUsesPolicyIDs(t *testing.T) {
	cm, err := contextmgr.NewLinear(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := cm.Init([]agentevolver.Message{system("s"), user("u")}); err != nil {
		t.Fatal(err)
	}
	prompt, err := cm.Prompt()
	if err != nil {
		t.Fatal(err)
	}
	// The reported ids differ from the text's encoding: they must win.
	out := llm.Completion{
		Message:  agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "ok"},
		TokenIDs: append(enc("OK!"), imEndID),
	}
	if err := cm.RecordLLM(context.Background(), prompt, out); err != nil {
		t.Fatal(err)
	}
	h := cm.History()
	if got, want := decode(t, h[2].Tokens), "<|im_start|>assistant\nOK!<|im_end|>\n"; got != want {
		t.Errorf("policy tokens = %q, want %q", got, want)
	}
	if h[2].Content != "ok" {
		t.Errorf("content = %q", h[2].Content)
	}
}

func TestLinearClipsObservationsAndChecksWhatThePolicySees(t *testing.T) {
	cfg := testConfig()
	cfg.MaxEnvTokens = 150
	cfg.MaxModelLen = 400
	cfg.ResponseLength = 100
	cm, err := contextmgr.NewLinear(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := cm.Init([]agentevolver.Message{system("s"), user("u")}); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 1000)
	turn(t, cm, &scriptedModel{replies: []string{"look"}}, big)
	h := cm.History()
	obs := h[len(h)-1]
	if obs.Content != big {
		t.Error("raw observation not kept")
	}
	if want := strings.Repeat("x", 50) + contextmgr.TruncationMarker; obs.FutureContent != want {
		t.Errorf("clipped observation = %q, want %q", obs.FutureContent, want)
	}
	// The raw text (1000 tokens) would overflow; the clipped prompt fits.
	prompt, err := cm.Prompt()
	if err != nil {
		t.Fatalf("Prompt: %v", err)
	}
	if prompt[len(prompt)-1].Content != obs.FutureContent {
		t.Error("prompt does not show the clipped observation")
	}
	// Filling the window does overflow.
	for range 3 {
		out := llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "again"}}
		if err := cm.RecordLLM(context.Background(), prompt, out); err != nil {
			t.Fatal(err)
		}
		if err := cm.RecordEnv(user(big)); err != nil {
			t.Fatal(err)
		}
		if prompt, err = cm.Prompt(); err != nil {
			break
		}
	}
	if !errors.Is(err, contextmgr.ErrContextFull) {
		t.Fatalf("want ErrContextFull, got %v", err)
	}
}

func TestLinearFinishKeepsInitialMessages(t *testing.T) {
	cm, err := contextmgr.NewLinear(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := cm.Init([]agentevolver.Message{system("s"), user("u")}); err != nil {
		t.Fatal(err)
	}
	cm.Finish()
	if n := len(cm.History()); n != 2 {
		t.Fatalf("Finish without a policy turn left %d messages, want 2", n)
	}
	if _, err := cm.Samples(agentevolver.Trajectory{}); !errors.Is(err, contextmgr.ErrNoResponse) {
		t.Fatalf("want ErrNoResponse, got %v", err)
	}
	if _, err := cm.Action(); !errors.Is(err, contextmgr.ErrSequence) {
		t.Fatalf("Action before a turn: want ErrSequence, got %v", err)
	}
	if err := cm.Init([]agentevolver.Message{user("again")}); !errors.Is(err, contextmgr.ErrSequence) {
		t.Fatalf("second Init: want ErrSequence, got %v", err)
	}
}

func TestSampleLengthLimits(t *testing.T) {
	run := func(cfg contextmgr.Config) ([]agentevolver.Sample, error) {
		cm, err := contextmgr.NewLinear(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := cm.Init([]agentevolver.Message{system("s"), user("u")}); err != nil {
			t.Fatal(err)
		}
		turn(t, cm, &scriptedModel{replies: []string{"a long reply to cut"}}, "obs")
		cm.Finish()
		return cm.Samples(agentevolver.Trajectory{})
	}
	tests := []struct {
		name             string
		maxPrompt, maxRe int
		wantErr          error
		wantResponse     int
		wantSteps        int
	}{
		{name: "fits", wantResponse: len(enc("<|im_start|>assistant\na long reply to cut<|im_end|>\n")), wantSteps: 1},
		{name: "response cut", maxRe: 5, wantResponse: 5, wantSteps: 0}, // inside the header: no step left
		{name: "response cut in the reply", maxRe: 14, wantResponse: 14, wantSteps: 1},
		{name: "prompt too long", maxPrompt: 3, wantErr: contextmgr.ErrPromptTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.MaxPromptLen, cfg.MaxResponseLen = tt.maxPrompt, tt.maxRe
			samples, err := run(cfg)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			s := samples[0]
			if len(s.ResponseIDs) != tt.wantResponse || len(s.ResponseLossMask) != tt.wantResponse || len(s.InputIDs) != len(s.PromptIDs)+tt.wantResponse {
				t.Errorf("response has %d tokens (%d in input), want %d", len(s.ResponseIDs), len(s.InputIDs)-len(s.PromptIDs), tt.wantResponse)
			}
			if len(s.StepIDs) != tt.wantResponse || len(s.Steps) != tt.wantSteps {
				t.Errorf("%d step ids and %d steps, want %d and %d", len(s.StepIDs), len(s.Steps), tt.wantResponse, tt.wantSteps)
			}
		})
	}
}

func TestSamplesStripExperience(t *testing.T) {
	const tip = "use the search API"
	task := strings.Replace(contextmgr.DefaultExperienceTemplate, "{}", tip, 1) + "find a flight"
	tests := []struct {
		name      string
		exp       agentevolver.ExperienceUse
		wantStrip bool
		wantMask  bool
	}{
		// Not requested, yet the text is there (a user's own template
		// text, say): stripped under the default mode, but on-policy.
		{"default mode strips", agentevolver.ExperienceUse{}, true, false},
		{"discard strips", agentevolver.ExperienceUse{Requested: true, TrainMode: agentevolver.TrainDiscard}, true, true},
		// The reference stripped here too (its metadata keys disagreed).
		{"keep keeps", agentevolver.ExperienceUse{Requested: true, TrainMode: agentevolver.TrainKeep}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cm, err := contextmgr.NewLinear(testConfig())
			if err != nil {
				t.Fatal(err)
			}
			if err := cm.Init([]agentevolver.Message{system("s"), user(task)}); err != nil {
				t.Fatal(err)
			}
			prompt := turn(t, cm, &scriptedModel{replies: []string{"go"}, ids: true}, "done")
			if !strings.Contains(prompt[1].Content, tip) {
				t.Fatal("the policy did not see the experience")
			}
			cm.Finish()
			samples, err := cm.Samples(agentevolver.Trajectory{Experience: tt.exp})
			if err != nil {
				t.Fatal(err)
			}
			s := samples[0]
			text := decode(t, s.PromptIDs)
			if stripped := !strings.Contains(text, tip); stripped != tt.wantStrip {
				t.Errorf("prompt %q: stripped = %v, want %v", text, stripped, tt.wantStrip)
			}
			if !strings.HasSuffix(text, "find a flight<|im_end|>\n") {
				t.Errorf("prompt lost the task: %q", text)
			}
			if !reflect.DeepEqual(s.Experience, tt.exp) || s.ExpMask != tt.wantMask {
				t.Errorf("sample experience %+v, exp mask %v; want %+v, %v", s.Experience, s.ExpMask, tt.exp, tt.wantMask)
			}
			if s.Messages[1].Content == task && tt.wantStrip {
				t.Error("sample messages still hold the experience")
			}
		})
	}
}

func TestMadnessAndNoThink(t *testing.T) {
	cfg := testConfig()
	cfg.NoThink = true
	cm, err := contextmgr.NewLinear(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := cm.Init([]agentevolver.Message{system("s"), user("u")}); err != nil {
		t.Fatal(err)
	}
	turn(t, cm, &scriptedModel{replies: []string{"fine"}}, "obs")
	if cm.Madness() != 0 {
		t.Error("sane turn counted as madness")
	}
	turn(t, cm, &scriptedModel{replies: []string{"oops <|im_start|>user"}}, "")
	if cm.Madness() != -1 {
		t.Error("leaked chat markup not counted as madness")
	}
	h := cm.History()
	if got := h[1].Content; got != "u\n/no_think" {
		t.Errorf("task = %q", got)
	}
	if got := h[3].Content; got != "obs /no_think" {
		t.Errorf("observation = %q", got)
	}
	if got := h[5].Content; got != contextmgr.NoContentObservation+" /no_think" {
		t.Errorf("empty observation = %q", got)
	}
	steps := cm.Steps()
	if len(steps) != len(h) || steps[3].Content != h[3].FutureContent {
		t.Errorf("Steps = %v", steps)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	good := testConfig()
	tests := []struct {
		name     string
		strategy string
		mutate   func(*contextmgr.Config)
	}{
		{"unknown strategy", "nonsense", func(*contextmgr.Config) {}},
		{"no tokenizer", "", func(c *contextmgr.Config) { c.Tokenizer = nil }},
		{"no template", "", func(c *contextmgr.Config) { c.Template = nil }},
		{"unknown eos", "", func(c *contextmgr.Config) { c.EOSToken = "<|nope|>" }},
		{"response longer than model", "", func(c *contextmgr.Config) { c.MaxModelLen, c.ResponseLength = 10, 10 }},
		{"bad preference", contextmgr.StrategyLinearThink, func(c *contextmgr.Config) { c.ThinkPreference = "poem" }},
		{"think prompt limit too small", contextmgr.StrategyLinearThink, func(c *contextmgr.Config) { c.MaxPromptLen = 10 }},
		{"clip without model", contextmgr.StrategySelfClip, func(*contextmgr.Config) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := good
			tt.mutate(&cfg)
			if _, err := contextmgr.New(tt.strategy, cfg); !errors.Is(err, contextmgr.ErrConfig) {
				t.Fatalf("want ErrConfig, got %v", err)
			}
		})
	}
	for _, name := range []string{"", contextmgr.StrategyLinear, contextmgr.StrategyLinearThink, contextmgr.StrategyMemory} {
		if _, err := contextmgr.New(name, good); err != nil {
			t.Errorf("New(%q): %v", name, err)
		}
	}
}

func TestTemplateThatRerendersEarlierTurns(t *testing.T) {
	for _, withIDs := range []bool{true, false} {
		cfg := testConfig()
		cfg.Template = reasoningChatML{}
		cm, err := contextmgr.NewLinear(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := cm.Init([]agentevolver.Message{system("s"), user("u")}); err != nil {
			t.Fatal(err)
		}
		model := &scriptedModel{replies: []string{"one", "two"}, ids: withIDs}
		turn(t, cm, model, "obs")
		turn(t, cm, model, "obs 2")
		h := cm.History()
		if got := decode(t, h[3].Tokens); got != "<|im_start|>user\nobs<|im_end|>\n" {
			t.Errorf("observation tokens = %q", got)
		}
		want := "<|im_start|>assistant\none<|im_end|>\n"
		if !withIDs {
			// Re-tokenised, a turn is rendered as the template renders a
			// final turn.
			want = "<|im_start|>assistant\n<think>\n\n</think>\n\none<|im_end|>\n"
		}
		if got := decode(t, h[2].Tokens); got != want {
			t.Errorf("ids %v: policy tokens = %q, want %q", withIDs, got, want)
		}
		cm.Finish()
		samples, err := cm.Samples(agentevolver.Trajectory{})
		if err != nil {
			t.Fatal(err)
		}
		if withIDs {
			if got := trainedText(t, samples[0]); got != "one<|im_end|>two<|im_end|>" {
				t.Errorf("trained on %q", got)
			}
		}
	}
}
