package model

import (
	"fmt"
	"slices"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// decoder holds the state of one batched generation: the KV cache and the
// host-side mask of which cache columns hold real tokens. Prompts are left
// padded to promptCols, so the token fed at step s goes to column
// promptCols+s in every row.
type decoder struct {
	m                      *Model
	rows, promptCols, cols int // padded batch, prompt and cache sizes
	vocab                  int
	prompts                [][]int
	written                int   // cache columns written so far
	positions              []int // next rotary position of each row
	keyValid               []bool
	cache                  []*tensors.Tensor // per layer K [rows, kvHeads, headDim, cols] and V [rows, kvHeads, cols, headDim]
}

// newDecoder prepares a generation of up to maxTokens tokens after
// prompts. Callers hold m.mu.
func (m *Model) newDecoder(prompts [][]int, maxTokens int) *decoder {
	longest := 0
	for _, p := range prompts {
		longest = max(longest, len(p))
	}
	d := &decoder{
		m: m, rows: BucketSize(len(prompts)), promptCols: BucketSize(longest), vocab: m.cfg.VocabSize, prompts: prompts,
	}
	d.cols = BucketSize(d.promptCols + maxTokens)
	if m.exec.prefill == nil {
		m.exec.prefill = m.newSamplingGraph("prefill", m.prefillGraph)
		m.exec.decode = m.newSamplingGraph("decode", m.decodeGraph)
	}
	return d
}

// prefill runs the prompts and returns the logits of their next token,
// [rows·vocab] flat.
func (d *decoder) prefill() ([]float32, error) {
	n := d.rows * d.promptCols
	ids, pos, mask := make([]int32, n), make([]int32, n), make([]bool, n)
	d.keyValid = make([]bool, d.rows*d.cols)
	d.positions = make([]int, d.rows)
	for b, p := range d.prompts {
		shift := d.promptCols - len(p)
		for j, id := range p {
			k := b*d.promptCols + shift + j
			ids[k], pos[k], mask[k] = int32(id), int32(j), true
			d.keyValid[b*d.cols+shift+j] = true
		}
		d.positions[b] = len(p)
	}
	args := []*tensors.Tensor{
		tensors.FromFlatDataAndDimensions(ids, d.rows, d.promptCols),
		tensors.FromFlatDataAndDimensions(pos, d.rows, d.promptCols),
		tensors.FromFlatDataAndDimensions(mask, d.rows, d.promptCols),
		tensors.FromShape(shapes.Make(dtypes.Bool, d.cols)), // only its length matters: the cache size
	}
	outs, err := d.m.exec.prefill.call(tensorShapes(args...), args[0], args[1], args[2], args[3])
	if err != nil {
		return nil, err
	}
	d.written = d.promptCols
	return d.takeOutputs(outs)
}

// step feeds one token per row and returns the logits of the following
// one.
func (d *decoder) step(tokens []int) ([]float32, error) {
	if d.written >= d.cols {
		return nil, fmt.Errorf("%w: KV cache of %d columns is full", ErrBadInput, d.cols)
	}
	ids, pos := make([]int32, d.rows), make([]int32, d.rows)
	for b := range d.rows {
		ids[b], pos[b] = int32(tokens[b]), int32(d.positions[b])
		d.positions[b]++
		d.keyValid[b*d.cols+d.written] = true
	}
	inputs := []*tensors.Tensor{
		tensors.FromFlatDataAndDimensions(ids, d.rows, 1),
		tensors.FromFlatDataAndDimensions(pos, d.rows, 1),
		tensors.FromScalar(int32(d.written)),
		tensors.FromFlatDataAndDimensions(slices.Clone(d.keyValid), d.rows, d.cols),
	}
	argShapes := tensorShapes(append(inputs, d.cache...)...)
	args := make([]any, 0, len(argShapes))
	for _, t := range inputs {
		args = append(args, t)
	}
	for _, c := range d.cache {
		// Donating the old cache lets the scatter write the new column in
		// place instead of copying the whole cache every step.
		donated, err := graph.DonateTensorBuffer(c, d.m.backend, 0)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrGraph, err)
		}
		args = append(args, donated)
	}
	d.cache = nil
	outs, err := d.m.exec.decode.call(argShapes, args...)
	if err != nil {
		return nil, err
	}
	d.written++
	return d.takeOutputs(outs)
}

// takeOutputs keeps the new cache and returns the logits.
func (d *decoder) takeOutputs(outs []*tensors.Tensor) ([]float32, error) {
	d.cache = outs[1:]
	logits, err := tensors.CopyFlatData[float32](outs[0])
	_ = outs[0].FinalizeAll()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrGraph, err)
	}
	return logits, nil
}

func (d *decoder) release() { finalizeAll(d.cache) }

// prefillGraph runs the decoder over the left-padded prompts ids, pos and
// mask [B,P] and returns the next-token logits [B,V] followed by each
// layer's keys [B,KV,hd,L] and values [B,KV,L,hd], zero-padded to a cache
// of cacheCols' length L.
func (m *Model) prefillGraph(ctx *mlctx.Context, inputs []*graph.Node) []*graph.Node {
	ids, pos, mask, cacheCols := inputs[0], inputs[1], inputs[2], inputs[3]
	g := ids.Graph()
	b, p := ids.Shape().Dimensions[0], ids.Shape().Dimensions[1]
	l := cacheCols.Shape().Dimensions[0]
	c := m.cfg
	bias := attentionBias(causalAllowed(mask))
	h, ks, vs := m.forward(ctx, ids, pos, bias, nil)
	last := graph.Reshape(graph.Slice(h, graph.AxisRange(), graph.AxisElem(p-1)), b, c.HiddenSize)
	outs := []*graph.Node{m.logits(ctx, last)}
	kPad := graph.Zeros(g, shapes.Make(dtypes.Float32, b, c.NumKeyValueHeads, c.HeadDim, l-p))
	vPad := graph.Zeros(g, shapes.Make(dtypes.Float32, b, c.NumKeyValueHeads, l-p, c.HeadDim))
	for i := range ks {
		outs = append(outs, graph.Concatenate([]*graph.Node{ks[i], kPad}, 3), graph.Concatenate([]*graph.Node{vs[i], vPad}, 2))
	}
	return outs
}

// decodeGraph feeds one token per row: ids and pos [B,1], the cache column
// to write (scalar), which cache columns hold real tokens keyValid [B,L],
// then each layer's cached keys [B,KV,hd,L] and values [B,KV,L,hd]. It
// returns the next-token logits [B,V] and the updated caches.
//
// simplego has no DynamicUpdateSlice, and Where(iota == column, new, cache)
// would broadcast the new column over the whole cache in every layer. A
// column is written exactly once and starts as zeros (prefill pads with
// them), so adding the new keys and values with ScatterSum writes them
// exactly, touching only the column.
func (m *Model) decodeGraph(ctx *mlctx.Context, inputs []*graph.Node) []*graph.Node {
	ids, pos, column, keyValid := inputs[0], inputs[1], inputs[2], inputs[3]
	cache := inputs[4:]
	g := ids.Graph()
	b, l := keyValid.Shape().Dimensions[0], keyValid.Shape().Dimensions[1]
	kvHeads, hd := cache[0].Shape().Dimensions[1], cache[0].Shape().Dimensions[2]
	// Scatter indices: keys[b, kv, d, column] and values[b, kv, column, :].
	kAt := shapes.Make(dtypes.Int32, b, kvHeads, hd, 1)
	kIndex := graph.Concatenate([]*graph.Node{graph.Iota(g, kAt, 0), graph.Iota(g, kAt, 1), graph.Iota(g, kAt, 2), graph.BroadcastToShape(column, kAt)}, -1)
	vAt := shapes.Make(dtypes.Int32, b, kvHeads, 1)
	vIndex := graph.Concatenate([]*graph.Node{graph.Iota(g, vAt, 0), graph.Iota(g, vAt, 1), graph.BroadcastToShape(column, vAt)}, -1)
	merge := func(layer int, k, v *graph.Node) (*graph.Node, *graph.Node) {
		k = graph.ScatterSum(cache[2*layer], kIndex, graph.Reshape(k, b, kvHeads, hd), true, true)
		v = graph.ScatterSum(cache[2*layer+1], vIndex, graph.Reshape(v, b, kvHeads, hd), true, true)
		return k, v
	}
	allowed := graph.Reshape(keyValid, b, 1, l)
	h, ks, vs := m.forward(ctx, ids, pos, attentionBias(allowed), merge)
	outs := []*graph.Node{m.logits(ctx, graph.Reshape(h, b, m.cfg.HiddenSize))}
	for i := range ks {
		outs = append(outs, ks[i], vs[i])
	}
	return outs
}
