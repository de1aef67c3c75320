package grader

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/org/agentevolver"
)

func msg(role, content string) agentevolver.Message {
	return agentevolver.Message{Role: role, Content: content}
}

func TestSplitTrajectory(t *testing.T) {
	const (
		sys  = agentevolver.RoleSystem
		user = agentevolver.RoleUser
		asst = agentevolver.RoleAssistant
	)
	tests := []struct {
		name      string
		steps     []agentevolver.Message
		query     string
		agentLen  int
		wantError bool
	}{
		{"system, user, agent", []agentevolver.Message{msg(sys, "s"), msg(user, "q"), msg(asst, "a")}, "q", 1, false},
		{"no agent part", []agentevolver.Message{msg(sys, "s"), msg(user, "q")}, "q", 0, false},
		{"one message", []agentevolver.Message{msg(user, "q")}, "", 0, true},
		{"empty", nil, "", 0, true},
		{"second not user", []agentevolver.Message{msg(sys, "s"), msg(asst, "a")}, "", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, agent, err := SplitTrajectory(tt.steps)
			if tt.wantError {
				if !errors.Is(err, ErrBadTrajectory) {
					t.Fatalf("err = %v, want ErrBadTrajectory", err)
				}
				return
			}
			if err != nil || q != tt.query || len(agent) != tt.agentLen {
				t.Errorf("SplitTrajectory = %q, %d messages, %v; want %q, %d", q, len(agent), err, tt.query, tt.agentLen)
			}
		})
	}
}

func TestRenderSteps(t *testing.T) {
	_, agent, _ := SplitTrajectory(testSteps())
	got, err := RenderSteps(agent, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := ">>> STEP 0 <<<\n<|ACTION|>\norders.list(limit=3)\n<|END|>\n\n" +
		"<|OBSERVATION|>\n[12.5, 7.5, 30]\n<|END|>\n\n" +
		">>> STEP 1 <<<\n<|ACTION|>\nmessages.send(to='alice', text='50')\n<|END|>\n\n" +
		"<|OBSERVATION|>\nsent\n<|END|>\n\n"
	if got != want {
		t.Errorf("RenderSteps =\n%q\nwant\n%q", got, want)
	}

	// Steps are numbered i/2 as in the reference, whatever the roles.
	got, err = RenderSteps([]agentevolver.Message{msg("assistant", "a"), msg("assistant", "b"), msg("assistant", "c")}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(got, ">>> STEP 0 <<<") != 2 || strings.Count(got, ">>> STEP 1 <<<") != 1 {
		t.Errorf("step numbering of consecutive actions: %q", got)
	}
	// An empty content keeps the block.
	got, _ = RenderSteps([]agentevolver.Message{msg("assistant", "")}, Limits{})
	if got != ">>> STEP 0 <<<\n<|ACTION|>\n\n<|END|>\n\n" {
		t.Errorf("empty action: %q", got)
	}
}

func TestRenderStepsErrors(t *testing.T) {
	tests := []struct {
		name  string
		agent []agentevolver.Message
	}{
		{"empty", nil},
		{"starts with observation", []agentevolver.Message{msg("user", "o"), msg("assistant", "a")}},
		{"tool role", []agentevolver.Message{msg("assistant", "a"), msg("tool", "r")}},
		{"system role", []agentevolver.Message{msg("assistant", "a"), msg("system", "s")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := RenderSteps(tt.agent, Limits{}); !errors.Is(err, ErrBadTrajectory) {
				t.Errorf("err = %v, want ErrBadTrajectory", err)
			}
		})
	}
}

func TestClipMiddle(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"short", "abc", 5, "abc"},
		{"exact", "abcde", 5, "abcde"},
		{"unbounded", strings.Repeat("x", 100), -1, strings.Repeat("x", 100)},
		{"cut", "abcdefghij", 4, "ab\n[… 6 characters omitted …]\nij"},
		{"runes", "ααααββββ", 4, "αα\n[… 4 characters omitted …]\nββ"},
		{"multibyte but short", "ααα", 3, "ααα"},
	}
	for _, tt := range tests {
		if got := clipMiddle(tt.in, tt.n); got != tt.want {
			t.Errorf("%s: clipMiddle(%q, %d) = %q, want %q", tt.name, tt.in, tt.n, got, tt.want)
		}
	}
}

func TestRenderStepsBounded(t *testing.T) {
	var agent []agentevolver.Message
	for i := range 100 {
		role := agentevolver.RoleAssistant
		if i%2 == 1 {
			role = agentevolver.RoleUser
		}
		agent = append(agent, msg(role, strings.Repeat("é", 500)))
	}
	lim := Limits{MaxStepChars: 100, MaxChars: 2000}
	got, err := RenderSteps(agent, lim)
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(got); n > lim.MaxChars {
		t.Errorf("rendered %d code points, over MaxChars %d", n, lim.MaxChars)
	}
	if !strings.HasPrefix(got, ">>> STEP 0 <<<") || !strings.Contains(got, "messages omitted …]") || !strings.Contains(got, "characters omitted …]") {
		t.Errorf("want the first step, a message marker and clipped contents: %.300q", got)
	}
	if !strings.HasSuffix(got, "<|OBSERVATION|>\n"+clipMiddle(strings.Repeat("é", 500), 100)+"\n<|END|>\n\n") ||
		!strings.Contains(got, ">>> STEP 49 <<<") {
		t.Errorf("want the last step and observation kept: …%q", got[len(got)-400:])
	}
	// Unbounded shows everything.
	got, _ = RenderSteps(agent, Limits{MaxStepChars: -1, MaxChars: -1})
	if strings.Contains(got, "omitted") || strings.Count(got, "<|END|>") != 100 {
		t.Errorf("unbounded rendering was clipped")
	}
}

func TestRenderDialogue(t *testing.T) {
	got := renderDialogue(testSteps()[:3], Limits{})
	want := "SYSTEM: You are an agent in a shop.\n\nUSER: " + testQuery + "\n\nASSISTANT: orders.list(limit=3)\n\n"
	if got != want {
		t.Errorf("renderDialogue = %q, want %q", got, want)
	}
}
