package attribution

import (
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/internal/golden"
)

// TestGoldenStepEvalPrompt checks StepEvalMessages and the rescaling of the
// outcome against every case of the original's
// build_batch_reward_evaluation_prompt and rescale_score.
func TestGoldenStepEvalPrompt(t *testing.T) {
	const file = "step_eval_prompt.json"
	f := golden.Load(t, file)
	n := 0
	for _, c := range f.Cases {
		var kind string
		c.Input(t, "kind", &kind)
		isErr, errType := c.IsError()
		switch kind {
		case "rescale_score":
			var score float64
			c.Input(t, "score", &score)
			var threshold float64 // null means the module default, 0
			if c.Has("threshold") {
				c.Input(t, "threshold", &threshold)
			}
			got, err := rescale(score, threshold)
			if isErr {
				if err == nil {
					t.Errorf("%s: rescale(%v, %v) = %v, want an error (%s)", c.Name, score, threshold, got, errType)
				}
				break
			}
			var want golden.Num
			c.Output(t, "rescaled", &want)
			if err != nil || !golden.Close(got, float64(want), f.Tolerance, f.RelTolerance) {
				t.Errorf("%s: rescale(%v, %v) = %v, %v; want %v", c.Name, score, threshold, got, err, want)
			}
			if !c.Has("threshold") && RescaleScore(score) != got {
				t.Errorf("%s: RescaleScore(%v) = %v, want %v", c.Name, score, RescaleScore(score), got)
			}
		case "prompt":
			if isErr {
				t.Fatalf("%s: unexpected error case (%s)", c.Name, errType)
			}
			var query string
			var raw []map[string]*string
			var score float64
			var maxChars int
			c.Input(t, "query", &query)
			c.Input(t, "steps", &raw)
			c.Input(t, "overall_score", &score)
			c.Input(t, "max_step_chars", &maxChars)
			steps := make([]agentevolver.SampleStep, len(raw))
			for i, st := range raw {
				// A missing key and null are None in the original: no text.
				if a := st["action"]; a != nil {
					steps[i].Action = *a
				}
				if o := st["observation"]; o != nil {
					steps[i].Observation = *o
				}
			}
			var want []agentevolver.Message
			c.Output(t, "messages", &want)
			got := StepEvalMessages(query, steps, score, maxChars)
			if len(got) != len(want) {
				t.Errorf("%s: %d messages, want %d", c.Name, len(got), len(want))
				break
			}
			for i := range want {
				if got[i].Role != want[i].Role || got[i].Content != want[i].Content {
					t.Errorf("%s: message %d differs:\ngot  %s %q\nwant %s %q", c.Name, i, got[i].Role, got[i].Content, want[i].Role, want[i].Content)
				}
			}
		default:
			t.Fatalf("%s: unknown case kind %q", c.Name, kind)
		}
		n++
	}
	t.Logf("golden %s: %d cases", file, n)
}
