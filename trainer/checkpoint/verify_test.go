package checkpoint

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestVerifyStateFiles checks the structural checks on GoMLX state
// metadata one by one, without training.
func TestVerifyStateFiles(t *testing.T) {
	want := map[string]VariableShape{
		"var:/model/embed_tokens/weight": {dims: []int{10, 4}, dtype: "Float32", elemBytes: 4, trainable: true},
		"var:/model/norm/weight":         {dims: []int{4}, dtype: "Float32", elemBytes: 4, trainable: true},
	}
	v := func(name, dtype string, dims ...int) stateVar {
		return stateVar{ParameterName: name, DType: dtype, Dimensions: dims}
	}
	weights := []stateVar{v("var:/model/embed_tokens/weight", "Float32", 10, 4), v("var:/model/norm/weight", "Float32", 4)}
	optimizer := []stateVar{
		v("var:/trainer/adamw/step", "Int64"),
		v("var:/trainer/adamw/m/model/embed_tokens/weight", "Float32", 10, 4),
		v("var:/trainer/adamw/v/model/embed_tokens/weight", "Float32", 10, 4),
		v("var:/trainer/adamw/m/model/norm/weight", "Float32", 4),
		v("var:/trainer/adamw/v/model/norm/weight", "Float32", 4),
		v(globalStepName, "Int64"),
	}
	cat := func(parts ...[]stateVar) []stateVar { return slices.Concat(parts...) }
	for _, c := range []struct {
		name    string
		vars    []stateVar
		rlSteps int
		problem string // "" when valid
	}{
		{"weights only, before RL", weights, 0, ""},
		{"weights and optimiser", cat(weights, optimizer), 3, ""},
		{"optimiser state missing after RL", weights, 3, "optimiser state (/trainer/adamw) of the 3 RL steps done is missing"},
		{"one moment missing", cat(weights, optimizer[:4], optimizer[5:]), 3, "moments of var:/model/norm/weight are missing"},
		{"weight missing", cat(weights[:1]), 0, "var:/model/norm/weight is missing"},
		{"transposed", cat([]stateVar{v("var:/model/embed_tokens/weight", "Float32", 4, 10)}, weights[1:]), 0, "is Float32[4 10], the configured model needs Float32[10 4]"},
		{"other dtype", cat(weights[:1], []stateVar{v("var:/model/norm/weight", "Float64", 4)}), 0, "is Float64[4]"},
		{"huge", cat([]stateVar{v("var:/model/embed_tokens/weight", "Float32", 4_000_000, 1_000_000)}, weights[1:]), 0, "needs Float32[10 4]"},
		{"unknown variable", cat(weights, []stateVar{v("var:/model/layers/7/mlp/up_proj/weight", "Float32", 8, 8)}), 0, "not a variable of the configured model"},
		{"mirror of the wrong shape", cat(weights, []stateVar{v("var:/trainer/adamw/m/model/norm/weight", "Float32", 5)}), 0, "needs Float32[4]"},
		{"saved twice", cat(weights, weights[1:]), 0, "saved twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			pos := 0
			vars := slices.Clone(c.vars)
			for i := range vars {
				n := 4
				if vars[i].DType == "Int64" || vars[i].DType == "Float64" {
					n = 8
				}
				for _, d := range vars[i].Dimensions {
					n *= d
				}
				vars[i].Pos, vars[i].Length = pos, n
				pos += n
			}
			raw, _ := json.Marshal(map[string]any{"Variables": vars, "BinFormat": "gzip"})
			if err := os.WriteFile(filepath.Join(dir, "checkpoint-n0.json"), raw, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "checkpoint-n0.bin"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			err := VerifyState(dir, want, c.rlSteps)
			switch {
			case c.problem == "" && err != nil:
				t.Fatalf("valid state refused: %v", err)
			case c.problem != "" && (!errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.problem)):
				t.Fatalf("err = %v, want ErrCorrupt saying %q", err, c.problem)
			}
		})
	}
	t.Run("no state files", func(t *testing.T) {
		if err := VerifyState(t.TempDir(), want, 0); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestFrozenWeightState checks that the structural check alone (a
// checkpoint whose configuration says nothing) catches a full-weights
// checkpoint under a LoRA run: AdamW state of a weight that is frozen.
func TestFrozenWeightState(t *testing.T) {
	want := map[string]VariableShape{
		"var:/model/w": {dims: []int{2}, dtype: "Float32", elemBytes: 4, trainable: false},
	}
	_, frozen, ok := optimizerVariable("var:/trainer/adamw/m/model/w", map[string]VariableShape{"/model/w": want["var:/model/w"]})
	if !ok || !frozen {
		t.Errorf("AdamW state of a frozen weight: ok %v frozen %v, want both", ok, frozen)
	}
}
