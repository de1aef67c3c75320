package model

import (
	"context"
	"fmt"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// ResponseLogProbs builds, inside a graph, the per-token log-probabilities
// and entropies of the response part of a padded batch.
//
// inputIDs, positionIDs and attentionMask are [B,T] (ids and positions of
// an integer dtype; the mask bool or integer, non-zero for real tokens):
// columns 0..promptLen-1 hold the (left-padded) prompt, the rest the
// (right-padded) response. targets [B,R], R = T-promptLen, holds the token
// at column promptLen+r, normally inputIDs' response columns. logProbs and
// entropy are [B,R] float32: log p(targets[b,r] | columns < promptLen+r)
// and the entropy of that next-token distribution. The output head runs
// only on the R columns promptLen-1..T-2. Values at padding are defined
// but meaningless; mask them.
//
// The weights are read from ctx under the names of Model.Context, so a
// clone of that context (a frozen reference policy) works as well. The
// graph is differentiable with respect to them; the matrix products carry
// a fast gradient (see the package documentation). Like every GoMLX graph
// function it panics on shape errors.
func (m *Model) ResponseLogProbs(ctx *mlctx.Context, inputIDs, positionIDs, attentionMask, targets *graph.Node, promptLen int) (logProbs, entropy *graph.Node) {
	return m.TemperedResponseLogProbs(ctx, inputIDs, positionIDs, attentionMask, targets, promptLen, 1)
}

// TemperedResponseLogProbs is ResponseLogProbs with the logits divided by
// temperature first, as veRL does when it recomputes old and reference
// log-probs with the rollout temperature. temperature must be positive.
func (m *Model) TemperedResponseLogProbs(ctx *mlctx.Context, inputIDs, positionIDs, attentionMask, targets *graph.Node, promptLen int, temperature float64) (logProbs, entropy *graph.Node) {
	d := inputIDs.Shape().Dimensions
	if inputIDs.Rank() != 2 || targets.Rank() != 2 {
		panic(fmt.Errorf("%w: inputIDs %s and targets %s must be [B,T] and [B,R]", ErrBadInput, inputIDs.Shape(), targets.Shape()))
	}
	b, t, r := d[0], d[1], targets.Shape().Dimensions[1]
	if promptLen < 1 || promptLen+r != t || targets.Shape().Dimensions[0] != b {
		panic(fmt.Errorf("%w: promptLen %d, inputIDs %s and targets %s disagree (want targets [B, T-promptLen] and promptLen >= 1)",
			ErrBadInput, promptLen, inputIDs.Shape(), targets.Shape()))
	}
	if !(temperature > 0) {
		panic(fmt.Errorf("%w: temperature %g must be positive", ErrBadInput, temperature))
	}
	g := inputIDs.Graph()
	ids := graph.ConvertDType(inputIDs, dtypes.Int32)
	positions := graph.ConvertDType(positionIDs, dtypes.Int32)
	bias := attentionBias(causalAllowed(asBoolMask(attentionMask)))
	h, _, _ := m.forward(ctx, ids, positions, bias, nil)

	// Rows promptLen-1 .. T-2 predict the response tokens. Gather rather
	// than Slice: Slice's gradient needs Pad, which simplego lacks.
	rowsShape := shapes.Make(dtypes.Int32, b, r, 1)
	rows := graph.Concatenate([]*graph.Node{
		graph.Iota(g, rowsShape, 0),
		graph.AddScalar(graph.Iota(g, rowsShape, 1), promptLen-1),
	}, -1)
	logits := m.logits(ctx, graph.Gather(h, rows)) // [B,R,V]
	if temperature != 1 {
		logits = graph.DivScalar(logits, temperature)
	}
	return tokenLogProbs(logits, graph.ConvertDType(targets, dtypes.Int32))
}

// tokenLogProbs returns log softmax(logits)[target] and the entropy of
// softmax(logits), for logits [B,R,V] and targets [B,R] int32.
func tokenLogProbs(logits, targets *graph.Node) (logProbs, entropy *graph.Node) {
	g := logits.Graph()
	maxLogit := graph.StopGradient(graph.ReduceAndKeep(logits, graph.ReduceMax, -1))
	shifted := graph.Sub(logits, maxLogit)
	exps := graph.Exp(shifted)
	sum := graph.ReduceAndKeep(exps, graph.ReduceSum, -1)
	logZ := graph.Log(sum)
	d := targets.Shape().Dimensions
	at := shapes.Make(dtypes.Int32, d[0], d[1], 1)
	index := graph.Concatenate([]*graph.Node{graph.Iota(g, at, 0), graph.Iota(g, at, 1), graph.InsertAxes(targets, -1)}, -1)
	// The target's shifted logit minus log Z: the same subtractions as
	// gathering from shifted − log Z, without that [B,R,V] tensor (and its
	// gradient's full-size passes). The target's logit is gathered from the
	// logits, not from shifted, so that shifted feeds only the exponential
	// (and the entropy), and the backend computes both in one pass without
	// writing shifted out.
	targetShifted := graph.Sub(graph.Gather(logits, index), graph.Reshape(maxLogit, d[0], d[1]))
	logProbs = graph.Sub(targetShifted, graph.Reshape(logZ, d[0], d[1]))
	// H = log Z - Σ p·shifted, reusing exp(shifted) (one exp pass fewer
	// than -Σ exp(logp)·logp).
	expected := graph.Div(graph.ReduceAndKeep(graph.Mul(exps, shifted), graph.ReduceSum, -1), sum)
	entropy = graph.Reshape(graph.Sub(logZ, expected), d[0], d[1])
	return logProbs, entropy
}

// Tokens are B padded rows of T token columns, the first PromptLen
// columns the left-padded prompts, the rest the right-padded responses
// (the layout of agentevolver.Sample). Package trainer/optim batches are
// Tokens too.
type Tokens struct {
	// InputIDs are the token ids, B rows of equal length T.
	InputIDs [][]int
	// AttentionMask is non-zero for real tokens and 0 for padding; nil
	// means every token is real.
	AttentionMask [][]int
	// PositionIDs are the rotary positions; nil means counting the real
	// tokens of each row from 0.
	PositionIDs [][]int
	// PromptLen is the number of prompt columns, at least 1.
	PromptLen int
}

// Batch is a padded batch for LogProbs: its Tokens and the temperature.
type Batch struct {
	Tokens
	// Temperature divides the logits; 0 means 1.
	Temperature float64
}

// LogProbResult holds per-token values of the response columns: row b,
// column r is response token r of batch row b (column PromptLen+r).
type LogProbResult struct {
	// LogProbs are log p(token | the columns before it).
	LogProbs [][]float32
	// Entropy is the entropy of each of those next-token distributions.
	Entropy [][]float32
}

// LogProbs computes the per-token log-probs and entropies of the response
// columns of batch. Shapes are padded up to a few bucket sizes (more
// left padding for the prompt, right padding for the response, padding
// rows), so each bucket compiles once; results are cut back to the batch.
func (m *Model) LogProbs(ctx context.Context, batch Batch) (_ LogProbResult, err error) {
	if err := ctx.Err(); err != nil {
		return LogProbResult{}, err
	}
	p, err := m.padBatch(batch)
	if err != nil {
		return LogProbResult{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	defer recoverGraphError(&err, "log-probs")
	exec := m.exec.logProbs[p.temperature]
	if exec == nil {
		// The temperature is baked into the graph: one per value.
		temperature := p.temperature
		exec = m.newCompiledGraph("log-probs", func(ctx *mlctx.Context, ids, pos, mask, targets *graph.Node) (*graph.Node, *graph.Node) {
			promptLen := ids.Shape().Dimensions[1] - targets.Shape().Dimensions[1]
			return m.TemperedResponseLogProbs(ctx, ids, pos, mask, targets, promptLen, temperature)
		})
		if m.exec.logProbs == nil {
			m.exec.logProbs = make(map[float64]*compiledGraph)
		}
		m.exec.logProbs[temperature] = exec
	}
	outs, err := exec.call(tensorShapes(p.ids, p.positions, p.mask, p.targets), p.ids, p.positions, p.mask, p.targets)
	if err != nil {
		return LogProbResult{}, err
	}
	defer finalizeAll(outs)
	logp, err := tensors.CopyFlatData[float32](outs[0])
	if err != nil {
		return LogProbResult{}, fmt.Errorf("%w: %w", ErrGraph, err)
	}
	ent, err := tensors.CopyFlatData[float32](outs[1])
	if err != nil {
		return LogProbResult{}, fmt.Errorf("%w: %w", ErrGraph, err)
	}
	return LogProbResult{LogProbs: p.unpad(logp), Entropy: p.unpad(ent)}, nil
}

// paddedBatch is a Batch laid out in bucket-sized tensors.
type paddedBatch struct {
	rows, respLen           int // original B and R
	width                   int // padded R
	temperature             float64
	ids, positions, targets *tensors.Tensor
	mask                    *tensors.Tensor
}

// unpad cuts a flat [B',R'] result back to the batch's [B][R].
func (p *paddedBatch) unpad(flat []float32) [][]float32 {
	out := make([][]float32, p.rows)
	for b := range out {
		out[b] = append([]float32(nil), flat[b*p.width:b*p.width+p.respLen]...)
	}
	return out
}

// padBatch validates batch and pads it to bucket sizes.
func (m *Model) padBatch(batch Batch) (*paddedBatch, error) {
	rows := len(batch.InputIDs)
	if rows == 0 {
		return nil, fmt.Errorf("%w: empty batch", ErrBadInput)
	}
	t := len(batch.InputIDs[0])
	if batch.PromptLen < 1 || batch.PromptLen >= t {
		return nil, fmt.Errorf("%w: PromptLen %d outside [1, %d)", ErrBadInput, batch.PromptLen, t)
	}
	if t > m.cfg.MaxPositionEmbeddings {
		return nil, fmt.Errorf("%w: %d columns, more than max_position_embeddings %d", ErrBadInput, t, m.cfg.MaxPositionEmbeddings)
	}
	temperature := batch.Temperature
	if temperature == 0 {
		temperature = 1
	}
	if !(temperature > 0) {
		return nil, fmt.Errorf("%w: temperature %g", ErrBadInput, batch.Temperature)
	}
	for name, grid := range map[string][][]int{"InputIDs": batch.InputIDs, "AttentionMask": batch.AttentionMask, "PositionIDs": batch.PositionIDs} {
		if grid == nil && name != "InputIDs" {
			continue
		}
		if len(grid) != rows {
			return nil, fmt.Errorf("%w: %s has %d rows, InputIDs %d", ErrBadInput, name, len(grid), rows)
		}
		for b, row := range grid {
			if len(row) != t {
				return nil, fmt.Errorf("%w: %s row %d has %d columns, want %d", ErrBadInput, name, b, len(row), t)
			}
		}
	}
	promptLen, respLen := batch.PromptLen, t-batch.PromptLen
	paddedPrompt, paddedResp, paddedRows := BucketSize(promptLen), BucketSize(respLen), BucketSize(rows)
	width := paddedPrompt + paddedResp
	shift := paddedPrompt - promptLen
	ids := make([]int32, paddedRows*width)
	pos := make([]int32, paddedRows*width)
	mask := make([]bool, paddedRows*width)
	targets := make([]int32, paddedRows*paddedResp)
	for b, row := range batch.InputIDs {
		next := 0
		for j, id := range row {
			if id < 0 || id >= m.cfg.VocabSize {
				return nil, fmt.Errorf("%w: token id %d at row %d column %d outside [0, %d)", ErrBadInput, id, b, j, m.cfg.VocabSize)
			}
			real := batch.AttentionMask == nil || batch.AttentionMask[b][j] != 0
			k := b*width + shift + j
			ids[k], mask[k] = int32(id), real
			switch {
			case batch.PositionIDs != nil:
				pos[k] = int32(batch.PositionIDs[b][j])
			case real:
				pos[k] = int32(next)
				next++
			}
			if j >= promptLen {
				targets[b*paddedResp+j-promptLen] = int32(id)
			}
		}
	}
	return &paddedBatch{
		rows: rows, respLen: respLen, width: paddedResp, temperature: temperature,
		ids:       tensors.FromFlatDataAndDimensions(ids, paddedRows, width),
		positions: tensors.FromFlatDataAndDimensions(pos, paddedRows, width),
		mask:      tensors.FromFlatDataAndDimensions(mask, paddedRows, width),
		targets:   tensors.FromFlatDataAndDimensions(targets, paddedRows, paddedResp),
	}, nil
}

// BucketSize rounds n up to the next size of the form 2^k or 3·2^(k-1)
// (1, 2, 3, 4, 6, 8, 12, 16, 24, ...): at most a third of a padded axis is
// waste, and a few dozen shapes cover every length up to the context size.
// The model pads its batches to these sizes so that each shape compiles
// once; callers that pad batches themselves (the trainer) use the same
// sizes.
func BucketSize(n int) int {
	p := 1
	for p < n {
		if p >= 2 && p+p/2 >= n {
			return p + p/2
		}
		p *= 2
	}
	return p
}

// finalizeAll releases the backend buffers of ts now instead of at garbage
// collection, so the next call can reuse them.
func finalizeAll(ts []*tensors.Tensor) {
	for _, t := range ts {
		if t != nil {
			_ = t.FinalizeAll()
		}
	}
}
