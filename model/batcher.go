package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/org/agentevolver/internal/parallel"
)

// PolicyStats are a Policy's cumulative generation counters.
type PolicyStats struct {
	// Requests is the number of finished Chat generations.
	Requests int
	// PrefillTokens counts the prompt tokens run through the model;
	// ReusedTokens those whose keys and values came from the prefix cache
	// instead (or from an identical prompt in the same batch).
	PrefillTokens, ReusedTokens int
	// PrefillCalls counts the prefill passes (each over a batch of new
	// rows); PrefillPadded the token positions they computed, padding
	// included.
	PrefillCalls, PrefillPadded int
	// GeneratedTokens counts sampled tokens.
	GeneratedTokens int
	// DecodeSteps counts single-token decode passes over the batch;
	// DecodeRows sums the rows they computed, padding and finished rows
	// included, and DecodeColumns the cache columns those rows attended
	// over.
	DecodeSteps, DecodeRows, DecodeColumns int
	// DecodeBlocks sums the cache blocks the decode steps ran over (rows
	// of similar length share a block; see engine).
	DecodeBlocks int
	// PrefillTime, DecodeTime and LayoutTime are the wall time spent
	// prefilling prompts, in decode steps (sampling included) and moving
	// caches between batch layouts.
	PrefillTime, DecodeTime, LayoutTime time.Duration
	// Compiles counts the distinct graph shapes generation ran (each
	// compiled once while it stays among the kept compilations).
	Compiles int
	// PrefixCacheEntries and PrefixCacheBytes describe the prefix cache
	// now.
	PrefixCacheEntries, PrefixCacheBytes int
}

// slot is one row of the running batch. Token j of a row always sits in
// cache column j, in the batch block as in a prefill block, which makes a
// row's numbers independent of the rows beside it (see engine).
type slot struct {
	req     *chatRequest
	ids     []int // tokens the cache holds keys and values of, in order: column j holds ids[j]
	row     int   // the cache row
	sampler sampler
	rng     *rand.Rand
	logits  []float32 // the next token's logits, nil until computed
	next    int       // the token to feed at the next step
	kv      *rowKV    // a new row's cache before it is placed
	done    bool      // finished: keys and values wait to be harvested
}

// colAlign is the multiple every cache and key-axis length is rounded up
// to. With token j in column j and lengths multiples of 16, every
// reduction over keys sees a row's values in the same SIMD lanes and no
// real value in a loop tail, whatever the block's length, so a row's
// results do not depend on the block it runs in (gofast's sums use four
// interleaved partial sums; its exp kernels are 8 or 16 wide).
const colAlign = 16

// alignCols returns the cache length for n columns: a bucket, rounded up
// to colAlign.
func alignCols(n int) int {
	b := BucketSize(n)
	return (b + colAlign - 1) / colAlign * colAlign
}

// engine runs a Policy's generations as one continuously batched loop:
// requests join the running batch between decode steps, each with only its
// uncached prompt suffix prefilled, and leave it when they finish.
//
// The cache is held in a few blocks (cacheBlock), each [rows, cols] per
// layer, rows of similar length together (planBlocks); row r of a block
// holds its tokens in columns 0, 1, ... and is written at its own next
// column, so one decode graph per combination of block shapes serves
// every step: the dense layers over all rows, each block's attention over
// its own columns. A joining row is copied into a free row of the
// narrowest block that holds it, in place (on backends whose buffers are
// host memory); when none does, when a row would outgrow its block, or
// when a block holds more rows than it needs, the rows are copied into new
// blocks ("relayout"). Finished rows are harvested into the prefix cache
// when their row is reused or the blocks are rebuilt. Block shapes are
// bucketed; a compilation costs a few milliseconds on simplego, so the
// blocks follow the batch closely rather than padding it.
//
// Because every row's token j sits in column j of a block whose length is
// a multiple of colAlign, and matrix products are row-independent, a row's
// logits are bitwise the same whatever else is in the batch and whether
// its prefix came from the cache: seeded sampling is reproducible however
// requests happen to interleave. (The plain path of Model.Generate lays
// rows out differently and agrees to float32 rounding.)
//
// Only the goroutine running the Policy's loop uses an engine, and only
// while holding m.mu.
type engine struct {
	m          *Model
	geo        kvGeometry
	prefix     prefixCache
	continuous bool
	shared     bool           // the backend's buffers are host memory, read and written in place
	team       *parallel.Team // splits the layout's row copies: the backend's when it has one
	prefillG   *compiledGraph
	decodeG    *compiledGraph
	compiled   map[string]bool
	variables  int // how many variables the model's context had when the graphs were built

	blocks []*cacheBlock // the running batch, by length of their rows
	stats  PolicyStats
}

func newEngine(m *Model, prefixBytes int, continuous bool) *engine {
	e := &engine{m: m, geo: m.kvGeometry(), continuous: continuous, shared: m.backend.HasSharedBuffers(), compiled: map[string]bool{}}
	e.prefix = prefixCache{geo: e.geo, maxBytes: prefixBytes}
	e.team = &parallel.Team{} // the caller alone
	if b, ok := m.backend.(interface{ Team() *parallel.Team }); ok {
		e.team = b.Team()
	}
	// Prefill runs rows of several tokens in one block, decode one token
	// per row over the running batch's blocks; each compiler keeps
	// maxCompiledShapes.
	e.prefillG = m.newSamplingGraph("prefill rows", m.rowsGraph)
	e.decodeG = m.newSamplingGraph("decode rows", m.decodeBlocksGraph)
	// Every combination of block shapes is a decode shape: a batch's
	// blocks move through a few hundred of them.
	e.decodeG.limit = maxDecodeShapes
	return e
}

// active counts the unfinished rows.
func (e *engine) active() int {
	n := 0
	for _, b := range e.blocks {
		n += b.unfinished()
	}
	return n
}

// allSlots lists the rows of every block, finished ones included.
func (e *engine) allSlots() []*slot {
	var all []*slot
	for _, b := range e.blocks {
		for _, s := range b.slots {
			if s != nil {
				all = append(all, s)
			}
		}
	}
	return all
}

// shrinks reports whether a block holds more rows than its unfinished
// ones need, so that relaying out would make it smaller.
func (e *engine) shrinks() bool {
	for _, b := range e.blocks {
		if b.rows > BucketSize(b.unfinished()) {
			return true
		}
	}
	return false
}

// rows counts the rows of every block, free ones included.
func (e *engine) rows() int {
	n := 0
	for _, b := range e.blocks {
		n += b.rows
	}
	return n
}

// capacity is how many more requests may join now, given a batch bound.
func (e *engine) capacity(maxBatch int) int {
	n := e.active()
	if !e.continuous && n > 0 {
		return 0
	}
	return maxBatch - n
}

// tick admits reqs, samples one token for every active row and runs one
// decode step. Errors of the whole batch end every unfinished row.
func (e *engine) tick(reqs []*chatRequest) {
	m := e.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := e.tickLocked(reqs); err != nil {
		for _, s := range e.allSlots() {
			if !s.done {
				e.finish(s, err)
			}
		}
		for _, r := range reqs {
			select {
			case <-r.done:
			default:
				r.err = err
				close(r.done)
			}
		}
		e.reset()
	}
}

func (e *engine) tickLocked(reqs []*chatRequest) (err error) {
	defer recoverGraphError(&err, "generate")
	var fresh []*slot
	for _, r := range reqs {
		if err := r.row.ctx.Err(); err != nil {
			r.err = err
			close(r.done)
			continue
		}
		s := &slot{req: r, sampler: sampler{temperature: r.row.opts.Temperature, topK: r.row.opts.TopK, topP: r.row.opts.TopP},
			rng: rand.New(rand.NewPCG(r.row.opts.Seed, r.row.stream))}
		fresh = append(fresh, s)
	}
	if len(fresh) > 0 {
		if err := e.prefill(fresh); err != nil {
			return err
		}
		if err := e.admit(fresh); err != nil {
			return err
		}
	} else if e.shrinks() {
		if err := e.layout(); err != nil {
			return err
		}
	}
	began := time.Now()
	defer func() { e.stats.DecodeTime += time.Since(began) }()
	for _, s := range e.allSlots() {
		if !s.done {
			e.sample(s)
		}
	}
	if e.active() == 0 {
		return nil
	}
	full := false
	var fullDone []*cacheBlock
	for _, b := range e.blocks {
		done := false
		for _, s := range b.slots {
			if s != nil && len(s.ids) >= b.cols {
				full, done = full || !s.done, done || s.done
			}
		}
		if done {
			fullDone = append(fullDone, b)
		}
	}
	if full || len(fullDone) > 0 {
		layoutBegan := time.Now()
		if full { // an active row needs a column more: grow its block
			if err := e.relayout(nil); err != nil {
				return err
			}
		} else { // a finished row has no column left to write past its tokens
			for _, b := range fullDone {
				hostK, hostV, err := e.download(b)
				if err != nil {
					return err
				}
				e.harvest(b, hostK, hostV)
			}
		}
		e.stats.LayoutTime += time.Since(layoutBegan)
		began = began.Add(time.Since(layoutBegan))
	}
	return e.step()
}

// sample draws the next token of s from its logits and finishes s when it
// is done.
func (e *engine) sample(s *slot) {
	r := &s.req.row
	if err := r.ctx.Err(); err != nil {
		e.finish(s, err)
		return
	}
	row := s.logits
	if limit := r.opts.VocabLimit; limit > 0 && limit < len(row) {
		row = row[:limit]
	}
	token, logp := s.sampler.sample(row, s.rng)
	g := &s.req.gen
	g.TokenIDs = append(g.TokenIDs, token)
	g.LogProbs = append(g.LogProbs, logp)
	e.stats.GeneratedTokens++
	s.next, s.logits = token, nil
	switch {
	case slices.Contains(r.opts.StopTokens, token) || (r.stop != nil && r.stop(g.TokenIDs)):
		g.FinishReason = FinishStop
	case len(g.TokenIDs) == r.opts.MaxTokens:
		g.FinishReason = FinishLength
	default:
		return
	}
	e.finish(s, nil)
}

// finish hands s's result to its caller; its row stays in the cache until
// it is harvested into the prefix cache (when the row is reused or the
// block rebuilt).
func (e *engine) finish(s *slot, err error) {
	s.done = true
	s.req.err = err
	e.stats.Requests++
	close(s.req.done)
}

// reset drops the batch (after a failure, or when the loop goes idle).
func (e *engine) reset() {
	for _, b := range e.blocks {
		finalizeAll(b.cache)
	}
	e.blocks = nil
}

// idle harvests the finished rows into the prefix cache and releases the
// batch. Callers do not hold m.mu.
func (e *engine) idle() {
	e.m.mu.Lock()
	defer e.m.mu.Unlock()
	if len(e.blocks) > 0 && e.prefix.maxBytes > 0 {
		func() {
			var err error
			defer recoverGraphError(&err, "harvest")
			e.harvestAll()
		}()
	}
	e.reset()
}

// harvestAll adds every finished row's cache to the prefix cache.
func (e *engine) harvestAll() {
	for _, b := range e.blocks {
		hostK, hostV, err := e.download(b)
		if err != nil {
			return
		}
		e.harvest(b, hostK, hostV)
	}
}

// download returns block b's keys and values per layer on the host: views
// of the backend's buffers where it shares memory with the host (valid
// until the next graph call), copies otherwise.
func (e *engine) download(b *cacheBlock) (hostK, hostV [][]float32, err error) {
	return e.downloadBlock(b.cache)
}

// downloadBlock is download for any block.
func (e *engine) downloadBlock(block []*tensors.Tensor) (hostK, hostV [][]float32, err error) {
	hostK, hostV = make([][]float32, e.geo.layers), make([][]float32, e.geo.layers)
	for l := range e.geo.layers {
		if hostK[l], err = e.view(block[2*l]); err != nil {
			return nil, nil, err
		}
		if hostV[l], err = e.view(block[2*l+1]); err != nil {
			return nil, nil, err
		}
	}
	return hostK, hostV, nil
}

// view returns t's data: the backend's own memory when e.shared.
func (e *engine) view(t *tensors.Tensor) ([]float32, error) {
	if !e.shared {
		data, err := tensors.CopyFlatData[float32](t)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrGraph, err)
		}
		return data, nil
	}
	var data []float32
	err := t.ConstFlatData(func(flat any) { data, _ = flat.([]float32) })
	if err != nil || data == nil {
		return nil, fmt.Errorf("%w: reading the KV cache: %v", ErrGraph, err)
	}
	return data, nil
}

// newBlock returns the data of a cache block of rows x cols per layer
// (keys, then values), to fill, and wrap, which returns the block's
// tensors once it is filled. On a backend sharing memory with the host the
// data are the backend's own buffers (recycled, so nothing is allocated or
// copied); otherwise host slices that wrap copies. Either way the caller
// writes every row, with fillKeys and fillValues or by clearing it: the
// recycled buffers hold old values (clearing the whole block, then copying
// over most of it, was half of a relayout).
func (e *engine) newBlock(rows, cols int) (data [][]float32, wrap func() ([]*tensors.Tensor, error), err error) {
	g := e.geo
	var dims [][]int
	for range g.layers {
		dims = append(dims, []int{rows, g.kvHeads, g.headDim, cols}, []int{rows, g.kvHeads, cols, g.headDim})
	}
	if !e.shared {
		for _, d := range dims {
			data = append(data, make([]float32, shapes.Make(dtypes.Float32, d...).Size()))
		}
		return data, func() ([]*tensors.Tensor, error) {
			ts := make([]*tensors.Tensor, len(dims))
			for i, d := range dims {
				ts[i] = tensors.FromFlatDataAndDimensions(data[i], d...)
			}
			return ts, nil
		}, nil
	}
	var buffers []backends.Buffer
	release := func() {
		for _, b := range buffers {
			_ = e.m.backend.BufferFinalize(b)
		}
	}
	for _, d := range dims {
		buf, flat, err := e.m.backend.NewSharedBuffer(0, shapes.Make(dtypes.Float32, d...))
		if err != nil {
			release()
			return nil, nil, fmt.Errorf("%w: %w", ErrGraph, err)
		}
		f, _ := flat.([]float32)
		buffers, data = append(buffers, buf), append(data, f)
	}
	return data, func() ([]*tensors.Tensor, error) {
		ts := make([]*tensors.Tensor, 0, len(buffers))
		for i, b := range buffers {
			t, err := tensors.FromBuffer(e.m.backend, b)
			if err != nil {
				finalizeAll(ts)
				buffers = buffers[i:]
				release()
				return nil, fmt.Errorf("%w: %w", ErrGraph, err)
			}
			ts = append(ts, t)
		}
		return ts, nil
	}, nil
}

// rowSize is the number of floats of one row of a cache block of cols
// columns, per layer and per keys or values.
func (e *engine) rowSize(cols int) int { return e.geo.kvHeads * cols * e.geo.headDim }

// extractRow copies s's tokens out of its block b, downloaded.
func (e *engine) extractRow(b *cacheBlock, hostK, hostV [][]float32, s *slot) *rowKV {
	n := len(s.ids)
	kv := e.geo.newRowKV(n)
	size := e.rowSize(b.cols)
	for l := range e.geo.layers {
		e.geo.fillKeys(kv.k[l], n, hostK[l][s.row*size:(s.row+1)*size], b.cols, n)
		e.geo.fillValues(kv.v[l], n, hostV[l][s.row*size:(s.row+1)*size], b.cols, n)
	}
	return kv
}

// prefill computes the caches and first logits of new rows: the longest
// cached prefix of each prompt is reused, identical prompts run once, and
// only the rest goes through the model.
func (e *engine) prefill(fresh []*slot) error {
	began := time.Now()
	defer func() { e.stats.PrefillTime += time.Since(began) }()
	e.prefix.checkWeights(e.m)
	if n := e.m.countVariables(); n != e.variables {
		// New variables (LoRA adapters added, merged or dropped) change
		// the graphs: build them afresh.
		e.variables = n
		e.prefillG.close()
		e.decodeG.close()
	}
	var jobs []*prefillJob
	byPrompt := map[string]*prefillJob{}
	for _, s := range fresh {
		prompt := s.req.row.prompt
		key := fmt.Sprint(prompt)
		if j, ok := byPrompt[key]; ok && e.prefix.maxBytes > 0 {
			j.slots = append(j.slots, s)
			e.stats.ReusedTokens += len(prompt)
			continue
		}
		j := &prefillJob{prompt: prompt, slots: []*slot{s}}
		j.entry, j.reuse = e.prefix.longest(prompt, len(prompt)-1)
		e.stats.ReusedTokens += j.reuse
		e.stats.PrefillTokens += len(prompt) - j.reuse
		byPrompt[key] = j
		jobs = append(jobs, j)
	}
	for _, group := range groupPrefillJobs(jobs) {
		if err := e.prefillJobs(group); err != nil {
			return err
		}
	}
	return nil
}

// prefillJob is one distinct prompt of a prefill: the cached prefix it
// reuses and the rows that asked for it.
type prefillJob struct {
	prompt []int
	entry  *prefixEntry
	reuse  int
	slots  []*slot
}

// suffix is how many of the job's tokens go through the model.
func (j *prefillJob) suffix() int { return len(j.prompt) - j.reuse }

// prefillJobs runs one prefill pass over jobs: one row per job, every
// row padded to the longest suffix.
func (e *engine) prefillJobs(jobs []*prefillJob) error {
	b, t, cols := prefillShape(jobs)
	// Suffixes start at their row's first uncached column; the rest of
	// the T positions are padding, written past the row's tokens.
	ids, pos, start, last := make([]int32, b*t), make([]int32, b*t), make([]int32, b), make([]int32, b)
	allowed := make([]bool, b*t*cols)
	for i := range b {
		last[i] = int32(i * t)
		allowed[i*t*cols] = true // padding rows see one key: finite
	}
	for i, j := range jobs {
		suffix := j.prompt[j.reuse:]
		start[i], last[i] = int32(j.reuse), int32(i*t+len(suffix)-1)
		for q := range t {
			if q < len(suffix) {
				ids[i*t+q], pos[i*t+q] = int32(suffix[q]), int32(j.reuse+q)
			}
			row := allowed[(i*t+q)*cols : (i*t+q+1)*cols]
			for c := 0; c <= j.reuse+q; c++ {
				row[c] = true
			}
		}
	}
	data, wrap, err := e.newBlock(b, cols)
	if err != nil {
		return err
	}
	size := e.rowSize(cols)
	for i := range b {
		for l := range e.geo.layers {
			dstK, dstV := data[2*l][i*size:(i+1)*size], data[2*l+1][i*size:(i+1)*size]
			if i >= len(jobs) || jobs[i].reuse == 0 {
				clear(dstK) // a padding row, or one with nothing cached
				clear(dstV)
				continue
			}
			src := jobs[i].entry.kv
			e.geo.fillKeys(dstK, cols, src.k[l], src.n, jobs[i].reuse)
			e.geo.fillValues(dstV, cols, src.v[l], src.n, jobs[i].reuse)
		}
	}
	block, err := wrap()
	if err != nil {
		return err
	}
	e.stats.PrefillCalls++
	e.stats.PrefillPadded += b * t
	outs, err := e.run(e.prefillG, []*tensors.Tensor{
		tensors.FromFlatDataAndDimensions(ids, b, t),
		tensors.FromFlatDataAndDimensions(pos, b, t),
		tensors.FromFlatDataAndDimensions(start, b),
		tensors.FromFlatDataAndDimensions(last, b),
		tensors.FromFlatDataAndDimensions(allowed, b, t, cols),
	}, block)
	if err != nil {
		return err
	}
	defer finalizeAll(outs)
	logits, err := tensors.CopyFlatData[float32](outs[0])
	if err != nil {
		return fmt.Errorf("%w: %w", ErrGraph, err)
	}
	hostK, hostV, err := e.downloadBlock(outs[1:])
	if err != nil {
		return err
	}
	vocab := e.m.cfg.VocabSize
	kvs := make([]*rowKV, len(jobs))
	e.eachRow(len(jobs), func(i int) {
		n := len(jobs[i].prompt)
		kv := e.geo.newRowKV(n)
		for l := range e.geo.layers {
			e.geo.fillKeys(kv.k[l], n, hostK[l][i*size:(i+1)*size], cols, n)
			e.geo.fillValues(kv.v[l], n, hostV[l][i*size:(i+1)*size], cols, n)
		}
		kvs[i] = kv
	})
	for i, j := range jobs {
		kv := kvs[i]
		row := slices.Clone(logits[i*vocab : (i+1)*vocab])
		for _, s := range j.slots {
			s.ids, s.kv, s.logits = slices.Clone(j.prompt), kv, row
		}
		// A sibling rollout's identical prompt, arriving later, reuses it.
		e.prefix.add(slices.Clone(j.prompt), kv)
	}
	return nil
}

// run calls g on inputs followed by the cache block, donated (its buffers
// are updated in place), counting compilations.
func (e *engine) run(g *compiledGraph, inputs, block []*tensors.Tensor) ([]*tensors.Tensor, error) {
	argShapes := tensorShapes(append(slices.Clone(inputs), block...)...)
	if key := g.name + ":" + shapesKey(argShapes); !e.compiled[key] {
		e.compiled[key] = true
		e.stats.Compiles++
	}
	args := make([]any, 0, len(argShapes))
	for _, t := range inputs {
		args = append(args, t)
	}
	for _, c := range block {
		donated, err := graph.DonateTensorBuffer(c, e.m.backend, 0)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrGraph, err)
		}
		args = append(args, donated)
	}
	return g.call(argShapes, args...)
}

// admit places the fresh rows into the batch and harvests the finished
// rows into the prefix cache. Each fresh row goes straight into a free row
// of the narrowest block that holds it, when the blocks can take them all;
// otherwise every row is copied into new blocks. (Blocks with more rows
// than they need shrink at the next step without newcomers.)
func (e *engine) admit(fresh []*slot) error {
	began := time.Now()
	defer func() { e.stats.LayoutTime += time.Since(began) }()
	if !e.shared || len(e.blocks) == 0 {
		return e.relayout(fresh)
	}
	hosts := make([][2][][]float32, len(e.blocks))
	for i, b := range e.blocks {
		hostK, hostV, err := e.download(b)
		if err != nil {
			return err
		}
		e.harvest(b, hostK, hostV)
		hosts[i] = [2][][]float32{hostK, hostV}
	}
	// Plan first: a row that fits nowhere sends everything to relayout.
	type place struct{ block, row int }
	places := make([]place, len(fresh))
	taken := map[place]bool{}
	for i, s := range fresh {
		best := place{-1, -1}
		for bi, b := range e.blocks {
			if len(s.ids) >= b.cols || (best.block >= 0 && b.cols >= e.blocks[best.block].cols) {
				continue
			}
			for r, other := range b.slots {
				if other == nil && !taken[place{bi, r}] {
					best = place{bi, r}
					break
				}
			}
		}
		if best.block < 0 {
			return e.relayout(fresh)
		}
		places[i] = best
		taken[best] = true
	}
	e.eachRow(len(fresh), func(i int) {
		s, b, host := fresh[i], e.blocks[places[i].block], hosts[places[i].block]
		row, size, n := places[i].row, e.rowSize(b.cols), len(s.ids)
		for l := range e.geo.layers {
			dstK, dstV := host[0][l][row*size:(row+1)*size], host[1][l][row*size:(row+1)*size]
			e.geo.fillKeys(dstK, b.cols, s.kv.k[l], n, n)
			e.geo.fillValues(dstV, b.cols, s.kv.v[l], n, n)
		}
	})
	for i, s := range fresh {
		s.kv, s.row = nil, places[i].row
		e.blocks[places[i].block].slots[s.row] = s
	}
	return nil
}

// harvest adds the finished rows of block b, downloaded, to the prefix
// cache and frees their rows.
func (e *engine) harvest(b *cacheBlock, hostK, hostV [][]float32) {
	var done []*slot
	for _, s := range b.slots {
		if s != nil && s.done && len(s.ids) > 0 {
			done = append(done, s)
		}
	}
	kvs := make([]*rowKV, len(done))
	e.eachRow(len(done), func(i int) { kvs[i] = e.extractRow(b, hostK, hostV, done[i]) })
	for i, s := range done {
		e.prefix.add(s.ids, kvs[i])
	}
	for i, s := range b.slots {
		if s != nil && s.done {
			b.slots[i] = nil
		}
	}
}

// eachRow calls fn(i) for every row i of n, on the team: each call copies
// one row's keys and values (hundreds of kilobytes) and writes only that
// row.
func (e *engine) eachRow(n int, fn func(i int)) {
	e.team.Split(n, 1, n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			fn(i)
		}
	})
}

// layout copies the rows into new blocks (to grow or shrink them).
func (e *engine) layout() error {
	began := time.Now()
	defer func() { e.stats.LayoutTime += time.Since(began) }()
	return e.relayout(nil)
}

// relayout copies the unfinished rows and the fresh ones into new cache
// blocks (planBlocks) and harvests the finished rows into the prefix
// cache.
func (e *engine) relayout(fresh []*slot) error {
	type source struct {
		block        *cacheBlock
		hostK, hostV [][]float32
	}
	from := map[*slot]source{}
	var rows []*slot
	for _, b := range e.blocks {
		hostK, hostV, err := e.download(b)
		if err != nil {
			return err
		}
		e.harvest(b, hostK, hostV)
		for _, s := range b.slots {
			if s != nil {
				from[s] = source{b, hostK, hostV}
				rows = append(rows, s)
			}
		}
	}
	rows = append(rows, fresh...)
	groups := planBlocks(rows)
	var blocks []*cacheBlock
	release := func() {
		for _, b := range blocks {
			finalizeAll(b.cache)
		}
	}
	for _, group := range groups {
		// A compilation costs a few milliseconds, a padding row a full row
		// of every decode step: blocks are as small as the buckets allow.
		// The bucket rounding of the columns leaves room to grow; a block
		// that fills up is copied again (a few milliseconds, rarely).
		nb := &cacheBlock{rows: BucketSize(len(group)), cols: alignCols(len(group[len(group)-1].ids) + 1)}
		data, wrap, err := e.newBlock(nb.rows, nb.cols)
		if err != nil {
			release()
			return err
		}
		nb.slots = make([]*slot, nb.rows)
		size := e.rowSize(nb.cols)
		for l := range e.geo.layers {
			clear(data[2*l][len(group)*size:]) // the bucket's padding rows
			clear(data[2*l+1][len(group)*size:])
		}
		e.eachRow(len(group), func(i int) {
			s := group[i]
			n := len(s.ids)
			for l := range e.geo.layers {
				dstK, dstV := data[2*l][i*size:(i+1)*size], data[2*l+1][i*size:(i+1)*size]
				if s.kv != nil {
					e.geo.fillKeys(dstK, nb.cols, s.kv.k[l], n, n)
					e.geo.fillValues(dstV, nb.cols, s.kv.v[l], n, n)
				} else {
					src := from[s]
					oldSize := e.rowSize(src.block.cols)
					srcK := src.hostK[l][s.row*oldSize : (s.row+1)*oldSize]
					srcV := src.hostV[l][s.row*oldSize : (s.row+1)*oldSize]
					e.geo.fillKeys(dstK, nb.cols, srcK, src.block.cols, n)
					e.geo.fillValues(dstV, nb.cols, srcV, src.block.cols, n)
				}
			}
		})
		if nb.cache, err = wrap(); err != nil {
			release()
			return err
		}
		blocks = append(blocks, nb)
	}
	// Rows move only once every block is built: a failure leaves the
	// batch as it was.
	for bi, group := range groups {
		for i, s := range group {
			s.kv, s.row = nil, i
			blocks[bi].slots[i] = s
		}
	}
	for _, b := range e.blocks {
		finalizeAll(b.cache)
	}
	e.blocks = blocks
	return nil
}

// step feeds every active row its next token at its next column and keeps
// the logits that follow. Rows go block after block; each block's rows
// attend over their own block.
func (e *engine) step() error {
	total := e.rows()
	ids, pos, last := make([]int32, total), make([]int32, total), make([]int32, total)
	var perBlock, cache []*tensors.Tensor
	first := 0
	for _, b := range e.blocks {
		start, allowed := make([]int32, b.rows), make([]bool, b.rows*b.cols)
		for r := range b.rows {
			g := first + r
			last[g] = int32(g)
			s := b.slots[r]
			switch {
			case s == nil: // a free row: writes column 0, which a new row overwrites
				allowed[r*b.cols] = true
			case s.done: // a finished row: writes past its tokens
				start[r] = int32(len(s.ids))
				allowed[r*b.cols] = true
			default:
				n := len(s.ids)
				ids[g], pos[g], start[r] = int32(s.next), int32(n), int32(n)
				for c := 0; c <= n; c++ {
					allowed[r*b.cols+c] = true
				}
			}
		}
		perBlock = append(perBlock, tensors.FromFlatDataAndDimensions(start, b.rows),
			tensors.FromFlatDataAndDimensions(allowed, b.rows, 1, b.cols))
		cache = append(cache, b.cache...)
		b.cache = nil // donated
		first += b.rows
	}
	inputs := append([]*tensors.Tensor{
		tensors.FromFlatDataAndDimensions(ids, total, 1),
		tensors.FromFlatDataAndDimensions(pos, total, 1),
		tensors.FromFlatDataAndDimensions(last, total),
	}, perBlock...)
	outs, err := e.run(e.decodeG, inputs, cache)
	if err != nil {
		return err
	}
	per := 2 * e.geo.layers
	for i, b := range e.blocks {
		b.cache = outs[1+i*per : 1+(i+1)*per]
	}
	logits, err := tensors.CopyFlatData[float32](outs[0])
	_ = outs[0].FinalizeAll()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrGraph, err)
	}
	e.stats.DecodeSteps++
	e.stats.DecodeBlocks += len(e.blocks)
	vocab := e.m.cfg.VocabSize
	first = 0
	for _, b := range e.blocks {
		e.stats.DecodeRows += b.rows
		e.stats.DecodeColumns += b.rows * b.cols
		for r, s := range b.slots {
			if s == nil || s.done {
				continue
			}
			s.ids = append(s.ids, s.next)
			s.logits = logits[(first+r)*vocab : (first+r+1)*vocab]
		}
		first += b.rows
	}
	return nil
}

// rowsGraph runs T new tokens per row against the rows' caches, for both
// prefill (T is the longest uncached suffix) and decode (T = 1): ids and
// pos [B,T], the column each row's first new token goes to start [B], the
// flat index b·T+t of each row's last real token last [B], which keys each
// query may see allowed [B,T,L], then each layer's cache keys [B,KV,hd,L]
// and values [B,KV,L,hd]. The new keys and values of row b's token t are
// added into column start[b]+t (the cache is zero there: a column is
// written once). It returns the logits [B,V] after each row's last token
// and the updated caches.
func (m *Model) rowsGraph(ctx *mlctx.Context, inputs []*graph.Node) []*graph.Node {
	ids, pos, start, last, allowed := inputs[0], inputs[1], inputs[2], inputs[3], inputs[4]
	b, t := ids.Shape().Dimensions[0], ids.Shape().Dimensions[1]
	merge := scatterMerge(inputs[5:], start, t)
	h, ks, vs := m.forward(ctx, ids, pos, attentionBias(allowed), merge)
	final := graph.Gather(graph.Reshape(h, b*t, m.cfg.HiddenSize), graph.InsertAxes(last, -1))
	outs := []*graph.Node{m.logits(ctx, final)}
	for i := range ks {
		outs = append(outs, ks[i], vs[i])
	}
	return outs
}
