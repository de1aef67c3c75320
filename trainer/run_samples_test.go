package trainer

import (
	"errors"
	"reflect"
	"testing"

	"github.com/org/agentevolver"
	"github.com/org/agentevolver/trainer/optim"
)

func TestPadSamples(t *testing.T) {
	samples := []agentevolver.Sample{
		{PromptIDs: []int{1, 2, 3}, ResponseIDs: []int{4, 5}, ResponseLossMask: []int{1, 0}},
		{PromptIDs: []int{7}, ResponseIDs: []int{8, 9, 10}, ResponseLossMask: []int{0, 1, 1}},
	}
	p, err := optim.PadSamples(samples, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Widths 3 and 3 are bucket sizes; 2 rows too.
	wantIDs := [][]int{{1, 2, 3, 4, 5, 0}, {0, 0, 7, 8, 9, 10}}
	wantAtt := [][]int{{1, 1, 1, 1, 1, 0}, {0, 0, 1, 1, 1, 1}}
	wantLoss := [][]float32{{1, 0, 0}, {0, 1, 1}}
	if p.PromptLen != 3 || !reflect.DeepEqual(p.InputIDs, wantIDs) || !reflect.DeepEqual(p.AttentionMask, wantAtt) ||
		!reflect.DeepEqual(p.LossMask, wantLoss) || !reflect.DeepEqual(p.RespLen, []int{2, 3}) {
		t.Fatalf("got %+v", p)
	}
	// Neither sample carries step ids: all -1.
	if !reflect.DeepEqual(p.StepIDs, [][]int{{-1, -1, -1}, {-1, -1, -1}}) {
		t.Fatalf("step ids %v", p.StepIDs)
	}
	r := placeRewards(p.RespLen, 3, []float64{1, 0.5})
	if !reflect.DeepEqual(r, [][]float32{{0, 1, 0}, {0, 0, 0.5}}) {
		t.Fatalf("rewards %v", r)
	}
}

func TestPadSamplesBuckets(t *testing.T) {
	// 5 rows -> 6; prompt 5 -> 6; response 7 -> 8.
	var samples []agentevolver.Sample
	for i := range 5 {
		samples = append(samples, agentevolver.Sample{
			PromptIDs: []int{1, 2, 3, 4, 5}[:1+i], ResponseIDs: []int{6, 7, 8, 9, 10, 11, 12}[:3+i%5], ResponseLossMask: []int{1, 1, 1, 1, 1, 1, 1}[:3+i%5],
		})
	}
	p, err := optim.PadSamples(samples, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.InputIDs) != 6 || p.PromptLen != 6 || len(p.InputIDs[0]) != 14 || len(p.LossMask[0]) != 8 {
		t.Fatalf("shape: %d rows, prompt %d, width %d, response %d", len(p.InputIDs), p.PromptLen, len(p.InputIDs[0]), len(p.LossMask[0]))
	}
	// The filler row repeats row 0 with no loss and no reward.
	if !reflect.DeepEqual(p.InputIDs[5], p.InputIDs[0]) || p.RespLen[5] != 0 {
		t.Fatalf("filler row %v, resp len %d", p.InputIDs[5], p.RespLen[5])
	}
	for _, v := range p.LossMask[5] {
		if v != 0 {
			t.Fatalf("filler row trains: %v", p.LossMask[5])
		}
	}
}

func TestPadSamplesErrors(t *testing.T) {
	tests := [][]agentevolver.Sample{
		nil,
		{{PromptIDs: []int{1}}},
		{{ResponseIDs: []int{1}, ResponseLossMask: []int{1}}},
		{{PromptIDs: []int{1}, ResponseIDs: []int{1, 2}, ResponseLossMask: []int{1}}},
	}
	for i, s := range tests {
		if _, err := optim.PadSamples(s, 0); !errors.Is(err, ErrShape) {
			t.Errorf("case %d: err = %v, want ErrShape", i, err)
		}
	}
}

func TestWarmupLR(t *testing.T) {
	for _, tt := range []struct {
		warmup, step int
		want         float64
	}{{0, 0, 1}, {4, 0, 0.25}, {4, 1, 0.5}, {4, 3, 1}, {4, 10, 1}} {
		if got := warmupLR(1, tt.warmup, tt.step); got != tt.want {
			t.Errorf("warmupLR(1, %d, %d) = %v, want %v", tt.warmup, tt.step, got, tt.want)
		}
	}
}

func TestPadSamplesStepIDs(t *testing.T) {
	samples := []agentevolver.Sample{
		{PromptIDs: []int{1}, ResponseIDs: []int{4, 5, 6}, ResponseLossMask: []int{0, 1, 1}, StepIDs: []int{-1, 0, 0}},
		{PromptIDs: []int{1}, ResponseIDs: []int{7}, ResponseLossMask: []int{1}, StepIDs: []int{0}},
		{PromptIDs: []int{1}, ResponseIDs: []int{8, 9}, ResponseLossMask: []int{1, 1}, StepIDs: []int{0, 1}},
		{PromptIDs: []int{1}, ResponseIDs: []int{8}, ResponseLossMask: []int{1}},
		{PromptIDs: []int{1}, ResponseIDs: []int{8}, ResponseLossMask: []int{1}, StepIDs: []int{0}},
	}
	p, err := optim.PadSamples(samples, 0)
	if err != nil {
		t.Fatal(err)
	}
	// 5 rows bucket to 6; the filler row (a copy of row 0) credits no step.
	want := [][]int{{-1, 0, 0}, {0, -1, -1}, {0, 1, -1}, {-1, -1, -1}, {0, -1, -1}, {-1, -1, -1}}
	if !reflect.DeepEqual(p.StepIDs, want) {
		t.Fatalf("step ids %v, want %v", p.StepIDs, want)
	}
	samples[0].StepIDs = []int{0}
	if _, err := optim.PadSamples(samples, 0); !errors.Is(err, ErrShape) {
		t.Fatalf("step ids of the wrong length: err = %v", err)
	}
}

func TestExpMask(t *testing.T) {
	samples := []agentevolver.Sample{{}, {ExpMask: true}, {}}
	if m := expMask(samples[:1], 2, 3); m != nil {
		t.Fatalf("no stripped sample: mask %v, want nil", m)
	}
	want := [][]float32{{0, 0}, {1, 1}, {0, 0}, {0, 0}} // the filler row stays on-policy
	if m := expMask(samples, 4, 2); !reflect.DeepEqual(m, want) {
		t.Fatalf("mask %v, want %v", m, want)
	}
}

func TestUseBehaviourLogProbs(t *testing.T) {
	samples := []agentevolver.Sample{
		{ResponseLossMask: []int{1, 1}, ResponseLogProbs: []float64{-5, -6}},                            // on-policy: kept
		{ExpMask: true, ResponseLossMask: []int{0, 1, 1}, ResponseLogProbs: []float64{-9, -0.5, -0.25}}, // stripped
		{ExpMask: true, ResponseLossMask: []int{1, 1}},                                                  // no rollout log-probs
	}
	old := [][]float32{{-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}}
	if n := useBehaviourLogProbs(samples, old); n != 1 {
		t.Errorf("%d rows recomputed, want 1", n)
	}
	want := [][]float32{{-1, -1, -1}, {-1, -0.5, -0.25}, {-1, -1, -1}, {-1, -1, -1}}
	if !reflect.DeepEqual(old, want) {
		t.Fatalf("old log-probs %v, want %v", old, want)
	}
}
