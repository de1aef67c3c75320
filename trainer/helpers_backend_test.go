package trainer_test

import (
	"testing"

	"github.com/gomlx/gomlx/backends"

	"github.com/org/agentevolver/internal/golden"
	"github.com/org/agentevolver/model"
)

func newBackend(t testing.TB) backends.Backend {
	t.Helper()
	b, err := model.NewBackend("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Finalize)
	return b
}

func floats32(t testing.TB, c golden.Case, key string) [][]float32 {
	t.Helper()
	var m [][]golden.Num
	c.Input(t, key, &m)
	out := make([][]float32, len(m))
	for i, row := range m {
		out[i] = make([]float32, len(row))
		for j, v := range row {
			out[i][j] = float32(v)
		}
	}
	return out
}

func flat64(m [][]float32) []float64 {
	var out []float64
	for _, row := range m {
		for _, v := range row {
			out = append(out, float64(v))
		}
	}
	return out
}

func wantMatrix(t testing.TB, c golden.Case, key string) []float64 {
	t.Helper()
	var m [][]golden.Num
	c.Output(t, key, &m)
	var out []float64
	for _, row := range golden.Floats2D(m) {
		out = append(out, row...)
	}
	return out
}

func wantScalar(t testing.TB, c golden.Case, key string) float64 {
	t.Helper()
	var v golden.Num
	c.Output(t, key, &v)
	return float64(v)
}
