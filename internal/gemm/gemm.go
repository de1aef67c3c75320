package gemm

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/org/agentevolver/internal/parallel"
)

// Params describes a batched float32 matrix product C = A·B over strided
// views:
//
//	A[b, i, p] = A[b*ABatchStride + i*ARowStride + p*AColStride]   (M x K)
//	B[b, p, j] = B[b*BBatchStride + p*BRowStride + j*BColStride]   (K x N)
//	C[b, i, j] = C[(b*M + i)*N + j]                                (dense, overwritten)
//
// Strides must be non-negative; a stride of 0 repeats data (e.g. a batch
// stride of 0 shares one matrix across the batch).
type Params struct {
	// Batch is the number of products; each is M x K times K x N.
	Batch, M, N, K int

	// A holds the left operands, element (b, i, p) at
	// b*ABatchStride + i*ARowStride + p*AColStride.
	A                                    []float32
	ABatchStride, ARowStride, AColStride int

	// B holds the right operands, element (b, p, j) at
	// b*BBatchStride + p*BRowStride + j*BColStride.
	B                                    []float32
	BBatchStride, BRowStride, BColStride int

	// BInt8 and BBFloat16 hold B in a narrow type instead of B: int8
	// values (a weight quantised per output channel, whose scales the
	// caller applies to C) or the bit patterns of bfloat16 numbers. Each
	// element converts to float32 exactly as it is read, so C is the
	// float32 product of the converted B. At most one of B, BInt8 and
	// BBFloat16 is set; the B strides count its elements. Few rows by a
	// weight stored [out, in] (decoding) read the narrow data directly,
	// which moves a half or a quarter of the bytes; other products
	// convert the part of B they use to float32 first.
	BInt8     []int8
	BBFloat16 []uint16
	// BPanelWidth, when above 0, says a narrow B with contiguous rows
	// (BColStride 1) is stored in panels of that many columns, a multiple
	// of PanelWidth: element (b, p, j) at b*BBatchStride +
	// (j/BPanelWidth)*BPanelStride + p*BRowStride + j%BPanelWidth. A
	// decode step then reads each panel's rows as one sequential run,
	// where rows of a whole [in, out] weight (a vocabulary wide) put every
	// step in another page.
	BPanelWidth, BPanelStride int

	// C receives the dense [Batch, M, N] result; it must not overlap A or B.
	C []float32

	// MaxWorkers bounds the goroutines used (the caller's included); values
	// below 1 mean 1, and it is capped at GOMAXPROCS. Small problems use
	// fewer workers than allowed, because starting goroutines costs more than
	// it saves on them.
	MaxWorkers int

	// Team, when set, supplies the goroutines of a split product: its
	// helpers stay awake between products, where goroutines started per
	// product pay an idle core's wake-up each time. Nil starts goroutines.
	Team *parallel.Team

	// ISA forces a kernel implementation; Auto (the zero value) picks the best.
	ISA ISA
}

// ErrInvalid reports Params that are inconsistent (negative sizes or
// strides, slices too short for the described views).
var ErrInvalid = errors.New("gemm: invalid parameters")

// Blocking parameters. kc bounds the depth of one pass so a packed B panel
// (kc x 32 float32 = 32 KiB) stays in L1 while a packed block of A (mc x kc)
// stays in L2. Each output element sums its products in order p = 0..K-1
// within a kc block and adds the blocks in order, whatever the worker count,
// so results are deterministic.
const (
	kc = 256
	mc = 96
	// noPackMaxM is the largest M for which B is read in place (when its
	// rows are contiguous) instead of packed: for so few rows packing B
	// costs about as much memory traffic as the product itself, while a
	// panel read in place is reused from cache by every row tile. Team of
	// two, GFLOP/s with the limit at 16 vs 128, AVX2 / AVX-512: attention's
	// 32 x (32x256x512) key gradient 88-108 vs 128-137 / 146-158 vs 186-192,
	// 128x256x2048 99-140 vs 155-164, 128x768x256 102-116 (at 64) vs
	// 152-171 / 181-199 vs 244-274. At 256 rows it was mixed on AVX2
	// (256x256x2048 147-166 against 158-162).
	noPackMaxM = 128
	// directAMaxN is the widest product for which row-major A is read in
	// place rather than packed: with few column panels each A element is
	// used only a few times, and packing it cost a large share of the
	// product. Measured on AVX-512, two workers, GFLOP/s packed vs in place
	// (M x N x K): 36864x128x128 153 vs 193, 36864x128x384 183 vs 255,
	// 2048x128x256 237 vs 304, 2048x256x768 220 vs 278, 2048x256x256 324 vs
	// 368; from N = 384 on, level or worse (36864x384x128 246 vs 254,
	// 2048x768x256 249 vs 218, 1024x4096x256 284 vs 272).
	directAMaxN = 256
	// swapMaxM is the most rows for which a product with B transposed is
	// computed swapped (multiplySwapped). Since its transpose runs in AVX
	// blocks, swapping pays up to a few hundred rows (team of two, µs,
	// swapped vs packed, AVX-512 / AVX2): 128x384x128 64 vs 88 / 84 vs
	// 100, 256x384x128 119 vs 132 / 161 vs 171; 512x833x128 ran 8-12%
	// slower swapped.
	swapMaxM = 256
	// streamMaxMR is the most rows for which B's rows are streamed (see
	// streamColumns); it matches gen_kernels.go's. streamSteps is how many
	// steps (rows of B) one stream pass reads side by side. Decode's
	// scores (64 x [2x32]·[32x512], A and B in place, one worker), in us
	// per product with B's data out of cache (42 MB cycled) and half in
	// it (13 MB), AVX-512 / AVX2: panels 395-430 / 465-520 and 119-243 /
	// 171-267; 1 step 176-272 / 176-230 and 98-145 / 140-189; 8 steps
	// 206-307 / 309-364 and 61-103 / 84-152; 16 steps 177-256 / 252-317
	// and 64-78 / 90-150; 32 (all) 155-233 / 274-371 and 75-119 / 75-132.
	streamMaxMR = 4
	streamSteps = 16
	// minFlopsPerWorker is the least work (2*M*N*K per task share) worth
	// another goroutine. With goroutines started per product it was 2 M
	// flops, below which an idle core's wake-up dominated; with a
	// Params.Team whose helpers are awake, a decode-step product of 32
	// rows by 128x128 (1 M flops) already runs faster on two cores than on
	// one (BenchmarkMultiply, team2: 8.7 µs instead of 10.3 on a 2-core
	// AMD EPYC; 12 instead of 13 on an Intel Xeon).
	minFlopsPerWorker = 1 << 18
)

// Multiply computes C = A·B as described by p. It returns an error wrapping
// ErrInvalid for inconsistent parameters, or an error naming an ISA the
// machine cannot run; it never panics.
func Multiply(p *Params) (err error) {
	if err := p.validate(); err != nil {
		return err
	}
	ks, err := kernelsFor(p.ISA)
	if err != nil {
		return err
	}
	if p.Batch == 0 || p.M == 0 || p.N == 0 {
		return nil
	}
	if p.K == 0 {
		clear(p.C[:p.Batch*p.M*p.N])
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gemm: %v", r)
		}
	}()
	if p.narrowB() {
		switch {
		case fewRows(p, ks), p.BColStride == 1:
			return newPlan(p, ks).run()
		}
		return multiplyWidened(p)
	}
	// With B transposed, swapping pays for all but many rows (the swapped
	// product reads its A, our B, in place, where the packed one packs B):
	// 32x768x256 ran at 53 GFLOP/s swapped and 35 packed, 64 rows at 59
	// and 44 (AVX2), before the transpose was vectorised (swapMaxM).
	if p.M <= swapMaxM && p.N > p.M && p.BRowStride == 1 && p.BColStride != 1 && !fewRows(p, ks) {
		return multiplySwapped(p)
	}
	// A weight gradient xᵀ·dY (A stored transposed, B row-major) with more
	// columns than rows runs faster swapped, as dYᵀ·x, the same layouts
	// with the roles exchanged. AVX2, team of two, GFLOP/s packed vs
	// swapped (M x N x K): 256x768x2048 156 vs 178, 256x512x2048 166 vs
	// 175, 384x768x2048 161 vs 173, 256x768x512 137 vs 163, 160x768x2048
	// 154 vs 170, 192x768x2048 160 vs 154. Up to noPackMaxM rows B is read
	// in place, which wins: 128x256x2048 163 vs 150.
	if p.M > noPackMaxM && p.N > p.M && p.ARowStride == 1 && p.AColStride != 1 && p.BColStride == 1 {
		return multiplySwapped(p)
	}
	return newPlan(p, ks).run()
}

// multiplySwapped computes a product as Cᵀ = Bᵀ·Aᵀ, for few rows and B
// stored transposed (columns contiguous, e.g. attention keys while
// decoding), or a wide weight gradient (see Multiply):
// Bᵀ then has contiguous rows, which the kernels read in place, and only the
// small Aᵀ gets packed. Packing the large B instead cost as much as the
// product. Each element is still one sequential sum over k in kc blocks.
func multiplySwapped(p *Params) error {
	size := p.Batch * p.M * p.N
	tmp := getFloats(size)
	defer putFloats(tmp)
	q := Params{
		Batch: p.Batch, M: p.N, N: p.M, K: p.K,
		A: p.B, ABatchStride: p.BBatchStride, ARowStride: p.BColStride, AColStride: p.BRowStride,
		B: p.A, BBatchStride: p.ABatchStride, BRowStride: p.AColStride, BColStride: p.ARowStride,
		C: tmp, MaxWorkers: p.MaxWorkers, Team: p.Team, ISA: p.ISA,
	}
	pl := newPlan(&q, mustKernels(q.ISA))
	// Each task transposes the block it computed while it is still in
	// cache, on its own goroutine.
	pl.done = func(b, i0, i1, j0, j1 int) {
		transposeBlock(p.C[b*p.M*p.N:(b+1)*p.M*p.N], tmp[b*p.M*p.N:(b+1)*p.M*p.N], p.M, p.N, i0, i1, j0, j1)
	}
	return pl.run()
}

// mustKernels is kernelsFor for an ISA already validated by Multiply.
func mustKernels(isa ISA) *kernelSet {
	ks, err := kernelsFor(isa)
	if err != nil {
		panic(err)
	}
	return ks
}

func (p *Params) validate() error {
	if p.Batch < 0 || p.M < 0 || p.N < 0 || p.K < 0 {
		return fmt.Errorf("%w: negative size batch=%d m=%d n=%d k=%d", ErrInvalid, p.Batch, p.M, p.N, p.K)
	}
	if p.ABatchStride < 0 || p.ARowStride < 0 || p.AColStride < 0 ||
		p.BBatchStride < 0 || p.BRowStride < 0 || p.BColStride < 0 {
		return fmt.Errorf("%w: negative stride", ErrInvalid)
	}
	if p.Batch == 0 || p.M == 0 || p.N == 0 {
		return nil
	}
	if need := p.Batch * p.M * p.N; len(p.C) < need {
		return fmt.Errorf("%w: len(C)=%d < %d", ErrInvalid, len(p.C), need)
	}
	if p.K == 0 {
		return nil
	}
	if last := (p.Batch-1)*p.ABatchStride + (p.M-1)*p.ARowStride + (p.K-1)*p.AColStride; last >= len(p.A) {
		return fmt.Errorf("%w: A view reaches index %d, len(A)=%d", ErrInvalid, last, len(p.A))
	}
	bLen, set := p.bLen()
	if set > 1 {
		return fmt.Errorf("%w: more than one of B, BInt8 and BBFloat16 set", ErrInvalid)
	}
	if p.BPanelWidth != 0 && (p.BPanelWidth < 0 || p.BPanelWidth%PanelWidth != 0 || p.BPanelStride < 0 || !p.narrowB() || p.BColStride != 1) {
		return fmt.Errorf("%w: B panels of %d columns (stride %d): want a multiple of %d, for a narrow B with column stride 1", ErrInvalid, p.BPanelWidth, p.BPanelStride, PanelWidth)
	}
	if last := (p.Batch-1)*p.BBatchStride + (p.K-1)*p.BRowStride + p.bColumn(p.N-1); last >= bLen {
		return fmt.Errorf("%w: B view reaches index %d, len(B)=%d", ErrInvalid, last, bLen)
	}
	return nil
}

// plan splits a Multiply into tasks: a task is one batch item's block of
// rows and columns. Tasks are independent (each output element belongs to
// exactly one), so any worker may run any task.
type plan struct {
	p  *Params
	ks *kernelSet

	nr      int  // widest tile in columns
	noPack  bool // B read in place (contiguous rows, few output rows)
	directA bool // A read in place (contiguous rows, narrow product)
	stream  bool // few rows: B's rows streamed (streamColumns)
	fewRows bool // few rows, B transposed: panels transposed in L1 (taskFewRows)
	// narrowPanels: B narrow with contiguous rows, its panels converted
	// in L1 (taskNarrowPanels).
	narrowPanels bool

	rowChunks, colChunks int // tasks per batch item
	rowStep, colStep     int // rows / columns per task (multiples of maxMR / nr)
	workers              int

	// Packed B shared by the tasks of one batch item; used only when a batch
	// item is split into several tasks (else each task packs into its own
	// scratch). The tasks pack it together (sharedPacking), one kc block
	// at a time, just before they need that block.
	sharedB       [][]float32
	sharedPacking []sharedPacking
	// groupPanels is how many column panels one claim of shared packing
	// covers; groups is how many such claims a kc block has.
	groupPanels, groups int
	// failed is set when a task panicked, so that the tasks waiting for
	// pieces of shared packing it will never finish stop waiting.
	failed atomic.Bool

	// done, when set, is called by the goroutine of each task with the
	// block of C it has just completed: batch item b, rows [i0, i1),
	// columns [j0, j1).
	done func(b, i0, i1, j0, j1 int)
}

func newPlan(p *Params, ks *kernelSet) *plan {
	pl := &plan{p: p, ks: ks, nr: ks.nr()}
	pl.narrowPanels = p.narrowB() && p.BColStride == 1
	pl.noPack = p.BColStride == 1 && p.M <= noPackMaxM && !pl.narrowPanels
	pl.fewRows = !pl.noPack && !pl.narrowPanels && fewRows(p, ks)
	pl.directA = ks.runDirect != nil && p.AColStride == 1 && p.N <= directAMaxN
	pl.stream = pl.noPack && ks.stream != nil && p.AColStride == 1 && p.M <= streamMaxMR && p.K <= kc

	workers := min(max(p.MaxWorkers, 1), runtime.GOMAXPROCS(0))
	flops := 2 * p.Batch * p.M * p.N * p.K
	workers = max(1, min(workers, flops/minFlopsPerWorker))

	pl.rowChunks, pl.colChunks = 1, 1
	if p.Batch < workers {
		need := (workers + p.Batch - 1) / p.Batch
		rowPanels := (p.M + ks.maxMR - 1) / ks.maxMR
		colPanels := (p.N + pl.nr - 1) / pl.nr
		if !pl.noPack && !pl.narrowPanels && rowPanels >= need {
			pl.rowChunks = need
		} else {
			pl.colChunks = min(need, colPanels)
		}
	}
	pl.rowStep = ceilDiv((p.M+ks.maxMR-1)/ks.maxMR, pl.rowChunks) * ks.maxMR
	pl.rowChunks = ceilDiv(p.M, pl.rowStep)
	pl.colStep = ceilDiv((p.N+pl.nr-1)/pl.nr, pl.colChunks) * pl.nr
	pl.colChunks = ceilDiv(p.N, pl.colStep)
	pl.workers = min(workers, p.Batch*pl.rowChunks*pl.colChunks)

	if !pl.noPack && !pl.fewRows && !pl.narrowPanels && pl.rowChunks*pl.colChunks > 1 {
		// Only when Batch < workers, so a few items at most.
		pl.sharedB = make([][]float32, p.Batch)
		pl.sharedPacking = make([]sharedPacking, p.Batch)
		panels := ceilDiv(p.N, pl.nr)
		pl.groupPanels = max(1, panels/(sharedGroupsPerWorker*pl.workers))
		pl.groups = ceilDiv(panels, pl.groupPanels)
		blocks := ceilDiv(p.K, kc)
		for b := range pl.sharedB {
			pl.sharedB[b] = getFloats(pl.packedBLen())
			pl.sharedPacking[b].done = make([]atomic.Int32, blocks)
		}
	}
	return pl
}

// sharedGroupsPerWorker sets the grain of shared packing: each kc block is
// claimed in about this many pieces per worker, enough that the workers
// finish a block's packing together, few enough that claiming is cheap.
const sharedGroupsPerWorker = 4

// sharedPacking tracks one batch item's shared packing of B: pieces (a kc
// block's group of column panels, numbered block by block) are claimed
// from next, and done counts each block's packed pieces.
type sharedPacking struct {
	next atomic.Int64
	done []atomic.Int32
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// run executes all tasks on pl.workers goroutines (the caller's included),
// each pulling task numbers from a shared counter.
func (pl *plan) run() error {
	numTasks := pl.p.Batch * pl.rowChunks * pl.colChunks
	var next atomic.Int64
	var firstErr error
	var errOnce sync.Once
	work := func() {
		s := getScratch()
		defer putScratch(s)
		defer func() {
			// A panic here is an internal error (a failed checkTile); report
			// it instead of crashing the program from a goroutine.
			if r := recover(); r != nil {
				pl.failed.Store(true)
				errOnce.Do(func() { firstErr = fmt.Errorf("gemm: %v", r) })
			}
		}()
		for {
			t := int(next.Add(1)) - 1
			if t >= numTasks {
				return
			}
			b := t / (pl.rowChunks * pl.colChunks)
			rc := t % (pl.rowChunks * pl.colChunks)
			i0 := (rc / pl.colChunks) * pl.rowStep
			j0 := (rc % pl.colChunks) * pl.colStep
			i1, j1 := min(i0+pl.rowStep, pl.p.M), min(j0+pl.colStep, pl.p.N)
			pl.task(s, b, i0, i1, j0, j1)
			if pl.done != nil {
				pl.done(b, i0, i1, j0, j1)
			}
		}
	}
	if pl.p.Team != nil {
		pl.p.Team.Run(pl.workers, work)
	} else {
		var wg sync.WaitGroup
		for range pl.workers - 1 {
			wg.Go(work)
		}
		work()
		wg.Wait()
	}
	if pl.sharedB != nil {
		for _, buf := range pl.sharedB {
			if buf != nil {
				putFloats(buf)
			}
		}
	}
	return firstErr
}

// packedBLen is the size of B packed for all kc blocks: every block holds
// ceil(N/width) vectors of columns, zero-padded.
func (pl *plan) packedBLen() int {
	w := pl.ks.width
	return pl.p.K * ceilDiv(pl.p.N, w) * w
}

// sharedBlock returns batch item b's shared packed B once its kc block blk
// is packed: the calling task packs unclaimed pieces of the block (and at
// most one of the next) before it waits for the pieces other tasks hold.
// Packing all of B on one task while the others waited had cost a weight
// gradient (K = 2048) a fifth of its time.
func (pl *plan) sharedBlock(b, blk int) []float32 {
	sp := &pl.sharedPacking[b]
	total := int64(len(sp.done) * pl.groups)
	for {
		piece := sp.next.Add(1) - 1
		if piece >= total {
			break
		}
		pl.packPiece(pl.sharedB[b], b, int(piece))
		sp.done[int(piece)/pl.groups].Add(1)
		if piece >= int64((blk+1)*pl.groups)-1 {
			break
		}
	}
	// The rest of the block is being packed on other goroutines right now:
	// a few microseconds. Waiting on a mutex instead would park this
	// goroutine, and waking it costs more than the packing.
	for i := 0; sp.done[blk].Load() != int32(pl.groups); i++ {
		if i%64 == 63 {
			if pl.failed.Load() {
				panic("packing B failed on another goroutine")
			}
			runtime.Gosched()
		}
	}
	return pl.sharedB[b]
}

// packPiece packs one piece of batch item b's B into dst (laid out as
// packB's): the column panels of group piece%groups in kc block
// piece/groups.
func (pl *plan) packPiece(dst []float32, b, piece int) {
	j0 := (piece % pl.groups) * pl.groupPanels * pl.nr
	pl.packPanels(dst, b, (piece/pl.groups)*kc, j0, min(pl.p.N, j0+pl.groupPanels*pl.nr))
}

// task computes C[b, i0:i1, j0:j1]; j0 is a multiple of nr.
func (pl *plan) task(s *scratch, b, i0, i1, j0, j1 int) {
	p, ks := pl.p, pl.ks
	w := ks.width
	nPad := ceilDiv(p.N, w) * w
	cBase := b * p.M * p.N

	if pl.noPack {
		pl.taskNoPack(s, b, i0, i1, j0, j1)
		return
	}
	if pl.fewRows {
		pl.taskFewRows(s, b, i0, i1, j0, j1)
		return
	}
	if pl.narrowPanels {
		pl.taskNarrowPanels(s, b, i0, i1, j0, j1)
		return
	}
	var bp []float32
	if pl.sharedB == nil {
		s.b = growFloats(s.b, pl.packedBLen())
		pl.packB(s.b, b)
		bp = s.b
	}
	aBase := b * p.ABatchStride
	for pc := 0; pc < p.K; pc += kc {
		kcb := min(kc, p.K-pc)
		if pl.sharedB != nil {
			bp = pl.sharedBlock(b, pc/kc)
		}
		bBlock := pc * nPad // packed blocks before this one hold kc*nPad each
		for ic := i0; ic < i1; ic += mc {
			mcb := min(mc, i1-ic)
			aStart := aBase + ic*p.ARowStride + pc*p.AColStride
			if !pl.directA {
				s.a = growFloats(s.a, mcb*kcb)
				packA(s.a, p.A, aStart, p.ARowStride, p.AColStride, mcb, kcb, ks.maxMR)
			}
			for jr := j0; jr < j1; jr += pl.nr {
				ncols := min(pl.nr, j1-jr)
				nv := ceilDiv(ncols, w)
				bOff := bBlock + kcb*jr // panels before jr are nr wide
				for ir := 0; ir < mcb; ir += ks.maxMR {
					mr := min(ks.maxMR, mcb-ir)
					a, aOff, lda := s.a, ir*kcb, -1
					if pl.directA {
						a, aOff, lda = p.A, aStart+ir*p.ARowStride, p.ARowStride
					}
					pl.tile(s, mr, nv, ncols, kcb, a, aOff, lda, bp, bOff, nv*w,
						cBase+(ic+ir)*p.N+jr, pc > 0)
				}
			}
		}
	}
}

// taskNoPack handles few rows with B's rows contiguous: full-width panels
// read B in place (ldb = BRowStride); only a ragged last panel is packed
// (zero-padded) so the kernels never read past B's columns. Depth is still
// blocked by kc, which keeps the summation order (and rounding) the same
// kind as the packed path's: per-block partial sums added in block order.
func (pl *plan) taskNoPack(s *scratch, b, i0, i1, j0, j1 int) {
	p, ks := pl.p, pl.ks
	w := ks.width
	cBase := b * p.M * p.N
	aBase := b * p.ABatchStride
	bBase := b * p.BBatchStride
	mrows := i1 - i0
	if pl.stream {
		j0 = pl.streamColumns(b, i0, i1, j0, j1)
	}
	for pc := 0; pc < p.K; pc += kc {
		kcb := min(kc, p.K-pc)
		aStart := aBase + i0*p.ARowStride + pc*p.AColStride
		if !pl.directA {
			s.a = growFloats(s.a, mrows*kcb)
			packA(s.a, p.A, aStart, p.ARowStride, p.AColStride, mrows, kcb, ks.maxMR)
		}
		bRows := bBase + pc*p.BRowStride
		for jr := j0; jr < j1; jr += pl.nr {
			ncols := min(pl.nr, j1-jr)
			nv := ceilDiv(ncols, w)
			bsrc, bOff, ldb := p.B, bRows+jr, p.BRowStride
			if ncols != nv*w {
				s.b = growFloats(s.b, kcb*nv*w)
				packBPanel(s.b, p.B, bRows+jr*p.BColStride, p.BRowStride, p.BColStride, kcb, ncols, nv*w)
				bsrc, bOff, ldb = s.b, 0, nv*w
			}
			for ir := 0; ir < mrows; ir += ks.maxMR {
				mr := min(ks.maxMR, mrows-ir)
				a, aOff, lda := s.a, ir*kcb, -1
				if pl.directA {
					a, aOff, lda = p.A, aStart+ir*p.ARowStride, p.ARowStride
				}
				pl.tile(s, mr, nv, ncols, kcb, a, aOff, lda, bsrc, bOff, ldb, cBase+(i0+ir)*p.N+jr, pc > 0)
			}
		}
	}
}

// streamColumns computes C[b, i0:i1, j0:j'] for the widest j' <= j1 the
// stream kernels cover in whole tiles and returns j', where the ordinary
// panels take over. With so few rows every B element is used at most
// streamMaxMR times, so the product runs at the speed B is read: a panel
// kernel reads a short piece of each of B's K rows per tile (K strided
// streams, about 11 GB/s for attention's keys while decoding), while here
// streamSteps rows are read side by side across the whole width and C, a
// few KiB, is read and written back between passes from L1. Each element
// still sums p = 0..K-1 in order from zero (K <= kc), so the bits are the
// panel kernels'.
func (pl *plan) streamColumns(b, i0, i1, j0, j1 int) int {
	p, ks := pl.p, pl.ks
	mr := i1 - i0
	cols := ks.streamCols(mr)
	tiles := (j1 - j0) / cols
	if tiles == 0 {
		return j0
	}
	aStart := b*p.ABatchStride + i0*p.ARowStride
	bStart := b*p.BBatchStride + j0
	cStart := b*p.M*p.N + i0*p.N + j0
	for pc := 0; pc < p.K; pc += streamSteps {
		steps := min(streamSteps, p.K-pc)
		ks.stream(mr, steps, p.A, aStart+pc, p.ARowStride, p.B, bStart+pc*p.BRowStride, p.BRowStride,
			p.C, cStart, p.N, tiles, pc > 0)
	}
	return j0 + tiles*cols
}

// tile runs one kernel call for an mr x ncols block of C at cOff, through a
// scratch tile when ncols is not a whole number of vectors (the kernels
// always store whole vectors). lda < 0 means a holds a packed panel at aOff;
// otherwise A is read in place, row i at aOff + i*lda.
func (pl *plan) tile(s *scratch, mr, nv, ncols, k int, a []float32, aOff, lda int, b []float32, bOff, ldb, cOff int, accum bool) {
	ks, n := pl.ks, pl.p.N
	full := nv * ks.width
	run := func(c []float32, cOff, ldc int, accum bool) {
		if lda < 0 {
			ks.run(mr, nv, k, a, aOff, b, bOff, ldb, c, cOff, ldc, accum)
		} else {
			ks.runDirect(mr, nv, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accum)
		}
	}
	if ncols == full {
		run(pl.p.C, cOff, n, accum)
		return
	}
	s.tile = growFloats(s.tile, mr*full)
	run(s.tile, 0, full, false)
	c := pl.p.C
	for i := range mr {
		dst := c[cOff+i*n : cOff+i*n+ncols]
		src := s.tile[i*full : i*full+ncols]
		if accum {
			// Same order as the kernels' accum: old C plus this block's sum.
			for j := range dst {
				dst[j] += src[j]
			}
		} else {
			copy(dst, src)
		}
	}
}

// packB packs batch item b's B for every kc block: block pc holds panels of
// nr columns (the last one narrower, rounded up to whole vectors), each
// kcb rows of its width.
func (pl *plan) packB(dst []float32, b int) {
	for pc := 0; pc < pl.p.K; pc += kc {
		pl.packPanels(dst, b, pc, 0, pl.p.N)
	}
}

// packPanels packs the panels of columns [j0, j1) (j0 a multiple of nr)
// of batch item b's kc block starting at row pc into dst, laid out as
// packB's.
func (pl *plan) packPanels(dst []float32, b, pc, j0, j1 int) {
	p := pl.p
	w := pl.ks.width
	nPad := ceilDiv(p.N, w) * w
	kcb := min(kc, p.K-pc)
	block := dst[pc*nPad : pc*nPad+kcb*nPad]
	for jr := j0; jr < j1; jr += pl.nr {
		ncols := min(pl.nr, p.N-jr)
		width := ceilDiv(ncols, w) * w
		packBPanel(block[kcb*jr:kcb*jr+kcb*width], p.B, b*p.BBatchStride+pc*p.BRowStride+jr*p.BColStride,
			p.BRowStride, p.BColStride, kcb, ncols, width)
	}
}

// packBPanel writes dst[p*width + j] = src[off + p*rs + j*cs] for p < k and
// j < ncols, and zeros for ncols <= j < width.
func packBPanel(dst, src []float32, off, rs, cs, k, ncols, width int) {
	dst = dst[:k*width]
	switch {
	case cs == 1 && ncols == 32 && width == 32:
		// A full AVX-512 panel: 128-byte rows moved as arrays (a copy call
		// per row cost more than the move).
		for p := range k {
			*(*[32]float32)(dst[p*32:]) = *(*[32]float32)(src[off+p*rs:])
		}
	case cs == 1 && ncols == 16 && width == 16:
		for p := range k {
			*(*[16]float32)(dst[p*16:]) = *(*[16]float32)(src[off+p*rs:])
		}
	case cs == 1:
		for p := range k {
			row := dst[p*width : (p+1)*width]
			copy(row, src[off+p*rs:off+p*rs+ncols])
			clear(row[ncols:])
		}
	case rs == 1:
		// Columns are contiguous: transposed by AVX blocks.
		packTransposedPanel(dst, src, off, cs, k, ncols, width)
	default:
		for p := range k {
			row := dst[p*width : (p+1)*width]
			for j := range ncols {
				row[j] = src[off+p*rs+j*cs]
			}
			clear(row[ncols:])
		}
	}
}

// packA packs rows 0..m-1 (of A at off, row stride rs, column stride cs)
// for k steps into panels of maxMR rows: panel r0 starts at r0*k and holds
// dst[r0*k + p*mr + i] = A[r0+i, p], mr being the panel's row count.
//
// Packing moves as many elements as a tile multiplies rows, which for
// weight gradients (A transposed, N a few hundred) was half the kernels'
// time in a train step: full panels of the two tile heights (12 for
// AVX-512, 6 for AVX2) are moved a step of mr values at a time, by AVX
// moves when A's columns are contiguous (pack_amd64.s) and through
// fixed-size arrays, without bounds checks, when its rows are.
func packA(dst, src []float32, off, rs, cs, m, k, maxMR int) {
	for r0 := 0; r0 < m; r0 += maxMR {
		mr := min(maxMR, m-r0)
		panel := dst[r0*k : r0*k+mr*k]
		base := off + r0*rs
		switch {
		case rs == 1 && packColumns(panel, src, base, cs, k, mr):
			// moved by AVX (pack_amd64.s)
		case cs == 1 && mr == 12:
			packRows12(panel, src, base, rs, k)
		case cs == 1 && mr == 6:
			packRows6(panel, src, base, rs, k)
		case cs == 1:
			for i := range mr {
				row := src[base+i*rs : base+i*rs+k]
				for p, v := range row {
					panel[p*mr+i] = v
				}
			}
		case rs == 1:
			for p := range k {
				copy(panel[p*mr:p*mr+mr], src[base+p*cs:base+p*cs+mr])
			}
		default:
			for p := range k {
				for i := range mr {
					panel[p*mr+i] = src[base+i*rs+p*cs]
				}
			}
		}
	}
}

// packRows12 is packA for one panel of 12 rows of a row-major A: each
// step's 12 values are gathered from the rows into one array.
func packRows12(panel, src []float32, base, rs, k int) {
	r0 := src[base : base+k]
	r1, r2, r3, r4, r5 := src[base+rs:][:len(r0)], src[base+2*rs:][:len(r0)], src[base+3*rs:][:len(r0)], src[base+4*rs:][:len(r0)], src[base+5*rs:][:len(r0)]
	r6, r7, r8, r9, r10, r11 := src[base+6*rs:][:len(r0)], src[base+7*rs:][:len(r0)], src[base+8*rs:][:len(r0)], src[base+9*rs:][:len(r0)], src[base+10*rs:][:len(r0)], src[base+11*rs:][:len(r0)]
	panel = panel[:12*len(r0)]
	for p := range r0 {
		d := (*[12]float32)(panel[p*12:])
		d[0], d[1], d[2], d[3], d[4], d[5] = r0[p], r1[p], r2[p], r3[p], r4[p], r5[p]
		d[6], d[7], d[8], d[9], d[10], d[11] = r6[p], r7[p], r8[p], r9[p], r10[p], r11[p]
	}
}

// packRows6 is packRows12 for panels of 6 rows.
func packRows6(panel, src []float32, base, rs, k int) {
	r0 := src[base : base+k]
	r1, r2, r3, r4, r5 := src[base+rs:][:len(r0)], src[base+2*rs:][:len(r0)], src[base+3*rs:][:len(r0)], src[base+4*rs:][:len(r0)], src[base+5*rs:][:len(r0)]
	panel = panel[:6*len(r0)]
	for p := range r0 {
		d := (*[6]float32)(panel[p*6:])
		d[0], d[1], d[2], d[3], d[4], d[5] = r0[p], r1[p], r2[p], r3[p], r4[p], r5[p]
	}
}

// scratch holds one worker's packing buffers, reused through a pool so
// steady-state calls do not allocate.
type scratch struct {
	a, b, tile []float32
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch  { return scratchPool.Get().(*scratch) }
func putScratch(s *scratch) { scratchPool.Put(s) }

func growFloats(buf []float32, n int) []float32 {
	if cap(buf) < n {
		return make([]float32, n)
	}
	return buf[:n]
}

var floatsPool sync.Pool

func getFloats(n int) []float32 {
	if v, ok := floatsPool.Get().(*[]float32); ok && cap(*v) >= n {
		return (*v)[:n]
	}
	return make([]float32, n)
}

func putFloats(buf []float32) { floatsPool.Put(&buf) }
