package agentflow_test

import (
	"bytes"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/agentflow"
	"github.com/org/agentevolver/envclient"
)

func FuzzReadTrajectories(f *testing.F) {
	f.Add([]byte(`{"task_id":"a","steps":[{"role":"user","content":"hi"}],"reward":{"outcome":1}}` + "\n"))
	f.Add([]byte(`{"task_id":"a","steps":[{"role":"user","content":[{"type":"text","text":"x"}]}]}`))
	f.Add([]byte("\n\n{\"task_id\":\"b\",\"metadata\":{\"experience_list\":[]}}\r\n"))
	f.Add([]byte(`{"task_id":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		trajs, err := agentflow.ReadTrajectories(bytes.NewReader(data))
		if err != nil && !errors.Is(err, agentflow.ErrTrajectoryLine) {
			t.Fatalf("unexpected error type: %v", err)
		}
		// What was read writes back and reads again unchanged in count.
		var buf bytes.Buffer
		w := agentflow.NewTrajectoryWriter(&buf)
		for _, tr := range trajs {
			if tr.TaskID == "" {
				t.Fatal("accepted a trajectory without a task id")
			}
			if err := w.Write(tr); err != nil {
				return // e.g. NaN metadata cannot be written back
			}
		}
		again, err := agentflow.ReadTrajectories(&buf)
		if err != nil || len(again) != len(trajs) {
			t.Fatalf("re-read %d of %d: %v", len(again), len(trajs), err)
		}
	})
}

func FuzzObservation(f *testing.F) {
	f.Add("count is 1", "tool", 0, "")
	f.Add("", "user", 5, "boom")
	f.Add("aéé\xff", "user", 3, "")
	f.Fuzz(func(t *testing.T, content, role string, maxBytes int, errInfo string) {
		maxBytes %= 1 << 12
		res := envclient.StepResult{State: []agentevolver.Message{{Role: role, Content: content}}}
		if errInfo != "" {
			res.Info = map[string]any{"error": errInfo}
		}
		got := agentflow.Observation(res, maxBytes)
		if got.Role != agentevolver.RoleUser {
			t.Fatalf("role %q", got.Role)
		}
		limit := maxBytes
		if limit <= 0 {
			limit = agentflow.DefaultMaxObservationBytes
		}
		if len(got.Content) > limit+len("... truncate ...") {
			t.Fatalf("%d bytes, limit %d", len(got.Content), limit)
		}
		if utf8.ValidString(content) && utf8.ValidString(errInfo) && !utf8.ValidString(got.Content) {
			t.Fatal("cut inside a character")
		}
	})
}
