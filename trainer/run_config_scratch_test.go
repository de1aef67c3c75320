package trainer

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/org/agentevolver/attribution"
)

// TestFromScratchFile keeps examples/configs/from-scratch.yaml, layered over
// the main job, equal to FromScratchConfig.
func TestFromScratchFile(t *testing.T) {
	got, err := LoadConfig([]string{filepath.Join("..", "examples", "configs", "from-scratch.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Loaded the same way: placeholders resolved, empty lists made.
	want, err := LoadConfigOver(FromScratchConfig(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("from-scratch.yaml over DefaultConfig differs from FromScratchConfig:\n got %#v\nwant %#v", got, want)
	}
}

// TestDefaultConfigIsTheMainJob checks that the main job starts from the
// shipped base with the three mechanisms on and validates.
func TestDefaultConfigIsTheMainJob(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Model.Path != "builtin:toolworld-base" || c.WarmStart.Steps != 0 {
		t.Errorf("model.path %q, warm_start.steps %d: want the shipped base, no warm start", c.Model.Path, c.WarmStart.Steps)
	}
	if c.Tasks.N == 0 || c.Experience.TrainRolloutMode != "mixed" || c.Experience.TrainSampleMode != "hybrid" || !c.Attribution.Enable || c.Attribution.Judge != attribution.JudgeOracle {
		t.Errorf("mechanisms: task_manager.n %d, exp %s/%s, attribution %v/%s", c.Tasks.N, c.Experience.TrainRolloutMode, c.Experience.TrainSampleMode, c.Attribution.Enable, c.Attribution.Judge)
	}
}
