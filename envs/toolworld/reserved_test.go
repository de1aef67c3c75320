package toolworld

import (
	"context"
	"strings"
	"testing"
)

// TestTrainReserved checks Config.TrainReserved: every train task's
// instruction is reserved, the train split keeps its size and every level,
// and val and test are those of the same seed without the filter.
func TestTrainReserved(t *testing.T) {
	ctx := context.Background()
	plain, err := New(Config{Seed: 1, TrainSize: 300, ValSize: 30, TestSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	env, err := New(Config{Seed: 1, TrainSize: 300, ValSize: 30, TestSize: 3, TrainReserved: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	plainTrain, _ := plain.TaskIDs(ctx, SplitTrain, nil)
	unreserved := 0
	for _, id := range plainTrain {
		info, _ := plain.Task(id)
		if !ReservedInstruction(info.Instruction, 0.2) {
			unreserved++
		}
	}
	if unreserved == 0 {
		t.Fatal("every unfiltered train task is reserved: the test checks nothing")
	}
	train, err := env.TaskIDs(ctx, SplitTrain, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(train) != 300 {
		t.Fatalf("train split has %d tasks, want 300", len(train))
	}
	levels := map[int]int{}
	for _, id := range train {
		info, err := env.Task(id)
		if err != nil {
			t.Fatal(err)
		}
		if !ReservedInstruction(info.Instruction, 0.2) {
			t.Fatalf("train task %s %q is not reserved", id, info.Instruction)
		}
		levels[info.Level]++
	}
	for level := 1; level <= NumLevels; level++ {
		if levels[level] == 0 {
			t.Errorf("no reserved train task of level %d (%v)", level, levels)
		}
	}
	for _, split := range []string{SplitVal, SplitTest} {
		a, _ := plain.TaskIDs(ctx, split, nil)
		b, _ := env.TaskIDs(ctx, split, nil)
		if len(a) != len(b) {
			t.Fatalf("%s: %d tasks, want %d", split, len(b), len(a))
		}
		for i := range a {
			x, _ := plain.Task(a[i])
			y, _ := env.Task(b[i])
			if x != y {
				t.Fatalf("%s task %d changed: %+v, want %+v", split, i, y, x)
			}
		}
	}
}

func TestReservedInstruction(t *testing.T) {
	if ReservedInstruction("pay Ann 5", 0) || !ReservedInstruction("pay Ann 5", 1) {
		t.Fatal("share 0 must reserve nothing and share 1 everything")
	}
	n := 0
	for i := range 10000 {
		if ReservedInstruction(strings.Repeat("x", i%50)+string(rune('a'+i%26))+string(rune(i)), 0.25) {
			n++
		}
	}
	if n < 2000 || n > 3000 {
		t.Fatalf("%d of 10000 reserved at share 0.25, want about 2500", n)
	}
}

func TestTrainReservedErrors(t *testing.T) {
	for _, share := range []float64{-0.1, 1.5} {
		if _, err := New(Config{TrainReserved: share}); err == nil {
			t.Errorf("share %v: no error", share)
		}
	}
	// A share so small that no instruction falls in it stops New with an
	// error instead of drawing for ever.
	_, err := New(Config{Seed: 1, TrainSize: 5, ValSize: 3, TestSize: 3, TrainReserved: 1e-12})
	if err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Fatalf("err = %v, want one about reserved instructions", err)
	}
}
