package toolworld

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/org/agentevolver"
)

// TestOracleJudgeSteps labels hand-made episodes on real generated tasks,
// one of each level.
func TestOracleJudgeSteps(t *testing.T) {
	e := newEnv(t, Config{TrainSize: 6, ValSize: 1, TestSize: 1})
	ctx := context.Background()
	tool := func(line string) agentevolver.Message {
		return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "```tool\n" + line + "\n```"}
	}
	text := func(s string) agentevolver.Message {
		return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: s}
	}
	for _, id := range splitIDs(t, e, SplitTrain)[:3] {
		expert, err := e.Solve(id)
		if err != nil {
			t.Fatal(err)
		}
		first := expert[0]
		cases := []struct {
			name    string
			actions []agentevolver.Message
			want    []bool
		}{
			{"expert", expert, trues(len(expert))},
			{"empty episode", nil, []bool{}},
			{"parse error", []agentevolver.Message{text("I will look it up."), first}, []bool{false, true}},
			{"unknown api", []agentevolver.Message{tool("contacts.search name=Ann"), first}, []bool{false, true}},
			{"failed call", []agentevolver.Message{tool("files.read name=no-such-file.txt"), first}, []bool{false, true}},
			{"detour outside the solution", []agentevolver.Message{tool("contacts.list"), first}, []bool{false, true}},
			{"repeated call", []agentevolver.Message{first, first}, []bool{true, false}},
			// task.finish before the work: no answer for a question, unmet
			// checks for a change. (The expert's own finish with the right
			// answer would complete a question task: a lucky guess is GOOD.)
			{"premature finish", []agentevolver.Message{tool("task.finish"), first}, []bool{false, false}},
			{"after finish", append(slices.Clone(expert), first), append(trues(len(expert)), false)},
			{"wrong answer", []agentevolver.Message{tool("task.finish answer=\"certainly not this\"")}, []bool{false}},
			{"thinking around the call", []agentevolver.Message{text("<think>first the lookup</think>\n" + first.Content + "\n")}, []bool{true}},
		}
		for _, c := range cases {
			got, err := e.JudgeSteps(ctx, id, c.actions)
			if err != nil {
				t.Fatalf("%s %s: %v", id, c.name, err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%s %s: JudgeSteps = %v, want %v (actions %q)", id, c.name, got, c.want, contents(c.actions))
			}
		}
	}
}

// TestOracleJudgeStepsErrors: an unknown task and an ended context are
// errors, not verdicts.
func TestOracleJudgeStepsErrors(t *testing.T) {
	e := newEnv(t, Config{TrainSize: 3, ValSize: 1, TestSize: 1})
	if _, err := e.JudgeSteps(context.Background(), "tw-train-9999", nil); !errors.Is(err, ErrUnknownTask) {
		t.Fatalf("unknown task: err = %v, want ErrUnknownTask", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	expert, _ := e.Solve("tw-train-0000")
	if v, err := e.JudgeSteps(ctx, "tw-train-0000", expert); !errors.Is(err, context.Canceled) || v != nil {
		t.Fatalf("cancelled: %v, %v; want nil, context.Canceled", v, err)
	}
}

func trues(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}

func contents(ms []agentevolver.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Content
	}
	return out
}
