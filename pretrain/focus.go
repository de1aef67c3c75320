package pretrain

import (
	"context"
	"strings"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envclient"
)

// focusedEnv serves an environment whose system prompts list fewer tools:
// of the lines after "Tools:", only those whose app.api the episode's
// expert calls, plus the first few others. It is the corpus's curriculum:
// early in pretraining a short tool list makes the tool to call and the
// values to copy stand out, so that the attention that reads them forms
// sooner; the full list takes over as training goes on.
type focusedEnv struct {
	envclient.Env
	keep        map[string]bool // app.api the expert calls
	distractors int
}

// Create implements envclient.Env.
func (e *focusedEnv) Create(ctx context.Context, envType, taskID, instanceID string, params map[string]any) (envclient.InitState, error) {
	st, err := e.Env.Create(ctx, envType, taskID, instanceID, params)
	if err != nil || len(st.State) == 0 || st.State[0].Role != agentevolver.RoleSystem {
		return st, err
	}
	state := append([]agentevolver.Message(nil), st.State...)
	state[0].Content = focusTools(state[0].Content, e.keep, e.distractors)
	st.State = state
	return st, nil
}

// focusTools cuts the tool list of a varied world's system prompt.
func focusTools(prompt string, keep map[string]bool, distractors int) string {
	head, tools, ok := strings.Cut(prompt, "\nTools:")
	if !ok {
		return prompt
	}
	var out []string
	others := 0
	for _, line := range strings.Split(strings.TrimPrefix(tools, "\n"), "\n") {
		name, _, _ := strings.Cut(line, " ")
		name, _, _ = strings.Cut(name, ":")
		switch {
		case keep[name]:
			out = append(out, line)
		case others < distractors:
			out = append(out, line)
			others++
		}
	}
	return head + "\nTools:\n" + strings.Join(out, "\n")
}

// calledTools returns the app.api of each action.
func calledTools(actions []agentevolver.Message) map[string]bool {
	out := map[string]bool{}
	for _, a := range actions {
		body := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(a.Content), "```tool"), "```"))
		name, _, _ := strings.Cut(body, " ")
		out[name] = true
	}
	return out
}

// focusShare is the share of episode i's draws that get a focused tool
// list: FocusStart at the first episode, falling linearly to 0 at episode
// FocusEpisodes.
func (c CorpusConfig) focusShare(i int64) float64 {
	if c.FocusEpisodes <= 0 || i >= c.FocusEpisodes {
		return 0
	}
	return c.FocusStart * (1 - float64(i)/float64(c.FocusEpisodes))
}
