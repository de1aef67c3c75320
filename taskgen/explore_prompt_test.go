package taskgen

import (
	"strings"
	"testing"
)

func TestExplorationSystemPrompt(t *testing.T) {
	p := musicProfile()
	tests := []struct {
		name      string
		prompt    string
		contains  []string
		excludes  []string
		wantFinal string
	}{
		{
			name:   "profile and seed query",
			prompt: ExplorationSystemPrompt(&p, "Play my best rated song"),
			contains: []string{
				"curious environment explorer", Instruction(p),
				"Phase 1: Breadth scan (the first 3-5 steps)", "Phase 2: Deep, chained exploration", "Phase 3: Pattern discovery",
				"Action Framework", "1. **Observation**", "2. **Reasoning**", "3. **Goal**", "Then perform the action",
				"`Play my best rated song`", "**do not** answer them",
			},
			excludes:  []string{NoEnvironmentDescription},
			wantFinal: "Now start exploring!\n",
		},
		{
			name:      "no profile",
			prompt:    ExplorationSystemPrompt(nil, "q"),
			contains:  []string{"## 1. Environment Description\n\n" + NoEnvironmentDescription + "\n", "`q`"},
			wantFinal: "Now start exploring!\n",
		},
		{
			name:      "no seed query",
			prompt:    ExplorationSystemPrompt(nil, ""),
			excludes:  []string{"``", "do not** answer"},
			wantFinal: "Now start exploring!\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, s := range tt.contains {
				if !strings.Contains(tt.prompt, s) {
					t.Errorf("prompt lacks %q", s)
				}
			}
			for _, s := range tt.excludes {
				if strings.Contains(tt.prompt, s) {
					t.Errorf("prompt contains %q", s)
				}
			}
			if !strings.HasSuffix(tt.prompt, tt.wantFinal) {
				t.Errorf("prompt ends %q", tt.prompt[max(0, len(tt.prompt)-80):])
			}
		})
	}
	// The phases come in order, the seed query last.
	prompt := ExplorationSystemPrompt(&p, "SEED")
	last := -1
	for _, s := range []string{"Environment Description", "Phase 1", "Phase 2", "Phase 3", "Action Framework", "Output Format", "SEED"} {
		i := strings.Index(prompt, s)
		if i <= last {
			t.Fatalf("%q out of order in the prompt", s)
		}
		last = i
	}
}
