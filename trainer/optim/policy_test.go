package optim_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/org/agentevolver/trainer/optim"
)

// bigram is a tiny model-free policy: the next token's logits are a row
// of a trainable [V, V] table picked by the current token.
type bigram struct{ vocab int }

const bigramScope = "/bigram"

func (p bigram) VocabSize() int { return p.vocab }

func (p bigram) ResponseLogProbs(ctx *mlctx.Context, seq optim.Sequences) (logProbs, entropy *graph.Node) {
	g := seq.InputIDs.Graph()
	w := ctx.GetVariableByScopeAndName(bigramScope, "w").ValueGraph(g)
	cols := seq.InputIDs.Shape().Dimensions[1]
	// The token before each response token; the ids are not
	// differentiated, so Slice is fine here.
	prev := graph.Slice(seq.InputIDs, graph.AxisRange(), graph.AxisRange(seq.PromptLen-1, cols-1))
	logits := graph.Einsum("brv,vw->brw", graph.OneHot(prev, p.vocab, dtypes.Float32), w)
	logits = graph.DivScalar(logits, seq.Temperature)
	logp := graph.LogSoftmax(logits, -1)
	logProbs = graph.ReduceSum(graph.Mul(logp, graph.OneHot(seq.Targets, p.vocab, dtypes.Float32)), -1)
	entropy = graph.Neg(graph.ReduceSum(graph.Mul(graph.Exp(logp), logp), -1))
	return logProbs, entropy
}

// newBigram returns the policy and a context holding its seeded weights.
func newBigram(vocab int, seed uint64) (bigram, *mlctx.Context) {
	rng := rand.New(rand.NewPCG(seed, 1))
	w := make([]float32, vocab*vocab)
	for i := range w {
		w[i] = float32(rng.NormFloat64() * 0.5)
	}
	vars := mlctx.New()
	vars.InAbsPath(bigramScope).VariableWithValue("w", tensors.FromFlatDataAndDimensions(w, vocab, vocab))
	return bigram{vocab: vocab}, vars
}

// randomBatch returns a batch of rows x cols tokens with a prompt of
// promptLen, a loss mask with a varying number of tokens per row and
// per-row advantages of ±1; log-prob fields are left empty.
func randomBatch(rows, cols, promptLen, vocab int, seed uint64) *optim.Batch {
	rng := rand.New(rand.NewPCG(seed, 2))
	resp := cols - promptLen
	b := &optim.Batch{Tokens: optim.Tokens{PromptLen: promptLen}}
	for r := range rows {
		ids := make([]int, cols)
		for j := range ids {
			ids[j] = rng.IntN(vocab)
		}
		b.InputIDs = append(b.InputIDs, ids)
		mask := make([]float32, resp)
		adv := make([]float32, resp)
		sign := float32(1)
		if r%2 == 1 {
			sign = -1
		}
		n := 1 + rng.IntN(resp) // 1..resp loss tokens, so micro-batches differ
		for j := range n {
			mask[j] = 1
			adv[j] = sign
		}
		b.LossMask = append(b.LossMask, mask)
		b.Advantages = append(b.Advantages, adv)
	}
	return b
}

// fillLogProbs sets OldLogProbs from the policy and RefLogProbs from ref.
func fillLogProbs(t testing.TB, u *optim.Updater, ref *optim.Reference, b *optim.Batch) {
	t.Helper()
	var err error
	if b.OldLogProbs, err = u.LogProbs(context.Background(), &b.Tokens); err != nil {
		t.Fatal(err)
	}
	if ref != nil {
		if b.RefLogProbs, err = ref.LogProbs(context.Background(), &b.Tokens); err != nil {
			t.Fatal(err)
		}
	}
}

// variableValues returns the flat float32 values of the variables of
// vars under scope.
func variableValues(t testing.TB, vars *mlctx.Context, scopePrefix string) map[string][]float32 {
	t.Helper()
	out := map[string][]float32{}
	for v := range vars.IterVariables() {
		if len(v.Scope()) < len(scopePrefix) || v.Scope()[:len(scopePrefix)] != scopePrefix {
			continue
		}
		val, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		flat, err := tensors.CopyFlatData[float32](val)
		if err != nil {
			continue // not a float32 variable (the step count)
		}
		out[v.ScopeAndName()] = flat
	}
	return out
}
