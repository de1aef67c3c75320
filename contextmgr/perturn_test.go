package contextmgr_test

import (
	"context"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/contextmgr"
	"github.com/org/agentevolver/llm"
)

// trainedText returns the text of the tokens of s that carry loss.
func trainedText(t *testing.T, s agentevolver.Sample) string {
	t.Helper()
	var b strings.Builder
	for i, id := range s.ResponseIDs {
		if s.ResponseLossMask[i] == 1 {
			b.WriteString(decode(t, []int{id}))
		}
	}
	return b.String()
}

func TestLinearThink(t *testing.T) {
	tests := []struct {
		name         string
		mutate       func(*contextmgr.Config)
		hint         string
		wantSamples  int
		wantTrained2 string // trained text of the second sample
	}{
		{name: "default", hint: contextmgr.ThinkHint, wantSamples: 2, wantTrained2: "<think>more</think>do y<|im_end|>"},
		{name: "force box", mutate: func(c *contextmgr.Config) { c.ForceThink, c.ThinkPreference = true, contextmgr.PreferBox }, hint: contextmgr.ForceThinkBox, wantSamples: 2, wantTrained2: "<think>more</think>do y<|im_end|>"},
		{name: "force code", mutate: func(c *contextmgr.Config) { c.ForceThink = true }, hint: contextmgr.ForceThinkCode, wantSamples: 2, wantTrained2: "<think>more</think>do y<|im_end|>"},
		{name: "train history", mutate: func(c *contextmgr.Config) { c.TrainHistory = true }, hint: contextmgr.ThinkHint, wantSamples: 2, wantTrained2: "do x<|im_end|><think>more</think>do y<|im_end|>"},
		{name: "one sample", mutate: func(c *contextmgr.Config) { c.MaxSamples = 1 }, hint: contextmgr.ThinkHint, wantSamples: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			if tt.mutate != nil {
				tt.mutate(&cfg)
			}
			cm, err := contextmgr.NewLinearThink(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := cm.Init([]agentevolver.Message{system("sys"), user("task")}); err != nil {
				t.Fatal(err)
			}
			model := &scriptedModel{replies: []string{"<think>plan</think>do x", "<think>more</think>do y"}, ids: true}
			p1 := turn(t, cm, model, "obs 1")
			if got := p1[1].Content; got != "task"+tt.hint {
				t.Errorf("first prompt task = %q", got)
			}
			if h := cm.History(); h[2].Content != "<think>plan</think>do x" {
				t.Errorf("recorded turn = %q, want the raw turn", h[2].Content)
			}
			p2 := turn(t, cm, model, "obs 2")
			wantTask := "task"
			if cfg.TrainHistory {
				wantTask += "\n/no_think"
			}
			if len(p2) != 4 || p2[1].Content != wantTask || p2[2].Content != "do x" || p2[3].Content != "obs 1"+tt.hint {
				t.Errorf("second prompt = %#v", p2)
			}
			cm.Finish()
			samples, err := cm.Samples(agentevolver.Trajectory{})
			if err != nil {
				t.Fatal(err)
			}
			if len(samples) != tt.wantSamples {
				t.Fatalf("%d samples, want %d", len(samples), tt.wantSamples)
			}
			if got := trainedText(t, samples[0]); got != "<think>plan</think>do x<|im_end|>" {
				t.Errorf("sample 1 trains on %q", got)
			}
			if tt.wantSamples > 1 {
				if got := trainedText(t, samples[1]); got != tt.wantTrained2 {
					t.Errorf("sample 2 trains on %q, want %q", got, tt.wantTrained2)
				}
				if len(samples[1].Messages) != 5 {
					t.Errorf("sample 2 built from %d messages, want 5", len(samples[1].Messages))
				}
			}
		})
	}
}

// clipModel answers the decision request with decision and a compress
// request with compressed.
type clipModel struct {
	decision, compressed string
	calls                int
}

func (c *clipModel) Chat(_ context.Context, msgs []agentevolver.Message, opts llm.ChatOptions) (llm.Completion, error) {
	c.calls++
	if opts.Temperature == nil || *opts.Temperature != 0 {
		return llm.Completion{}, context.DeadlineExceeded
	}
	reply := c.decision
	if strings.Contains(msgs[len(msgs)-1].Content, "filter out all redundant information") {
		reply = c.compressed
	}
	return llm.Completion{Message: agentevolver.Message{Role: agentevolver.RoleAssistant, Content: reply}}, nil
}

func TestSelfContextClip(t *testing.T) {
	tests := []struct {
		name       string
		decision   string
		compressed string
		train      bool
		wantCalls  int
		wantPrompt []string // contents of the third prompt
	}{
		{
			name:      "remove",
			decision:  "Sure.\n```json\n[{\"id\":\"ER001\",\"useful\":false,\"action\":\"remove\"},{\"id\":\"AR001\",\"useful\":true,\"action\":\"keep\"}]\n```",
			wantCalls: 1,
			wantPrompt: []string{"sys", "task", "[Assistant Response, id=AR001]\n---\ndo x",
				"[Assistant Response, id=AR002]\n---\ndo y", "[Environment Response, id=ER001]\n---\nobs 2"},
		},
		{
			name:       "compress",
			decision:   "```\n[{\"id\":\"ER001\",\"useful\":true,\"action\":\"compress\"}]\n```",
			compressed: "```\nshort obs\n```",
			wantCalls:  2,
			wantPrompt: []string{"sys", "task", "[Assistant Response, id=AR001]\n---\ndo x",
				"[Environment Response, id=ER001]\n---\nshort obs", "[Assistant Response, id=AR002]\n---\ndo y",
				"[Environment Response, id=ER002]\n---\nobs 2"},
		},
		{
			name:      "malformed reply changes nothing",
			decision:  "[{\"id\":\"ER001\",\"useful\":false,\"action\":\"remove\"}]",
			wantCalls: 1,
			wantPrompt: []string{"sys", "task", "[Assistant Response, id=AR001]\n---\ndo x",
				"[Environment Response, id=ER001]\n---\nobs 1", "[Assistant Response, id=AR002]\n---\ndo y",
				"[Environment Response, id=ER002]\n---\nobs 2"},
		},
		{
			name:      "unknown id changes nothing",
			decision:  "```json\n[{\"id\":\"ER001\",\"useful\":false,\"action\":\"remove\"},{\"id\":\"ER009\",\"useful\":false,\"action\":\"remove\"}]\n```",
			wantCalls: 1,
			wantPrompt: []string{"sys", "task", "[Assistant Response, id=AR001]\n---\ndo x",
				"[Environment Response, id=ER001]\n---\nobs 1", "[Assistant Response, id=AR002]\n---\ndo y",
				"[Environment Response, id=ER002]\n---\nobs 2"},
		},
		{
			name:      "trained decisions",
			decision:  "```json\n[{\"id\":\"AR001\",\"useful\":false,\"action\":\"remove\"}]\n```",
			train:     true,
			wantCalls: 1,
			wantPrompt: []string{"sys", "task", "[Environment Response, id=ER001]\n---\nobs 1",
				"[Assistant Response, id=AR001]\n---\ndo y", "[Environment Response, id=ER002]\n---\nobs 2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clip := &clipModel{decision: tt.decision, compressed: tt.compressed}
			cfg := testConfig()
			cfg.ClipModel = clip
			cfg.ClipTriggerTokens = 50
			cfg.TrainClipDecisions = tt.train
			cm, err := contextmgr.NewSelfContextClip(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := cm.Init([]agentevolver.Message{system("sys"), user("task")}); err != nil {
				t.Fatal(err)
			}
			model := &scriptedModel{replies: []string{"<think>a</think>do x", "do y", "do z", "do w"}, ids: true}
			turn(t, cm, model, "obs 1") // no observation in the prompt yet: no clip
			if clip.calls != 0 {
				t.Fatal("clipped before any observation was tagged")
			}
			p2 := turn(t, cm, model, "obs 2")
			if got := p2[2].Content; got != "[Assistant Response, id=AR001]\n---\ndo x" {
				t.Errorf("tagged turn = %q", got)
			}
			p3 := turn(t, cm, model, "obs 3")
			var got []string
			for _, m := range p3 {
				got = append(got, m.Content)
			}
			if strings.Join(got, "|") != strings.Join(tt.wantPrompt, "|") {
				t.Errorf("third prompt\n%q\nwant\n%q", got, tt.wantPrompt)
			}
			turn(t, cm, model, "obs 4")
			if clip.calls != tt.wantCalls {
				t.Errorf("clip model called %d times, want %d (clips once)", clip.calls, tt.wantCalls)
			}
			cm.Finish()
			samples, err := cm.Samples(agentevolver.Trajectory{})
			if err != nil {
				t.Fatal(err)
			}
			want := 4
			if tt.train {
				want = 5
			}
			if len(samples) != want {
				t.Errorf("%d samples, want %d", len(samples), want)
			}
			if len(cm.Steps()) != 2+2*4-1 {
				t.Errorf("Steps has %d messages", len(cm.Steps()))
			}
		})
	}
}

func TestMemory(t *testing.T) {
	reply := func(step, code string) string {
		return "# current step\n" + step + "\n\n# previous instruction code\n```python\nprint(0)\n```\n\n" +
			"# relevant environment feedback\n- token: abc\n\n# next-step instruction code\n```python\n# a comment, not a heading\n" + code + "\n```\n"
	}
	cm, err := contextmgr.NewMemory(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := cm.Init([]agentevolver.Message{system("sys"), user("task")}); err != nil {
		t.Fatal(err)
	}
	model := &scriptedModel{replies: []string{reply("1: login", "login()"), "just text", reply("3: pay", "pay()")}, ids: true}

	p1 := turn(t, cm, model, "logged in")
	if len(p1) != 3 || p1[2].Content != contextmgr.MemoryFirstInstruction {
		t.Fatalf("first prompt = %#v", p1)
	}
	p2, err := cm.Prompt()
	if err != nil {
		t.Fatal(err)
	}
	if len(p2) != 5 {
		t.Fatalf("second prompt has %d messages: %#v", len(p2), p2)
	}
	if !strings.HasPrefix(p2[2].Content, "Previous steps:\n---\n\n>> step: 1: login\n>> instruction:\n```python\n# a comment, not a heading\nlogin()\n```") {
		t.Errorf("memory = %q", p2[2].Content)
	}
	if p2[3].Role != agentevolver.RoleAssistant || !strings.Contains(p2[3].Content, "login()") || strings.Contains(p2[3].Content, "current step") {
		t.Errorf("previous code = %q", p2[3].Content)
	}
	if p2[4].Content != "logged in"+contextmgr.MemoryEnvInstruction {
		t.Errorf("observation = %q", p2[4].Content)
	}
	out, _ := model.Chat(context.Background(), p2, llm.ChatOptions{})
	if err := cm.RecordLLM(context.Background(), p2, out); err != nil {
		t.Fatal(err)
	}
	if a, _ := cm.Action(); a.Content != "just text" {
		t.Errorf("action without sections = %q, want the whole turn", a.Content)
	}
	if err := cm.RecordEnv(user("what?")); err != nil {
		t.Fatal(err)
	}
	turn(t, cm, model, "paid")
	if a, _ := cm.Action(); a.Content != "```python\n# a comment, not a heading\npay()\n```" {
		t.Errorf("action = %q, want the next-step code", a.Content)
	}
	cm.Finish()
	for _, m := range cm.Steps() {
		if strings.HasPrefix(m.Content, "\n>> step:") {
			t.Error("Steps shows a memory entry")
		}
	}
	samples, err := cm.Samples(agentevolver.Trajectory{})
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 3 {
		t.Fatalf("%d samples, want 3", len(samples))
	}
	// Only the new turn trains; the replayed code does not.
	if got := trainedText(t, samples[1]); got != "just text<|im_end|>" {
		t.Errorf("sample 2 trains on %q", got)
	}
}
