package agentflow_test

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
)

func TestTrajectoryJSONLRoundTrip(t *testing.T) {
	in := []agentevolver.Trajectory{
		{TaskID: "a", DataID: "0", RolloutID: "1", Query: "q", Steps: []agentevolver.Message{{Role: "user", Content: "x\ny"}},
			IsTerminated: true, Reward: agentevolver.NewReward(1, "", 0)},
		{TaskID: "b", Error: "env step 0: boom", Reward: agentevolver.NewReward(0, "why", -1)},
	}
	var buf bytes.Buffer
	w := agentflow.NewTrajectoryWriter(&buf)
	for _, tr := range in {
		if err := w.Write(tr); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(buf.String(), "\n"); n != 2 {
		t.Fatalf("%d lines, want 2", n)
	}
	if !strings.Contains(buf.String(), `"is_terminated":true`) || !strings.Contains(buf.String(), `"success_rate":1`) {
		t.Errorf("field names differ from the reference: %s", buf.String())
	}
	out, err := agentflow.ReadTrajectories(strings.NewReader("\n" + buf.String() + "\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("round trip:\n%+v\nwant\n%+v", out, in)
	}
}

func TestReadTrajectoriesRejects(t *testing.T) {
	tests := []struct{ name, text string }{
		{"not json", "{oops}\n"},
		{"no task id", `{"steps":[]}` + "\n"},
		{"two objects on a line", `{"task_id":"a"} {"task_id":"b"}` + "\n"},
		{"wrong type", `{"task_id":"a","steps":"none"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := agentflow.ReadTrajectories(strings.NewReader(`{"task_id":"ok"}` + "\n" + tt.text))
			if !errors.Is(err, agentflow.ErrTrajectoryLine) {
				t.Fatalf("want ErrTrajectoryLine, got %v", err)
			}
		})
	}
	t.Run("line too long", func(t *testing.T) {
		long := io.MultiReader(strings.NewReader(`{"task_id":"`), &repeatReader{b: 'a', n: agentflow.MaxTrajectoryLineBytes}, strings.NewReader(`"}`+"\n"))
		if _, err := agentflow.ReadTrajectories(long); !errors.Is(err, agentflow.ErrTrajectoryLine) {
			t.Fatalf("want ErrTrajectoryLine, got %v", err)
		}
	})
}

// repeatReader yields n copies of b.
type repeatReader struct {
	b byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range k {
		p[i] = r.b
	}
	r.n -= k
	return k, nil
}
