package model

import (
	"cmp"
	"slices"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
)

// cacheBlock is one block of the running batch: rows of the KV cache, all
// as wide as the block's longest row needs. The engine keeps rows of
// similar length together in a few blocks, so that a short row attends
// over its own columns and not over the longest row's.
type cacheBlock struct {
	slots      []*slot           // by row; nil: free
	cache      []*tensors.Tensor // per layer keys [rows,KV,hd,cols], then values [rows,KV,cols,hd]
	rows, cols int
}

// unfinished counts the block's rows still generating.
func (b *cacheBlock) unfinished() int {
	n := 0
	for _, s := range b.slots {
		if s != nil && !s.done {
			n++
		}
	}
	return n
}

// maxDecodeBlocks bounds how many blocks the running batch is split into.
// Replaying the rows of bench rollout, the cost below falls by 16% with
// two blocks, 21% with three and 22% with four.
const maxDecodeBlocks = 3

// maxDecodeShapes bounds the decode graph's compilations. Block shapes are
// bucketed, but with several blocks their combinations are many: bench
// rollout's warm pass runs about 150, its first 250-290, a compilation
// costing a few milliseconds and holding about 0.45 MB.
const maxDecodeShapes = 256

// decodeRowCols is what one more row of a decode step costs, in cache
// row-columns: its dense layers and head against the attention over one
// of its columns (about 13 us against 0.1 us a row-column on the built-in
// training shape, gofast, AMD EPYC). decodeBlockCols is what a further
// block costs: its own scatter, attention and softmax ops (a few dozen
// small ops, about 45 us).
const (
	decodeRowCols   = 130
	decodeBlockCols = 450
)

// planBlocks splits rows (unfinished rows and newcomers) into the blocks
// that cost a decode step least: sorted by length, the rows are cut into
// at most maxDecodeBlocks runs, each padded to a bucket of rows and as
// wide as its longest row needs (plus room to grow, alignCols), and the
// cheapest cut is found by dynamic programming over the sorted rows.
func planBlocks(rows []*slot) [][]*slot {
	if len(rows) == 0 {
		return nil
	}
	sorted := slices.Clone(rows)
	slices.SortStableFunc(sorted, func(a, b *slot) int { return cmp.Compare(len(a.ids), len(b.ids)) })
	n := len(sorted)
	blockCost := func(i, j int) int { // rows sorted[i:j]
		return BucketSize(j-i) * (alignCols(len(sorted[j-1].ids)+1) + decodeRowCols)
	}
	// best[k][i]: least cost of the first i rows in k blocks; from[k][i]:
	// where the last of those blocks starts.
	best, from := make([][]int, maxDecodeBlocks+1), make([][]int, maxDecodeBlocks+1)
	for k := range best {
		best[k], from[k] = make([]int, n+1), make([]int, n+1)
		for i := range best[k] {
			best[k][i] = -1
		}
	}
	best[0][0] = 0
	bestK := 0
	for k := 1; k <= maxDecodeBlocks; k++ {
		for i := 1; i <= n; i++ {
			for j := range i {
				if best[k-1][j] < 0 {
					continue
				}
				c := best[k-1][j] + blockCost(j, i)
				if k > 1 {
					c += decodeBlockCols
				}
				if best[k][i] < 0 || c < best[k][i] {
					best[k][i], from[k][i] = c, j
				}
			}
		}
		if bestK == 0 || (best[k][n] >= 0 && best[k][n] < best[bestK][n]) {
			bestK = k
		}
	}
	groups := make([][]*slot, bestK)
	for k, i := bestK, n; k > 0; k-- {
		j := from[k][i]
		groups[k-1] = sorted[j:i]
		i = j
	}
	return groups
}

// decodeBlocksGraph runs one decode step over the running batch's blocks:
// ids and pos [R,1] of all R rows, block after block, and the index of
// each row's logits last [R]; then per block the column each row writes
// start [r] and which columns it may see allowed [r,1,cols]; then per
// block each layer's cache keys and values. It returns the logits [R,V]
// and every block's updated caches, in order. The dense layers run over
// all rows together; each block's rows attend over their own block only.
// With one block it is rowsGraph's decode.
func (m *Model) decodeBlocksGraph(ctx *mlctx.Context, inputs []*graph.Node) []*graph.Node {
	c := m.cfg
	ids, pos, last := inputs[0], inputs[1], inputs[2]
	perBlock := 2 + 2*c.NumHiddenLayers
	blocks := (len(inputs) - 3) / perBlock
	caches := inputs[3+2*blocks:]
	type block struct {
		rows  int
		bias  *graph.Node
		merge kvMerge
	}
	bs := make([]block, blocks)
	for i := range bs {
		start, allowed := inputs[3+2*i], inputs[4+2*i]
		cache := caches[i*2*c.NumHiddenLayers : (i+1)*2*c.NumHiddenLayers]
		bs[i] = block{
			rows:  start.Shape().Dimensions[0],
			bias:  broadcastBias(attentionBias(allowed), c.NumKeyValueHeads, c.NumAttentionHeads/c.NumKeyValueHeads),
			merge: scatterMerge(cache, start, 1),
		}
	}
	ks := make([][]*graph.Node, blocks)
	vs := make([][]*graph.Node, blocks)
	for i := range ks {
		ks[i], vs[i] = make([]*graph.Node, c.NumHiddenLayers), make([]*graph.Node, c.NumHiddenLayers)
	}
	h := m.forwardWith(ctx, ids, pos, func(layer int, q, k, v *graph.Node) *graph.Node {
		if blocks == 1 {
			kA, vA, kc, vc := m.mergeKV(layer, k, v, bs[0].merge)
			ks[0][layer], vs[0][layer] = kc, vc
			return attention(q, kA, vA, bs[0].bias)
		}
		outs := make([]*graph.Node, blocks)
		row := 0
		for i, b := range bs {
			rows := graph.AxisRange(row, row+b.rows)
			kA, vA, kc, vc := m.mergeKV(layer, graph.Slice(k, rows), graph.Slice(v, rows), b.merge)
			ks[i][layer], vs[i][layer] = kc, vc
			outs[i] = attention(graph.Slice(q, rows), kA, vA, b.bias)
			row += b.rows
		}
		return graph.Concatenate(outs, 0)
	})
	r := ids.Shape().Dimensions[0]
	final := graph.Gather(graph.Reshape(h, r, c.HiddenSize), graph.InsertAxes(last, -1))
	outs := []*graph.Node{m.logits(ctx, final)}
	for i := range ks {
		for l := range ks[i] {
			outs = append(outs, ks[i][l], vs[i][l])
		}
	}
	return outs
}

// scatterMerge returns the merge that adds a block's new keys [B,KV,hd,T]
// and values [B,KV,T,hd] into its cache (each layer's keys
// [B,KV,hd,L] and values [B,KV,L,hd]) at columns start[b]+t. A column is
// written once and is zero until then, so the sum writes it exactly.
func scatterMerge(cache []*graph.Node, start *graph.Node, t int) kvMerge {
	g := start.Graph()
	b := start.Shape().Dimensions[0]
	kvHeads, hd := cache[0].Shape().Dimensions[1], cache[0].Shape().Dimensions[2]
	// Scatter indices: keys[b, kv, d, start[b]+t] and values[b, kv, start[b]+t, :].
	kAt := shapes.Make(dtypes.Int32, b, kvHeads, hd, t, 1)
	kCol := graph.Add(graph.BroadcastToShape(graph.Reshape(start, b, 1, 1, 1, 1), kAt), graph.Iota(g, kAt, 3))
	kIndex := graph.Concatenate([]*graph.Node{graph.Iota(g, kAt, 0), graph.Iota(g, kAt, 1), graph.Iota(g, kAt, 2), kCol}, -1)
	vAt := shapes.Make(dtypes.Int32, b, kvHeads, t, 1)
	vCol := graph.Add(graph.BroadcastToShape(graph.Reshape(start, b, 1, 1, 1), vAt), graph.Iota(g, vAt, 2))
	vIndex := graph.Concatenate([]*graph.Node{graph.Iota(g, vAt, 0), graph.Iota(g, vAt, 1), vCol}, -1)
	return func(layer int, k, v *graph.Node) (*graph.Node, *graph.Node) {
		k = graph.ScatterSum(cache[2*layer], kIndex, k, true, true)
		v = graph.ScatterSum(cache[2*layer+1], vIndex, v, true, true)
		return k, v
	}
}
