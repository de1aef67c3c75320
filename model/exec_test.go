package model

import (
	"testing"
)

// TestCompiledGraphLimit runs more distinct shapes than a compiled graph
// keeps: it must start afresh instead of failing.
func TestCompiledGraphLimit(t *testing.T) {
	m := newTestModel(t, tinyConfig(), 1)
	batch := func(cols int) Batch {
		ids := make([]int, cols)
		for i := range ids {
			ids[i] = i % 37
		}
		return Batch{Tokens: Tokens{InputIDs: [][]int{ids}, PromptLen: 1}}
	}
	first := mustLogProbs(t, m, batch(3))
	m.exec.logProbs[1].limit = 2
	for cols := 4; cols < 12; cols++ { // response lengths 3..10: buckets 3, 4, 6, 8, 12
		mustLogProbs(t, m, batch(cols))
		if n := len(m.exec.logProbs[1].seen); n > 2 {
			t.Fatalf("%d shapes compiled, limit 2", n)
		}
	}
	again := mustLogProbs(t, m, batch(3))
	if first.LogProbs[0][0] != again.LogProbs[0][0] {
		t.Errorf("recompiled graph gives %v, first %v", again.LogProbs[0], first.LogProbs[0])
	}
}
