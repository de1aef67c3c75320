package taskgen

import (
	"reflect"
	"strings"
	"testing"

	"github.com/org/agentevolver"
)

// exploreSteps is an exploration episode in the reference's layout:
// [0] the environment's system message, [1] the exploration prompt with
// the seed query, [2] the first assistant turn, then turns and
// observations, including an assistant turn followed by another, and one
// followed by a system message.
func exploreSteps() []agentevolver.Message {
	return []agentevolver.Message{
		{Role: "system", Content: "env sys"},
		{Role: "user", Content: "PROMPT with SEED QUERY"},
		{Role: "assistant", Content: "call a"},
		{Role: "user", Content: "obs a"},
		{Role: "assistant", Content: "call b"},
		{Role: "tool", Content: "obs b"},
		{Role: "assistant", Content: "call c"},
		{Role: "assistant", Content: "call d"},
		{Role: "system", Content: "x"},
		{Role: "assistant", Content: "final"},
	}
}

// The expectations of the reference's layout are the outputs of the
// reference's get_task_summarize_prompt on the same steps.
func TestFormatRecord(t *testing.T) {
	reward := &agentevolver.Reward{Outcome: 1, Description: agentevolver.DefaultRewardDescription}
	tests := []struct {
		name   string
		steps  []agentevolver.Message
		reward *agentevolver.Reward
		want   string
	}{
		{
			name:   "reference layout with reward",
			steps:  exploreSteps(),
			reward: reward,
			want:   "## Record 0\n### History\n>>> STEP 0 <<<\n<|ACTION|>\ncall a\n<|END|>\n\n<|OBSERVATION|>\nobs a\n<|END|>\n>>> STEP 1 <<<\n<|ACTION|>\ncall b\n<|END|>\n\n<|OBSERVATION|>\nobs b\n<|END|>\n### Reward: 1.0\nOutcome 1 = success, 0 = failure.\n",
		},
		{
			name:  "no reward",
			steps: exploreSteps()[:4],
			want:  "## Record 0\n### History\n>>> STEP 0 <<<\n<|ACTION|>\ncall a\n<|END|>\n\n<|OBSERVATION|>\nobs a\n<|END|>\n",
		},
		{
			name:   "empty",
			reward: &agentevolver.Reward{Outcome: 0.25, Description: "partial"},
			want:   "## Record 0\n### History\n### Reward: 0.25\npartial\n",
		},
		{
			name:  "last message is an assistant turn",
			steps: []agentevolver.Message{{Role: "assistant", Content: "a"}},
			want:  "## Record 0\n### History\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatRecord(tt.steps, tt.reward); got != tt.want {
				t.Errorf("FormatRecord =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestMaskSeedQuery(t *testing.T) {
	msgs := func(roles ...string) []agentevolver.Message {
		var out []agentevolver.Message
		for i, r := range roles {
			out = append(out, agentevolver.Message{Role: r, Content: r + string(rune('0'+i))})
		}
		return out
	}
	tests := []struct {
		name   string
		steps  []agentevolver.Message
		masked []int
	}{
		// The reference's steps[1] and steps[2]; steps[0] never reaches a record.
		{"reference layout", msgs("system", "user", "assistant", "user", "assistant", "tool"), []int{0, 1, 2}},
		{"prompt as the system message", msgs("system", "assistant", "user"), []int{0, 1}},
		{"several initial messages", msgs("system", "user", "user", "assistant", "user"), []int{0, 1, 2, 3}},
		{"no assistant turn", msgs("system", "user"), []int{0, 1}},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := append([]agentevolver.Message(nil), tt.steps...)
			got := MaskSeedQuery(tt.steps)
			if !reflect.DeepEqual(tt.steps, orig) {
				t.Fatal("MaskSeedQuery modified its argument")
			}
			if len(got) != len(tt.steps) {
				t.Fatalf("len = %d, want %d", len(got), len(tt.steps))
			}
			for i, m := range got {
				wantMasked := false
				for _, j := range tt.masked {
					wantMasked = wantMasked || i == j
				}
				if wantMasked != (m.Content == Masked) || m.Role != tt.steps[i].Role {
					t.Errorf("message %d = %+v, masked want %v", i, m, wantMasked)
				}
				if !wantMasked && m.Content != tt.steps[i].Content {
					t.Errorf("message %d content changed to %q", i, m.Content)
				}
			}
		})
	}
}

func TestSummaryMessages(t *testing.T) {
	// The reference's prompt for exploreSteps() once its masking works:
	// the first action is [MASKED].
	const wantNoProfile = "Please analyze the following agent interaction sequence and abstract specific tasks from it:\n\n## Record 0\n### History\n>>> STEP 0 <<<\n<|ACTION|>\n[MASKED]\n<|END|>\n\n<|OBSERVATION|>\nobs a\n<|END|>\n>>> STEP 1 <<<\n<|ACTION|>\ncall b\n<|END|>\n\n<|OBSERVATION|>\nobs b\n<|END|>\n### Reward: 1.0\nOutcome 1 = success, 0 = failure.\n\n\n# Old Objectives\nYou have already explored the following objectives:\n\n[\"it's q1\", 'q2 \"x\"']\n\nPlease avoid repeating these objectives.\n\n# Task Requirements\n\nPlease follow the instructions to generate tasks.\n\n# Now Start\n\nPlease identify the specific tasks the agent is attempting to complete in these interactions, and abstract them into clear task descriptions and queries following the specified format.\n"
	const wantProfile = "Please analyze the following agent interaction sequence and abstract specific tasks from it:\n\n## Record 0\n### History\n>>> STEP 0 <<<\n<|ACTION|>\n[MASKED]\n<|END|>\n\n<|OBSERVATION|>\nobs a\n<|END|>\n\n\n# Old Objectives\nYou have already explored the following objectives:\n\n[]\n\nPlease avoid repeating these objectives.\n\n# Task Requirements\n\nThe task should involve the following characteristics:\n- **Average number of entities involved**: 1\n- **Average number of operations involved**: 2\n- **Relation difficulty**: Hard: Involves multiple entities or attributes, and operations require prior condition checks or depend on the results of previous steps. Requires reasoning and decision-making.\n\n**Rubrics**:\nr1\nYou are required to follow these preferences strictly.\n\n\n# Now Start\n\nPlease identify the specific tasks the agent is attempting to complete in these interactions, and abstract them into clear task descriptions and queries following the specified format.\n"
	profile := &agentevolver.EnvProfile{Name: "n", Background: "b", TaskPreference: agentevolver.TaskPreference{NumEntities: 1, NumOpts: 2, RelationDifficulty: 3}}
	tests := []struct {
		name string
		in   SummaryInput
		want string
	}{
		{
			name: "no profile",
			in: SummaryInput{
				Steps:         exploreSteps(),
				Reward:        &agentevolver.Reward{Outcome: 1, Description: agentevolver.DefaultRewardDescription},
				OldObjectives: []string{"it's q1", "", `q2 "x"`},
				Rubrics:       []string{"ignored without a profile"},
			},
			want: wantNoProfile,
		},
		{
			name: "profile and rubrics",
			in:   SummaryInput{Steps: exploreSteps()[:4], Profile: profile, Rubrics: []string{"r1"}},
			want: wantProfile,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := append([]agentevolver.Message(nil), tt.in.Steps...)
			msgs := SummaryMessages(tt.in)
			if len(msgs) != 2 || msgs[0].Role != agentevolver.RoleSystem || msgs[1].Role != agentevolver.RoleUser {
				t.Fatalf("messages = %+v", msgs)
			}
			if msgs[0].Content != SummarySystemPrompt {
				t.Error("system message is not SummarySystemPrompt")
			}
			if msgs[1].Content != tt.want {
				t.Errorf("user message =\n%q\nwant\n%q", msgs[1].Content, tt.want)
			}
			for _, secret := range []string{"SEED QUERY", "call a"} {
				if strings.Contains(msgs[1].Content, secret) {
					t.Errorf("the summariser sees %q", secret)
				}
			}
			if !reflect.DeepEqual(tt.in.Steps, orig) {
				t.Error("SummaryMessages modified the steps")
			}
		})
	}
}

func TestSummarySystemPrompt(t *testing.T) {
	for _, s := range []string{
		"Real-World Task Discovery Expert", `"query":`, `"confidence":`, `"action_sequence":`,
		"<task>", "</task>", "EXAMPLES", "CHECKLIST", "exploration", "verifiable",
	} {
		if !strings.Contains(SummarySystemPrompt, s) {
			t.Errorf("SummarySystemPrompt lacks %q", s)
		}
	}
	// The two examples parse as task blocks.
	objs, rep := ParseTaskBlocksReport(SummarySystemPrompt, agentevolver.Task{TaskID: "t"})
	if len(objs) != 2 || rep.Blocks != 3 || len(rep.Skipped) != 1 {
		t.Errorf("examples: %d objectives, report %+v; want 2 (and the format block skipped)", len(objs), rep)
	}
}
