package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGradientFusedBitwise computes the trainer's gradient of the summed
// response log-probs on the gofast backend with its fusions (the train
// step's attention among them: enough rows and batch items for each) and
// with nofusion, in both execution modes, and requires the same bits for
// every weight.
func TestGradientFusedBitwise(t *testing.T) {
	const rows, cols, promptLen = 4, 24, 5
	rng := rand.New(rand.NewPCG(8, 9))
	seqs := make([][]int, rows)
	for b := range seqs {
		seqs[b] = randomIDs(rng, cols, 37)
	}
	gradients := func(config string) [][]float32 {
		be, err := NewBackend(config)
		if err != nil {
			t.Fatal(err)
		}
		return responseGradients(t, newTestModelOn(t, tinyConfig(), 43, Options{Backend: be}), seqs, promptLen)
	}
	for _, mode := range []string{"ops_sequential", "ops_parallel"} {
		fused, plain := gradients("gofast:"+mode), gradients("gofast:"+mode+",nofusion")
		nonZero := 0
		for i := range plain {
			if !slices.EqualFunc(fused[i], plain[i], func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }) {
				t.Errorf("%s: gradient %d differs from the unfused ops'", mode, i)
			}
			for _, g := range plain[i] {
				if g != 0 {
					nonZero++
				}
			}
		}
		if nonZero == 0 {
			t.Fatalf("%s: all gradients are zero", mode)
		}
	}
}
