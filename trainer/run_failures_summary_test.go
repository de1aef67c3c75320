package trainer

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/org/agentevolver/agentflow"
)

// TestFailureErrorSummarisesByCause checks that the error stopping a run
// after eighty failed episodes names each cause once, with its count and
// one example, rather than the most frequent cause alone.
func TestFailureErrorSummarisesByCause(t *testing.T) {
	var errs []*agentflow.RolloutError
	for i := range 80 {
		cause, msg := agentflow.FailStep, "env step: parser crashed"
		if i%4 == 0 {
			cause, msg = agentflow.FailCreate, "create instance: database locked"
		}
		errs = append(errs, &agentflow.RolloutError{TaskID: fmt.Sprintf("train-%d", i), Attempts: 1,
			Err: &agentflow.EpisodeError{Cause: cause, Step: -1, Err: errors.New(msg)}})
	}
	err := tallyFailures(errs).check("rl", 1, 80, 0.5)
	var fe *FailureError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a *FailureError", err)
	}
	msg := err.Error()
	for _, want := range []string{"80 of 80 episodes failed", "60 × step", "parser crashed", "20 × create", "database locked", "--resume"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not contain %q:\n%s", want, msg)
		}
	}
	if n := strings.Count(msg, "parser crashed"); n != 1 {
		t.Errorf("the step failure is repeated %d times:\n%s", n, msg)
	}
}
