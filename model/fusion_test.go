package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// TestGradientFusedBitwise computes the trainer's gradient of the summed
// response log-probs on the gofast backend with its fusions (the train
// step's attention among them: enough rows and batch items for each) and
// with nofusion, in both execution modes, and requires the same bits for
// every weight.
func TestGradientFusedBitwise(t *testing.T) {
	const rows, cols, promptLen = 4, 24, 5
	rng := rand.New(rand.NewPCG(8, 9))
	ids, pos, mask := make([]int32, rows*cols), make([]int32, rows*cols), make([]bool, rows*cols)
	targets := make([]int32, rows*(cols-promptLen))
	for b := range rows {
		seq := randomIDs(rng, cols, 37)
		for j, id := range seq {
			ids[b*cols+j], pos[b*cols+j], mask[b*cols+j] = int32(id), int32(j), true
			if j >= promptLen {
				targets[b*(cols-promptLen)+j-promptLen] = int32(id)
			}
		}
	}
	gradients := func(config string) [][]float32 {
		be, err := NewBackend(config)
		if err != nil {
			t.Fatal(err)
		}
		m := newTestModelOn(t, tinyConfig(), 43, Options{Backend: be})
		exec, err := mlctx.NewExec(be, m.Context(), func(ctx *mlctx.Context, ids, pos, mask, targets *graph.Node) []*graph.Node {
			logp, _ := m.ResponseLogProbs(ctx, ids, pos, mask, targets, promptLen)
			return ctx.BuildTrainableVariablesGradientsGraph(graph.ReduceAllSum(logp))
		})
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Exec(tensors.FromFlatDataAndDimensions(ids, rows, cols), tensors.FromFlatDataAndDimensions(pos, rows, cols),
			tensors.FromFlatDataAndDimensions(mask, rows, cols), tensors.FromFlatDataAndDimensions(targets, rows, cols-promptLen))
		if err != nil {
			t.Fatal(err)
		}
		grads := make([][]float32, len(out))
		for i, g := range out {
			grads[i] = tensors.MustCopyFlatData[float32](g)
		}
		return grads
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
