package optim

import (
	"errors"
	"testing"
)

// FuzzTokens feeds arbitrary (possibly ragged, out-of-range) token grids
// to the batch validation: it must reject them with ErrShape or accept
// them and build tensors of the promised shapes, never panic.
func FuzzTokens(f *testing.F) {
	f.Add([]byte{3, 4, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, uint8(2), false, false)
	f.Add([]byte{2, 3, 1, 0, 1, 2, 3, 4}, uint8(1), true, true)
	f.Add([]byte{1, 1, 1, 200}, uint8(0), false, true)
	f.Add([]byte{}, uint8(1), false, false)
	f.Fuzz(func(t *testing.T, data []byte, promptLen uint8, withMask, withPositions bool) {
		const vocab = 16
		if len(data) < 2 {
			return
		}
		rows, cols := int(data[0]%5), int(data[1]%7)
		data = data[2:]
		var tok Tokens
		tok.PromptLen = int(promptLen % 8)
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			v := int(data[0]) - 8 // negatives and ids past the vocabulary too
			data = data[1:]
			return v
		}
		grid := func(ragged bool) [][]int {
			m := make([][]int, rows)
			for i := range m {
				n := cols
				if ragged && i == rows-1 && len(data) > 0 && data[0]%4 == 0 {
					n++ // sometimes a ragged last row
				}
				m[i] = make([]int, n)
				for j := range m[i] {
					m[i][j] = next()
				}
			}
			return m
		}
		tok.InputIDs = grid(true)
		if withMask {
			tok.AttentionMask = grid(false)
		}
		if withPositions {
			tok.PositionIDs = grid(false)
		}
		r, c, err := tokenShape(&tok, vocab)
		if err != nil {
			if !errors.Is(err, ErrShape) {
				t.Fatalf("error %v does not wrap ErrShape", err)
			}
			return
		}
		if r != rows || c != len(tok.InputIDs[0]) {
			t.Fatalf("shape %dx%d, want %dx%d", r, c, rows, len(tok.InputIDs[0]))
		}
		ts := tokenTensors(&tok, 0, r)
		if len(ts) != numTokenInputs {
			t.Fatalf("%d tensors", len(ts))
		}
		for i, want := range [][]int{{r, c}, {r, c}, {r, c}, {r, c - tok.PromptLen}} {
			got := ts[i].Shape().Dimensions
			if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
				t.Fatalf("tensor %d has shape %v, want %v", i, got, want)
			}
		}
	})
}
