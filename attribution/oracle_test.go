package attribution

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/envs/toolworld"
)

func newToolworld(t *testing.T) *toolworld.Env {
	t.Helper()
	env, err := toolworld.New(toolworld.Config{TrainSize: 6, ValSize: 1, TestSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// sampleSteps turns actions into the steps of a sample, as the context
// manager decodes them: the turn's text and a trailing newline.
func sampleSteps(actions ...agentevolver.Message) []agentevolver.SampleStep {
	out := make([]agentevolver.SampleStep, len(actions))
	for i, a := range actions {
		out[i] = agentevolver.SampleStep{Action: a.Content + "\n", Observation: "(observation)"}
	}
	return out
}

func toolCall(line string) agentevolver.Message {
	return agentevolver.Message{Role: agentevolver.RoleAssistant, Content: "```tool\n" + line + "\n```"}
}

// TestOracleJudgeToolworld labels episodes of real toolworld tasks: the
// expert's demonstration is all GOOD, a wrong call and a repeated call are
// BAD, an unknown task falls back.
func TestOracleJudgeToolworld(t *testing.T) {
	env := newToolworld(t)
	ids, err := env.TaskIDs(context.Background(), toolworld.SplitTrain, nil)
	if err != nil {
		t.Fatal(err)
	}
	var eps []Episode
	var want [][]bool
	for _, id := range ids[:3] {
		expert, err := env.Demonstrate(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		eps = append(eps, Episode{TaskID: id, Steps: sampleSteps(expert...), Outcome: 1})
		want = append(want, slices.Repeat([]bool{true}, len(expert)))
		eps = append(eps, Episode{TaskID: id, Steps: sampleSteps(toolCall("contacts.list"), expert[0], expert[0], toolCall("bank.pay to=Nobody amount=5")), Outcome: 0})
		want = append(want, []bool{false, true, false, false})
	}
	eps = append(eps, Episode{TaskID: "no-such-task", Steps: sampleSteps(toolCall("contacts.list")), Outcome: 1})
	j := &OracleJudge{Oracle: env}
	out, err := j.Judge(context.Background(), eps)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if out[i].Source != SourceJudged || !slices.Equal(out[i].Good, want[i]) || out[i].Err != nil || out[i].Calls != 0 {
			t.Errorf("episode %d (%s): %+v, want judged %v", i, eps[i].TaskID, out[i], want[i])
		}
	}
	last := out[len(out)-1]
	if last.Source != SourceFallback || !slices.Equal(last.Good, []bool{true}) || !errors.Is(last.Err, toolworld.ErrUnknownTask) {
		t.Errorf("unknown task: %+v, want a fallback matching ErrUnknownTask", last)
	}
	m := JudgeMetrics(eps, out)
	if m["prm/parse_success_rate"] != 6.0/7 || m["prm/judge_calls"] != 0 {
		t.Errorf("metrics %v", m)
	}
}

// TestOracleJudgeErrors: a nil oracle and an ended context are errors; an
// answer of the wrong length is a fallback.
func TestOracleJudgeErrors(t *testing.T) {
	eps := []Episode{{TaskID: "t", Steps: sampleSteps(toolCall("a.b"), toolCall("c.d")), Outcome: 0}}
	if _, err := (&OracleJudge{}).Judge(context.Background(), eps); err == nil {
		t.Error("nil oracle: no error")
	}
	short := oracleFunc(func(context.Context, string, []agentevolver.Message) ([]bool, error) { return []bool{true}, nil })
	out, err := (&OracleJudge{Oracle: short}).Judge(context.Background(), eps)
	if err != nil || out[0].Source != SourceFallback || !errors.Is(out[0].Err, ErrJudgmentLength) || !slices.Equal(out[0].Good, []bool{false, false}) {
		t.Errorf("short answer: %+v, %v", out, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if out, err := (&OracleJudge{Oracle: newToolworld(t)}).Judge(ctx, eps); !errors.Is(err, context.Canceled) || out != nil {
		t.Errorf("cancelled: %v, %v", out, err)
	}
}

type oracleFunc func(ctx context.Context, taskID string, actions []agentevolver.Message) ([]bool, error)

func (f oracleFunc) JudgeSteps(ctx context.Context, taskID string, actions []agentevolver.Message) ([]bool, error) {
	return f(ctx, taskID, actions)
}
