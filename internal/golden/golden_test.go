package golden

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
)

func TestNumDecodesSpecialValues(t *testing.T) {
	var ns []Num
	if err := json.Unmarshal([]byte(`[1.5, "NaN", "Infinity", "-Infinity", -0.0]`), &ns); err != nil {
		t.Fatal(err)
	}
	got := Floats(ns)
	if got[0] != 1.5 || !math.IsNaN(got[1]) || !math.IsInf(got[2], 1) || !math.IsInf(got[3], -1) {
		t.Fatalf("got %v", got)
	}
	if err := json.Unmarshal([]byte(`["nan"]`), &ns); err == nil {
		t.Fatal("want an error for an unknown string")
	}
}

func TestClose(t *testing.T) {
	tests := []struct {
		got, want, tol, rel float64
		ok                  bool
	}{
		{1, 1, 0, 0, true},
		{1.000009, 1, 1e-5, 0, true},
		{1.0001, 1, 1e-5, 1e-5, false},
		{math.NaN(), math.NaN(), 0, 0, true},
		{0, math.NaN(), 1, 1, false},
		{math.Inf(1), math.Inf(1), 0, 0, true},
		{math.Inf(1), math.Inf(-1), 1, 1, false},
	}
	for _, tt := range tests {
		if got := Close(tt.got, tt.want, tt.tol, tt.rel); got != tt.ok {
			t.Errorf("Close(%v, %v, %v, %v) = %v", tt.got, tt.want, tt.tol, tt.rel, got)
		}
	}
}

func TestLoadEveryFixture(t *testing.T) {
	for _, name := range []string{"grpo_advantage.json", "loss_mask.json", "madness.json"} {
		f := Load(t, name)
		if f.Function == "" {
			t.Errorf("%s: no function name", name)
		}
		t.Logf("golden %s: %d cases", name, len(f.Cases))
	}
}

// TestFixturesInModule checks that every fixture file of the original's
// golden set is kept inside the module and parses with cases, so the tests
// that read them pass from a plain clone.
func TestFixturesInModule(t *testing.T) {
	files := []string{
		"adca_advantage.json", "agg_loss.json", "experience_strip.json", "grpo_advantage.json",
		"het_policy_loss.json", "judge_score_parse.json", "kl_penalty.json", "loss_mask.json",
		"madness.json", "parse_step_judgments.json", "step_eval_prompt.json", "step_ids.json",
		"suffix_sum_broadcast.json", "task_dedup_filter.json",
	}
	for _, name := range files {
		f := Load(t, name)
		if f.Function == "" || f.Reference == "" {
			t.Errorf("%s: no function or reference", name)
		}
	}
}

func TestRenamed(t *testing.T) {
	orig := Load(t, "madness.json")
	extra := Case{Name: "extra", Inputs: map[string]json.RawMessage{"text": json.RawMessage(`"x"`)}}
	Renamed(t, []string{"madness.json"}, map[string][]Case{"madness.json": {extra}})
	f := Load(t, "madness.json")
	if len(f.Cases) != len(orig.Cases)+1 || f.Function != orig.Function {
		t.Fatalf("%d cases of %q, want %d of %q", len(f.Cases), f.Function, len(orig.Cases)+1, orig.Function)
	}
	for i, c := range f.Cases {
		if c.Name != "renamed_"+strconv.Itoa(i) {
			t.Fatalf("case %d named %q", i, c.Name)
		}
	}
	if string(f.Cases[len(f.Cases)-1].Inputs["text"]) != `"x"` {
		t.Fatalf("extra case lost: %+v", f.Cases[len(f.Cases)-1])
	}
}
