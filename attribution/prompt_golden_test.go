package attribution

import (
	"encoding/json"
	"maps"
	"strings"
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
			// Numbers may be "NaN" or "±Infinity", as the fixtures write
			// non-finite floats.
			var num golden.Num
			c.Input(t, "score", &num)
			score := float64(num)
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
			if !c.Has("threshold") && !golden.Close(RescaleScore(score), got, 0, 0) {
				t.Errorf("%s: RescaleScore(%v) = %v, want %v", c.Name, score, RescaleScore(score), got)
			}
		case "prompt":
			if isErr {
				t.Fatalf("%s: unexpected error case (%s)", c.Name, errType)
			}
			var query string
			var raw []map[string]*string
			var num golden.Num
			var maxChars int
			c.Input(t, "query", &query)
			c.Input(t, "steps", &raw)
			c.Input(t, "overall_score", &num)
			score := float64(num)
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

// TestGoldenStepEvalPromptNonFinite runs TestGoldenStepEvalPrompt on the
// fixture, renamed, with cases of the shapes a held-out set has: overall
// scores and rescaled outcomes that are not finite, which the fixtures
// write as strings. The prompts are the original's: Python formats them
// "+nan" (negative: NaN > 0 is false), "+inf" (positive) and "-inf".
func TestGoldenStepEvalPromptNonFinite(t *testing.T) {
	const file = "step_eval_prompt.json"
	var base golden.Case
	for _, c := range golden.Load(t, file).Cases {
		var kind string
		var score float64
		c.Input(t, "kind", &kind)
		if kind == "prompt" && c.Has("overall_score") {
			c.Input(t, "overall_score", &score)
			if score == -1 {
				base = c
				break
			}
		}
	}
	if base.Inputs == nil {
		t.Fatal("no prompt case with overall score -1 to derive from")
	}
	var extra []golden.Case
	for _, v := range []struct{ json, shown, polarity string }{
		{`"NaN"`, "+nan", "negative"}, {`"Infinity"`, "+inf", "positive"}, {`"-Infinity"`, "-inf", "negative"},
	} {
		var msgs []agentevolver.Message
		base.Output(t, "messages", &msgs)
		line := "**OVERALL PERFORMANCE SCORE -1.0000 (negative)**"
		if !strings.Contains(msgs[1].Content, line) {
			t.Fatalf("base case lacks %q", line)
		}
		msgs[1].Content = strings.Replace(msgs[1].Content, line, "**OVERALL PERFORMANCE SCORE "+v.shown+" ("+v.polarity+")**", 1)
		out, err := json.Marshal(msgs)
		if err != nil {
			t.Fatal(err)
		}
		in := maps.Clone(base.Inputs)
		in["overall_score"] = json.RawMessage(v.json)
		extra = append(extra,
			golden.Case{Inputs: in, Outputs: map[string]json.RawMessage{"messages": out}},
			golden.Case{
				Inputs:  map[string]json.RawMessage{"kind": json.RawMessage(`"rescale_score"`), "score": json.RawMessage(v.json), "threshold": json.RawMessage("null")},
				Outputs: map[string]json.RawMessage{"rescaled": json.RawMessage(v.json)},
			})
	}
	golden.Renamed(t, []string{file}, map[string][]golden.Case{file: extra})
	TestGoldenStepEvalPrompt(t)
}
