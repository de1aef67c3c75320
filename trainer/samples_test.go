package trainer

import (
	"errors"
	"reflect"
	"testing"

	"github.com/org/agentevolver"
)

func TestPadSamples(t *testing.T) {
	samples := []agentevolver.Sample{
		{PromptIDs: []int{1, 2, 3}, ResponseIDs: []int{4, 5}, ResponseLossMask: []int{1, 0}},
		{PromptIDs: []int{7}, ResponseIDs: []int{8, 9, 10}, ResponseLossMask: []int{0, 1, 1}},
	}
	p, err := padSamples(samples, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantIDs := [][]int{{1, 2, 3, 4, 5, 0}, {0, 0, 7, 8, 9, 10}}
	wantAtt := [][]int{{1, 1, 1, 1, 1, 0}, {0, 0, 1, 1, 1, 1}}
	wantLoss := [][]float32{{1, 0, 0}, {0, 1, 1}}
	if p.PromptLen != 3 || !reflect.DeepEqual(p.InputIDs, wantIDs) || !reflect.DeepEqual(p.AttentionMask, wantAtt) ||
		!reflect.DeepEqual(p.LossMask, wantLoss) || !reflect.DeepEqual(p.RespLen, []int{2, 3}) {
		t.Fatalf("got %+v", p)
	}
	r := placeRewards(p.RespLen, 3, []float64{1, 0.5})
	if !reflect.DeepEqual(r, [][]float32{{0, 1, 0}, {0, 0, 0.5}}) {
		t.Fatalf("rewards %v", r)
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
		if _, err := padSamples(s, 0); !errors.Is(err, ErrShape) {
			t.Errorf("case %d: err = %v, want ErrShape", i, err)
		}
	}
}
