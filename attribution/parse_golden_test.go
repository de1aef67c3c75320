package attribution

import (
	"errors"
	"slices"
	"testing"

	"github.com/org/agentevolver/internal/golden"
)

// TestGoldenParseStepJudgments checks ParseJudgments against every case of
// the original's parse_batch_evaluation_result: the labels, or an error of
// the matching kind where the original raised.
func TestGoldenParseStepJudgments(t *testing.T) {
	const file = "parse_step_judgments.json"
	f := golden.Load(t, file)
	for _, c := range f.Cases {
		var response string
		var numSteps int
		c.Input(t, "response", &response)
		c.Input(t, "num_steps", &numSteps)
		got, err := ParseJudgments(response, numSteps)
		if isErr, errType := c.IsError(); isErr {
			want := map[string]error{"ValueError": ErrTooFewJudgments, "KeyError": ErrStepNumbering}[errType]
			if want == nil {
				t.Fatalf("%s: unknown error type %q", c.Name, errType)
			}
			if !errors.Is(err, want) || !errors.Is(err, ErrParse) {
				t.Errorf("%s: ParseJudgments = %v, %v; want an error matching %v (%s)", c.Name, got, err, want, errType)
			}
			continue
		}
		var want []bool
		c.Output(t, "flags", &want)
		if err != nil || !slices.Equal(got, want) || got == nil {
			t.Errorf("%s: ParseJudgments(%q, %d) = %v, %v; want %v", c.Name, response, numSteps, got, err, want)
		}
	}
	t.Logf("golden %s: %d cases", file, len(f.Cases))
}
