package taskgen

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/org/agentevolver"
)

func seedTask() agentevolver.Task {
	return agentevolver.Task{
		TaskID:    "seed-1",
		EnvType:   "toolworld",
		Metadata:  map[string]any{"split": "train", "tags": []any{"a"}, "nested": map[string]any{"k": "v"}},
		Evaluator: agentevolver.EvaluatorEnv,
	}
}

func block(body string) string { return "<task>" + body + "</task>" }

func TestParseTaskBlocks(t *testing.T) {
	type want struct {
		query, groundTruth string
		confidence         *float64
	}
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name      string
		response  string
		want      []want
		skipped   []error // the reasons of the skipped blocks, in order
		truncated bool
	}{
		{"no blocks", "I found nothing.", nil, nil, false},
		{
			"one block across lines",
			"Here:\n<task>\n{\n  \"query\": \"Pay Bob $5\",\n  \"confidence\": 0.9,\n  \"action_sequence\": \"bank.pay to=bob\"\n}\n</task>\nDone.",
			[]want{{"Pay Bob $5", "bank.pay to=bob", f(0.9)}}, nil, false,
		},
		{
			"several blocks, shortest bodies",
			block(`{"query":"q1","confidence":1,"action_sequence":"s1"}`) + " text " + block(`{"query":"q2","confidence":0.5,"action_sequence":"s2"}`),
			[]want{{"q1", "s1", f(1)}, {"q2", "s2", f(0.5)}}, nil, false,
		},
		{
			"missing fields skipped",
			block(`{"query":"q1","confidence":1}`) + block(`{"confidence":1,"action_sequence":"s"}`) + block(`{"query":"q3","action_sequence":"s"}`) + block(`{"query":"q4","confidence":0.1,"action_sequence":"s4"}`),
			[]want{{"q4", "s4", f(0.1)}}, []error{ErrBlockMissingField, ErrBlockMissingField, ErrBlockMissingField}, false,
		},
		{
			// The reference stops at the invalid block and loses q3.
			"invalid JSON skipped, parsing goes on",
			block(`{"query":"q1","confidence":1,"action_sequence":"s1"}`) + block(`{"query": "q2", confidence: 1}`) + block(`{"query":"q3","confidence":0.2,"action_sequence":"s3"}`),
			[]want{{"q1", "s1", f(1)}, {"q3", "s3", f(0.2)}}, []error{ErrBlockJSON}, false,
		},
		{
			"not objects",
			block(`["query","confidence","action_sequence"]`) + block(`"query confidence action_sequence"`) + block(`null`) + block(``) + block(`{"query":"q","confidence":1,"action_sequence":"s"} {}`),
			nil, []error{ErrBlockJSON, ErrBlockJSON, ErrBlockJSON, ErrBlockJSON, ErrBlockJSON}, false,
		},
		{
			"null confidence",
			block(`{"query":"q","confidence":null,"action_sequence":"s"}`),
			[]want{{"q", "s", nil}}, nil, false,
		},
		{
			"confidence clamped, numeric string accepted",
			block(`{"query":"q1","confidence":1.7,"action_sequence":"s"}`) + block(`{"query":"q2","confidence":-3,"action_sequence":"s"}`) + block(`{"query":"q3","confidence":" 0.25 ","action_sequence":"s"}`) + block(`{"query":"q4","confidence":1e400,"action_sequence":"s"}`),
			[]want{{"q1", "s", f(1)}, {"q2", "s", f(0)}, {"q3", "s", f(0.25)}}, []error{ErrBlockField}, false,
		},
		{
			"bad confidence",
			block(`{"query":"q1","confidence":"high","action_sequence":"s"}`) + block(`{"query":"q2","confidence":"NaN","action_sequence":"s"}`) + block(`{"query":"q3","confidence":true,"action_sequence":"s"}`) + block(`{"query":"q4","confidence":"Infinity","action_sequence":"s"}`),
			nil, []error{ErrBlockField, ErrBlockField, ErrBlockField, ErrBlockField}, false,
		},
		{
			"bad query and action sequence",
			block(`{"query":"","confidence":1,"action_sequence":"s"}`) + block(`{"query":" \n","confidence":1,"action_sequence":"s"}`) + block(`{"query":null,"confidence":1,"action_sequence":"s"}`) + block(`{"query":5,"confidence":1,"action_sequence":"s"}`) + block(`{"query":"q","confidence":1,"action_sequence":["a","b"]}`) + block(`{"query":"q","confidence":1,"action_sequence":null}`),
			nil, []error{ErrBlockField, ErrBlockField, ErrBlockField, ErrBlockField, ErrBlockField, ErrBlockField}, false,
		},
		{
			"empty action sequence kept (the filter drops it)",
			block(`{"query":"q","confidence":1,"action_sequence":""}`),
			[]want{{"q", "", f(1)}}, nil, false,
		},
		{
			"over-long fields",
			block(`{"query":"`+strings.Repeat("q", MaxQueryBytes+1)+`","confidence":1,"action_sequence":"s"}`) + block(`{"query":"q","confidence":1,"action_sequence":"`+strings.Repeat("s", MaxActionSequenceBytes+1)+`"}`),
			nil, []error{ErrBlockField, ErrBlockField}, false,
		},
		{
			"unclosed and nested tags",
			"<task><task>" + `{"query":"q","confidence":1,"action_sequence":"s"}` + "</task><task>{}",
			nil, []error{ErrBlockJSON}, false, // the body starts with "<task>", as the regex's would
		},
		{
			"tags are case-sensitive",
			"<TASK>" + `{"query":"q","confidence":1,"action_sequence":"s"}` + "</TASK>",
			nil, nil, false,
		},
		{
			"extra fields and duplicate keys",
			block(`{"query":"old","query":"new","confidence":0.3,"action_sequence":"s","note":"x"}`),
			[]want{{"new", "s", f(0.3)}}, nil, false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seed := seedTask()
			objs, rep := ParseTaskBlocksReport(tt.response, seed)
			if len(objs) != len(tt.want) {
				t.Fatalf("%d objectives %+v, want %d; report %+v", len(objs), objs, len(tt.want), rep)
			}
			for i, w := range tt.want {
				o := objs[i]
				if o.Task.Query != w.query || o.Task.GroundTruth != w.groundTruth || !sameConfidence(o.Confidence, w.confidence) {
					t.Errorf("objective %d = %q %q %v, want %q %q %v", i, o.Task.Query, o.Task.GroundTruth, o.Confidence, w.query, w.groundTruth, w.confidence)
				}
				if !o.Task.OpenQuery || o.Task.Evaluator != agentevolver.EvaluatorSynthetic || o.Task.TaskID != seed.TaskID || o.Task.EnvType != seed.EnvType || o.Reward != nil {
					t.Errorf("objective %d task = %+v", i, o.Task)
				}
			}
			if len(rep.Skipped) != len(tt.skipped) {
				t.Fatalf("skipped %+v, want %v", rep.Skipped, tt.skipped)
			}
			for i, s := range rep.Skipped {
				if !errors.Is(s.Err, tt.skipped[i]) {
					t.Errorf("skipped[%d] = %v, want %v", i, s.Err, tt.skipped[i])
				}
			}
			if rep.Blocks != len(objs)+len(rep.Skipped) || rep.Truncated != tt.truncated {
				t.Errorf("report %+v", rep)
			}
			if got := ParseTaskBlocks(tt.response, seed); len(got) != len(objs) {
				t.Errorf("ParseTaskBlocks gave %d objectives, the report version %d", len(got), len(objs))
			}
		})
	}
}

func sameConfidence(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// The reference gives every objective of one answer the same Task object,
// so they all end with the last block's query; here each is independent,
// and none shares state with the seed.
func TestParseTaskBlocksIndependent(t *testing.T) {
	seed := seedTask()
	resp := block(`{"query":"q1","confidence":0.9,"action_sequence":"s1"}`) + block(`{"query":"q2","confidence":0.8,"action_sequence":"s2"}`)
	objs := ParseTaskBlocks(resp, seed)
	if len(objs) != 2 {
		t.Fatalf("got %d objectives", len(objs))
	}
	if objs[0].Task.Query != "q1" || objs[1].Task.Query != "q2" || objs[0].Task.GroundTruth != "s1" || objs[1].Task.GroundTruth != "s2" {
		t.Fatalf("objectives alias: %+v", objs)
	}
	objs[0].Task.Metadata["split"] = "changed"
	objs[0].Task.Metadata["tags"].([]any)[0] = "changed"
	objs[0].Task.Metadata["nested"].(map[string]any)["k"] = "changed"
	*objs[0].Confidence = 0
	for name, m := range map[string]map[string]any{"seed": seed.Metadata, "other objective": objs[1].Task.Metadata} {
		if m["split"] != "train" || m["tags"].([]any)[0] != "a" || m["nested"].(map[string]any)["k"] != "v" {
			t.Errorf("%s metadata changed with objective 0's: %v", name, m)
		}
	}
	if *objs[1].Confidence != 0.8 {
		t.Error("confidences alias")
	}
	if seed.Query != "" || seed.OpenQuery || seed.Evaluator != agentevolver.EvaluatorEnv {
		t.Errorf("seed modified: %+v", seed)
	}
}

func TestParseTaskBlocksLimits(t *testing.T) {
	one := block(`{"query":"q","confidence":1,"action_sequence":"s"}`)
	tests := []struct {
		name      string
		response  string
		wantObjs  int
		truncated bool
	}{
		{"exactly the block limit", strings.Repeat(one, MaxTaskBlocks), MaxTaskBlocks, false},
		{"over the block limit", strings.Repeat(one, MaxTaskBlocks+5), MaxTaskBlocks, true},
		{"block beyond the size limit", strings.Repeat(" ", MaxResponseBytes-len(one)/2) + one, 0, true},
		{"block within the size limit", strings.Repeat(" ", MaxResponseBytes-len(one)) + one, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, rep := ParseTaskBlocksReport(tt.response, seedTask())
			if len(objs) != tt.wantObjs || rep.Truncated != tt.truncated {
				t.Errorf("%d objectives, report %+v; want %d, truncated %v", len(objs), rep, tt.wantObjs, tt.truncated)
			}
		})
	}
}

func TestSkippedBlockIndex(t *testing.T) {
	resp := block(`{"query":"q","confidence":1,"action_sequence":"s"}`) + block(`{}`) + block(`x`)
	_, rep := ParseTaskBlocksReport(resp, seedTask())
	if len(rep.Skipped) != 2 || rep.Skipped[0].Index != 1 || rep.Skipped[1].Index != 2 {
		t.Fatalf("skipped %+v", rep.Skipped)
	}
	if want := fmt.Sprintf("task block %d:", 2); !strings.HasPrefix(rep.Skipped[1].Err.Error(), want) {
		t.Errorf("error %q does not start with %q", rep.Skipped[1].Err, want)
	}
}
