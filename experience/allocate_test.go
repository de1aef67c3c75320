package experience

import (
	"errors"
	"reflect"
	"testing"

	"github.com/org/agentevolver"
)

func TestAllocateCounts(t *testing.T) {
	tests := []struct {
		name            string
		a               Allocation
		tasks, n        int
		wantKeep, wantM int // keep tasks; experience rollouts per task
	}{
		{"baseline", Allocation{}, 8, 4, 0, 0},
		{"EC: all keep, half mixed", Allocation{SampleMode: AllKeep, RolloutMode: Mixed, RolloutRatio: 0.5}, 8, 4, 8, 2},
		{"EI: all discard", Allocation{SampleMode: AllDiscard, RolloutMode: Mixed, RolloutRatio: 0.5}, 8, 4, 0, 2},
		{"HET: keep floor(7 x 0.5) = 3", Allocation{SampleMode: Hybrid, KeepRatio: 0.5, RolloutMode: Mixed, RolloutRatio: 0.5}, 7, 4, 3, 2},
		{"round half to even: 8 x 0.3125 = 2.5 -> 2", Allocation{RolloutMode: Mixed, RolloutRatio: 0.3125}, 3, 8, 0, 2},
		{"round half to even: 8 x 0.4375 = 3.5 -> 4", Allocation{RolloutMode: Mixed, RolloutRatio: 0.4375}, 3, 8, 0, 4},
		{"all rollouts", Allocation{RolloutMode: AllRollouts}, 2, 3, 0, 3},
		{"no tasks", Allocation{SampleMode: AllKeep}, 0, 4, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Allocate(tt.a, 7, tt.tasks, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.tasks {
				t.Fatalf("%d allocations for %d tasks", len(got), tt.tasks)
			}
			keep := 0
			for i, ta := range got {
				if ta.TrainMode == agentevolver.TrainKeep {
					keep++
				} else if ta.TrainMode != agentevolver.TrainDiscard {
					t.Errorf("task %d: mode %q", i, ta.TrainMode)
				}
				m := 0
				for _, add := range ta.AddExperience {
					if add {
						m++
					}
				}
				if len(ta.AddExperience) != tt.n || m != tt.wantM {
					t.Errorf("task %d: %d of %d rollouts with experience, want %d of %d", i, m, len(ta.AddExperience), tt.wantM, tt.n)
				}
			}
			if keep != tt.wantKeep {
				t.Errorf("%d keep tasks, want %d", keep, tt.wantKeep)
			}
		})
	}
}

func TestAllocateIsSeeded(t *testing.T) {
	a := Allocation{SampleMode: Hybrid, KeepRatio: 0.5, RolloutMode: Mixed, RolloutRatio: 0.5}
	x, _ := Allocate(a, 1, 16, 8)
	y, _ := Allocate(a, 1, 16, 8)
	if !reflect.DeepEqual(x, y) {
		t.Fatal("the same seed gave different allocations")
	}
	differs := false
	for seed := uint64(2); seed < 6 && !differs; seed++ {
		z, _ := Allocate(a, seed, 16, 8)
		differs = !reflect.DeepEqual(x, z)
	}
	if !differs {
		t.Error("other seeds give the same allocation")
	}
	// Mixed positions are drawn per task: not all tasks alike.
	same := true
	for _, ta := range x[1:] {
		same = same && reflect.DeepEqual(ta.AddExperience, x[0].AddExperience)
	}
	if same {
		t.Error("every task got the same rollouts with experience")
	}
}

func TestAllocateErrors(t *testing.T) {
	for _, a := range []Allocation{
		{SampleMode: "sometimes"},
		{RolloutMode: "maybe"},
		{SampleMode: Hybrid, KeepRatio: 1.5},
		{RolloutMode: Mixed, RolloutRatio: -0.1},
	} {
		if _, err := Allocate(a, 1, 2, 2); !errors.Is(err, ErrConfig) {
			t.Errorf("Allocate(%+v) = %v, want ErrConfig", a, err)
		}
	}
	if _, err := Allocate(Allocation{}, 1, -1, 2); !errors.Is(err, ErrConfig) {
		t.Errorf("negative tasks: %v", err)
	}
}
