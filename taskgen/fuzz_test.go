package taskgen

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/org/agentevolver"
)

func FuzzParseTaskBlocks(f *testing.F) {
	for _, s := range []string{
		"",
		block(`{"query":"q","confidence":0.5,"action_sequence":"s"}`),
		"x<task>\n{\"query\": \"Pay Bob\", \"confidence\": 1.0, \"action_sequence\": \"a\\nb\"}\n</task>y<task>{}</task>",
		block(`{"query":"q","confidence":"7","action_sequence":""}`) + block(`{"query":1}`) + "<task>",
		block(`{"query":"q","confidence":null,"action_sequence":"s","query":"r"}`),
		"<task><task></task></task>",
		block(`{"query":"\u00e9\ud800","confidence":-1e308,"action_sequence":"s"}`),
		SummarySystemPrompt,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, response string) {
		seed := agentevolver.Task{TaskID: "seed", EnvType: "e", Metadata: map[string]any{"k": []any{"v"}}}
		objs, rep := ParseTaskBlocksReport(response, seed)
		if rep.Blocks != len(objs)+len(rep.Skipped) || rep.Blocks > MaxTaskBlocks {
			t.Fatalf("report %+v with %d objectives", rep, len(objs))
		}
		if rep.Blocks > strings.Count(response, taskCloseTag) {
			t.Fatalf("%d blocks from %d closing tags", rep.Blocks, strings.Count(response, taskCloseTag))
		}
		for i, s := range rep.Skipped {
			if s.Err == nil || !(errors.Is(s.Err, ErrBlockJSON) || errors.Is(s.Err, ErrBlockMissingField) || errors.Is(s.Err, ErrBlockField)) {
				t.Fatalf("skipped[%d] error %v", i, s.Err)
			}
			if i > 0 && s.Index <= rep.Skipped[i-1].Index {
				t.Fatalf("skipped indices out of order: %+v", rep.Skipped)
			}
		}
		for _, o := range objs {
			q := o.Task.Query
			if strings.TrimSpace(q) == "" || len(q) > MaxQueryBytes || len(o.Task.GroundTruth) > MaxActionSequenceBytes {
				t.Fatalf("bad objective %+v", o.Task)
			}
			if c := o.Confidence; c != nil && (math.IsNaN(*c) || *c < 0 || *c > 1) {
				t.Fatalf("confidence %v", *c)
			}
			if !o.Task.OpenQuery || o.Task.Evaluator != agentevolver.EvaluatorSynthetic || o.Task.TaskID != "seed" || o.Reward != nil {
				t.Fatalf("objective task %+v", o.Task)
			}
			if _, err := json.Marshal(o); err != nil {
				t.Fatalf("objective does not marshal: %v", err)
			}
			o.Task.Metadata["k"].([]any)[0] = "changed"
		}
		if seed.Metadata["k"].([]any)[0] != "v" {
			t.Fatal("an objective shares the seed's metadata")
		}
		// The filter accepts whatever the parser produces.
		kept := FilterRealtime(objs)
		if len(kept) > len(objs) {
			t.Fatal("filter grew the list")
		}
	})
}

func FuzzParseProfile(f *testing.F) {
	f.Add([]byte(validProfileJSON))
	f.Add([]byte(`{"name":"n","background":"","entities":[],"task_preference":{"num_entities":0,"num_opts":0,"relation_difficulty":3}}`))
	f.Add([]byte(`{"name":"n","background":"","entities":[{"name":"e","description":"","attrs":{"":"x"},"opts":[]}],"task_preference":{"num_entities":0,"num_opts":0,"relation_difficulty":1}}`))
	f.Add([]byte(`{"name":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile(data)
		if err != nil {
			if !errors.Is(err, ErrInvalidProfile) {
				t.Fatalf("error %v does not wrap ErrInvalidProfile", err)
			}
			if !reflect.DeepEqual(p, agentevolver.EnvProfile{}) {
				t.Fatalf("profile %+v returned with an error", p)
			}
			return
		}
		if err := ValidateProfile(p); err != nil {
			t.Fatalf("parsed profile does not validate: %v", err)
		}
		inst := Instruction(p)
		if inst != Instruction(p) || !strings.Contains(inst, "### Task Preferences") || strings.Contains(inst, "unknown (") {
			t.Fatalf("Instruction:\n%s", inst)
		}
		_ = PreferenceInstruction(p, []string{"r"})
		_ = ExplorationSystemPrompt(&p, "q")
		// A parsed profile survives its own JSON form.
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseProfile(out)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", out, err)
		}
		if Instruction(again) != inst {
			t.Fatalf("round trip changed the profile: %+v vs %+v", again, p)
		}
	})
}
