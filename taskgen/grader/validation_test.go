package grader

import (
	"strings"
	"testing"

	"github.com/org/agentevolver"
)

func TestFinalObservation(t *testing.T) {
	tests := []struct {
		name  string
		steps []agentevolver.Message
		want  string
	}{
		{"last observation", testSteps(), "sent"},
		{"ends with the agent", testSteps()[:5], "[12.5, 7.5, 30]"},
		{"no observation: the query", testSteps()[:3], testQuery},
		{"only the agent", []agentevolver.Message{msg("assistant", "a")}, ""},
		{"nothing", nil, ""},
	}
	for _, tt := range tests {
		if got := FinalObservation(tt.steps); got != tt.want {
			t.Errorf("%s: FinalObservation = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestValidationMessages(t *testing.T) {
	long := strings.Repeat("ü", 250)
	steps := []agentevolver.Message{msg("system", "sys"), msg("user", testQuery), msg("assistant", long)}
	got := ValidationMessages(testQuery, steps, "")
	if len(got) != 1 || got[0].Role != agentevolver.RoleUser {
		t.Fatalf("ValidationMessages = %+v, want one user message", got)
	}
	text := got[0].Content
	summary := "(Step 1) system:\nsys...\n\n(Step 2) user:\n" + testQuery + "...\n\n(Step 3) assistant:\n" + strings.Repeat("ü", 200) + "...\n"
	for _, want := range []string{
		"- Query: " + testQuery, "- Trajectory Summary:\n" + summary, "- Final Observation: [no observation]",
		"**API Matching**", "**Parameter Usage**", "**Logical Flow**", "**Final Result**", "**Failed or Skipped Steps**",
		"Success: [true/false]\nReason: [",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("validation request lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, strings.Repeat("ü", 201)) {
		t.Errorf("a step shows more than %d code points", ValidationStepChars)
	}
	if got := ValidationMessages(testQuery, testSteps(), FinalObservation(testSteps()))[0].Content; !strings.Contains(got, "- Final Observation: sent\n") {
		t.Errorf("final observation not shown")
	}
	// A reply in the required format is read by ParseVerdict.
	if !ParseVerdict("Success: true\nReason: the API was called.") {
		t.Error("required format not accepted")
	}
}
