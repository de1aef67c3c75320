package gemm

import (
	"errors"
	"fmt"
	"github.com/org/agentevolver/internal/parallel"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// layout says how a test operand is stored.
type layout int

const (
	rowMajor  layout = iota // contiguous rows (column stride 1)
	colMajor                // contiguous columns (row stride 1), i.e. transposed
	padded                  // row-major with a row pitch wider than the row
	strided                 // neither stride 1: every other element
	broadcast               // batch stride 0: one matrix shared by the batch
	numLayouts
)

func (l layout) String() string {
	return [...]string{"rowMajor", "colMajor", "padded", "strided", "broadcast"}[l]
}

// operand builds a random batch of rows x cols matrices stored in layout l and
// returns the backing slice and its strides.
func operand(rng *rand.Rand, batch, rows, cols int, l layout) (data []float32, bs, rs, cs int) {
	switch l {
	case rowMajor:
		rs, cs, bs = cols, 1, rows*cols
	case colMajor:
		rs, cs, bs = 1, rows, rows*cols
	case padded:
		rs, cs, bs = cols+3, 1, rows*(cols+3)+5
	case strided:
		rs, cs, bs = 2*cols, 2, 2*rows*cols
	case broadcast:
		rs, cs, bs = cols, 1, 0
	}
	size := (batch-1)*bs + (rows-1)*rs + (cols-1)*cs + 1
	data = make([]float32, size)
	for i := range data {
		// NaN fill makes any read of an element outside the view visible.
		data[i] = float32(math.NaN())
	}
	for b := range batch {
		for i := range rows {
			for j := range cols {
				data[b*bs+i*rs+j*cs] = float32(rng.NormFloat64())
			}
		}
	}
	return
}

// reference computes the product in float64, plus each element's sum of
// |a|·|b| for an error bound.
func reference(p *Params) (want, mag []float64) {
	want = make([]float64, p.Batch*p.M*p.N)
	mag = make([]float64, len(want))
	for b := range p.Batch {
		for i := range p.M {
			for j := range p.N {
				var s, m float64
				for k := range p.K {
					av := float64(p.A[b*p.ABatchStride+i*p.ARowStride+k*p.AColStride])
					bv := float64(p.B[b*p.BBatchStride+k*p.BRowStride+j*p.BColStride])
					s += av * bv
					m += math.Abs(av * bv)
				}
				want[(b*p.M+i)*p.N+j] = s
				mag[(b*p.M+i)*p.N+j] = m
			}
		}
	}
	return
}

func makeParams(rng *rand.Rand, batch, m, n, k int, la, lb layout) *Params {
	p := &Params{Batch: batch, M: m, N: n, K: k}
	p.A, p.ABatchStride, p.ARowStride, p.AColStride = operand(rng, batch, m, k, la)
	p.B, p.BBatchStride, p.BRowStride, p.BColStride = operand(rng, batch, k, n, lb)
	p.C = make([]float32, batch*m*n)
	for i := range p.C {
		p.C[i] = 12345 // must be overwritten
	}
	return p
}

// check runs p and compares with the float64 reference; the bound is a few
// float32 roundings per term of the sum, relative to sum |a·b|.
func check(t *testing.T, p *Params) {
	t.Helper()
	if err := Multiply(p); err != nil {
		t.Fatalf("Multiply: %v", err)
	}
	want, mag := reference(p)
	tol := float64(p.K+2) * 1.2e-7
	for idx, w := range want {
		got := float64(p.C[idx])
		if math.IsNaN(got) || math.Abs(got-w) > tol*mag[idx]+1e-6 {
			t.Fatalf("batch=%d m=%d n=%d k=%d isa=%s: C[%d]=%g want %g (tol %g)",
				p.Batch, p.M, p.N, p.K, p.ISA, idx, got, w, tol*mag[idx])
		}
	}
}

var oddSizes = []int{1, 3, 17, 31, 33, 65, 127}

func TestMultiplyOddSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, isa := range Supported() {
		t.Run(isa.String(), func(t *testing.T) {
			for _, m := range oddSizes {
				for _, n := range oddSizes {
					k := oddSizes[rng.IntN(len(oddSizes))]
					p := makeParams(rng, 1, m, n, k, rowMajor, rowMajor)
					p.ISA = isa
					check(t, p)
				}
			}
		})
	}
}

// TestMultiplyLayouts covers the layouts DotGeneral produces (either operand
// transposed, batched, broadcast) and sizes that cross the kc/mc blocking and
// the no-pack threshold.
func TestMultiplyLayouts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	shapes := [][4]int{ // batch, m, n, k
		{1, 1, 1, 1}, {2, 5, 7, 3}, {3, 16, 33, 17}, {1, 17, 48, 9},
		{2, 33, 65, 257}, {1, 130, 40, 300}, {4, 12, 32, 64}, {1, 200, 17, 513},
		{3, 1, 200, 32}, {2, 16, 300, 40}, {1, 7, 70, 600}, {1, 128, 70, 300},
	}
	team := &parallel.Team{Size: 4}
	for _, isa := range Supported() {
		for la := range numLayouts {
			for lb := range numLayouts {
				for _, s := range shapes {
					if s[1]*s[2]*s[3] > 1<<20 && (la > padded || lb > padded) {
						continue // keeps -race runs short; the big shapes run with the main layouts
					}
					name := fmt.Sprintf("%s/A=%s/B=%s/%v", isa, la, lb, s)
					p := makeParams(rng, s[0], s[1], s[2], s[3], la, lb)
					p.ISA = isa
					p.MaxWorkers = 1 + rng.IntN(4)
					if rng.IntN(2) == 0 {
						p.Team = team // helpers that stay awake instead of goroutines per product
					}
					t.Run(name, func(t *testing.T) { check(t, p) })
				}
			}
		}
	}
}

// TestMultiplyDeterministic checks that the worker count and the ISA's tile
// shape choice do not change any bit of the result for a given ISA. With
// fewer batch items than workers the tasks pack B together, a piece at a
// time (the two-item shape has more tasks than 3 workers).
func TestMultiplyDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range [][4]int{{1, 301, 97, 520}, {3, 64, 200, 40}, {1, 8, 1000, 300}, {2, 97, 333, 600}} {
		for _, isa := range Supported() {
			p := makeParams(rng, s[0], s[1], s[2], s[3], rowMajor, colMajor)
			p.ISA = isa
			var results [][]float32
			for _, setting := range []struct {
				workers int
				team    *parallel.Team
			}{{1, nil}, {2, nil}, {3, nil}, {8, nil}, {2, &parallel.Team{Size: 2}}, {8, &parallel.Team{Size: 8}}} {
				p.MaxWorkers, p.Team = setting.workers, setting.team
				clear(p.C)
				if err := Multiply(p); err != nil {
					t.Fatal(err)
				}
				results = append(results, slices.Clone(p.C))
			}
			for i := 1; i < len(results); i++ {
				if !slices.Equal(results[0], results[i]) {
					t.Fatalf("%v %s: result with worker setting #%d differs from 1 worker", s, isa, i)
				}
			}
		}
	}
}

func TestMultiplyInvalid(t *testing.T) {
	good := func() *Params {
		return &Params{Batch: 1, M: 2, N: 2, K: 2, A: make([]float32, 4), ARowStride: 2, AColStride: 1,
			B: make([]float32, 4), BRowStride: 2, BColStride: 1, C: make([]float32, 4)}
	}
	if err := Multiply(good()); err != nil {
		t.Fatalf("valid params: %v", err)
	}
	for name, mod := range map[string]func(*Params){
		"short A":  func(p *Params) { p.A = p.A[:3] },
		"short B":  func(p *Params) { p.B = p.B[:3] },
		"short C":  func(p *Params) { p.C = p.C[:3] },
		"negative": func(p *Params) { p.M = -1 },
		"stride":   func(p *Params) { p.AColStride = -1 },
	} {
		p := good()
		mod(p)
		if err := Multiply(p); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: got %v, want ErrInvalid", name, err)
		}
	}
	p := good()
	p.ISA = ISA(99)
	if err := Multiply(p); err == nil {
		t.Error("unknown ISA accepted")
	}
}

func TestMultiplyZeroK(t *testing.T) {
	p := &Params{Batch: 2, M: 3, N: 4, C: make([]float32, 24)}
	for i := range p.C {
		p.C[i] = 1
	}
	if err := Multiply(p); err != nil {
		t.Fatal(err)
	}
	for _, v := range p.C {
		if v != 0 {
			t.Fatalf("K=0 must give zeros, got %v", p.C)
		}
	}
}

// FuzzMultiply checks random shapes, layouts and worker counts against the
// reference on every supported ISA.
func FuzzMultiply(f *testing.F) {
	f.Add(uint8(1), uint16(1), uint16(1), uint16(1), uint8(0), uint8(0), uint8(1))
	f.Add(uint8(2), uint16(33), uint16(17), uint16(65), uint8(1), uint8(1), uint8(2))
	f.Add(uint8(1), uint16(13), uint16(300), uint16(257), uint8(0), uint8(3), uint8(4))
	f.Fuzz(func(t *testing.T, batch uint8, m, n, k uint16, la, lb, workers uint8) {
		b, mm, nn, kk := int(batch%4)+1, int(m%300)+1, int(n%300)+1, int(k%600)+1
		rng := rand.New(rand.NewPCG(uint64(m), uint64(n)))
		for _, isa := range Supported() {
			p := makeParams(rng, b, mm, nn, kk, layout(la)%numLayouts, layout(lb)%numLayouts)
			p.ISA = isa
			p.MaxWorkers = int(workers % 8)
			check(t, p)
		}
	})
}

// benchShape reports GFLOP/s for one shape (A row-major, B row-major like a
// weight matrix, or transposed like attention keys).
func benchShape(b *testing.B, batch, m, n, k int, lb layout, isa ISA, workers int, team *parallel.Team) {
	rng := rand.New(rand.NewPCG(7, 8))
	p := makeParams(rng, batch, m, n, k, rowMajor, lb)
	p.ISA, p.MaxWorkers, p.Team = isa, workers, team
	b.ResetTimer()
	for b.Loop() {
		if err := Multiply(p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(2*batch*m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkMultiply(b *testing.B) {
	shapes := []struct {
		name           string
		batch, m, n, k int
		lb             layout
	}{
		{"2048x256x768", 1, 2048, 768, 256, rowMajor},
		{"2048x768x256", 1, 2048, 256, 768, rowMajor},
		{"batch64_256x256x32", 64, 256, 256, 32, colMajor},
		{"batch64_256x32x256", 64, 256, 32, 256, rowMajor},
		{"8x4096x256", 1, 8, 4096, 256, rowMajor},
		{"decode_batch64_1x192x32", 64, 1, 192, 32, colMajor},
		{"decode_rows32_32x768x256", 1, 32, 768, 256, colMajor},
		{"decode_rows32_32x128x128", 1, 32, 128, 128, colMajor},
		{"decode_rows32_32x384x128", 1, 32, 384, 128, colMajor},
		{"decode_rows32_32x128x384", 1, 32, 128, 384, colMajor},
		{"decode_values_24x2x32x384", 24, 2, 32, 384, rowMajor},
		{"decode_rows32_32x4096x256", 1, 32, 4096, 256, colMajor},
		{"decode_rows48_48x768x256", 1, 48, 768, 256, colMajor},
		{"prefill_rows128_128x384x128", 1, 128, 384, 128, colMajor},
		{"prefill_rows128_128x128x128", 1, 128, 128, 128, colMajor},
		{"prefill_rows256_256x384x128", 1, 256, 384, 128, colMajor},
		{"prefill_rows256_256x128x384", 1, 256, 128, 384, colMajor},
		{"prefill_rows512_512x384x128", 1, 512, 384, 128, colMajor},
		{"prefill_rows512_512x833x128", 1, 512, 833, 128, colMajor},
		{"head_rows256_256x833x128", 1, 256, 833, 128, colMajor},
		{"head_rows128_128x833x128", 1, 128, 833, 128, colMajor},
		{"decode_scores_keys_by_token_64x2x512x32", 64, 2, 512, 32, colMajor},
		{"decode_scores_keys_by_dim_64x2x512x32", 64, 2, 512, 32, rowMajor},
		{"decode_values_by_dim_64x2x32x512", 64, 2, 32, 512, colMajor},
		{"decode_values_by_token_64x2x32x512", 64, 2, 32, 512, rowMajor},
	}
	for _, s := range shapes {
		for _, isa := range Supported() {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/%s/w%d", s.name, isa, workers), func(b *testing.B) {
					benchShape(b, s.batch, s.m, s.n, s.k, s.lb, isa, workers, nil)
				})
			}
			b.Run(fmt.Sprintf("%s/%s/team2", s.name, isa), func(b *testing.B) {
				benchShape(b, s.batch, s.m, s.n, s.k, s.lb, isa, 2, &parallel.Team{Size: 2})
			})
		}
	}
}

// packAReference is packA's definition, element by element.
func packAReference(dst, src []float32, off, rs, cs, m, k, maxMR int) {
	for r0 := 0; r0 < m; r0 += maxMR {
		mr := min(maxMR, m-r0)
		for p := range k {
			for i := range mr {
				dst[r0*k+p*mr+i] = src[off+(r0+i)*rs+p*cs]
			}
		}
	}
}

// TestPackA checks packA's fast panels against its definition for both
// tile heights, A row- or column-major or strided both ways, with ragged
// last panels and an offset.
func TestPackA(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, maxMR := range []int{12, 6, 4} {
		for _, tc := range []struct{ m, k, layout int }{{12, 7, 0}, {25, 33, 0}, {12, 5, 1}, {30, 17, 1}, {7, 9, 2}, {24, 256, 0}, {24, 256, 1}} {
			// layout 0: rows contiguous, 1: columns contiguous, 2: neither.
			rs, cs := tc.k+3, 1
			switch tc.layout {
			case 1:
				rs, cs = 1, tc.m+2
			case 2:
				rs, cs = 2*tc.k+1, 2
			}
			off := 5
			src := make([]float32, off+(tc.m-1)*rs+(tc.k-1)*cs+1)
			for i := range src {
				src[i] = float32(rng.NormFloat64())
			}
			got, want := make([]float32, tc.m*tc.k), make([]float32, tc.m*tc.k)
			packA(got, src, off, rs, cs, tc.m, tc.k, maxMR)
			packAReference(want, src, off, rs, cs, tc.m, tc.k, maxMR)
			if !slices.Equal(got, want) {
				t.Errorf("maxMR %d, %d x %d, layout %d: packed differently", maxMR, tc.m, tc.k, tc.layout)
			}
		}
	}
}

func BenchmarkPackA(b *testing.B) {
	const m, k = 96, 256
	for _, tc := range []struct {
		name   string
		rs, cs int
	}{{"rows", 384, 1}, {"columns", 1, 384}} {
		src := make([]float32, 384*384)
		dst := make([]float32, m*k)
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(4 * m * k)
			for b.Loop() {
				packA(dst, src, 0, tc.rs, tc.cs, m, k, 12)
			}
		})
	}
}

// TestPackBPanel checks packBPanel against its definition: full panels of
// both widths (the array moves), ragged ones (zero-padded) and every layout.
func TestPackBPanel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, width := range []int{32, 16} {
		for _, ncols := range []int{width, width - 5, 3} {
			for layout := range 3 {
				const k = 19
				rs, cs := width+7, 1
				switch layout {
				case 1:
					rs, cs = 1, k+2
				case 2:
					rs, cs = 2*width+1, 2
				}
				off := 3
				src := make([]float32, off+(k-1)*rs+(ncols-1)*cs+1)
				for i := range src {
					src[i] = float32(rng.NormFloat64())
				}
				got := make([]float32, k*width)
				for i := range got {
					got[i] = float32(math.NaN()) // padding must be written
				}
				packBPanel(got, src, off, rs, cs, k, ncols, width)
				want := make([]float32, k*width)
				for p := range k {
					for j := range ncols {
						want[p*width+j] = src[off+p*rs+j*cs]
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("width %d, %d columns, layout %d: packed differently", width, ncols, layout)
				}
			}
		}
	}
}

func BenchmarkPackBPanel(b *testing.B) {
	const k, rs = 256, 768
	src := make([]float32, k*rs)
	dst := make([]float32, k*32)
	b.SetBytes(4 * k * 32)
	for b.Loop() {
		packBPanel(dst, src, 0, rs, 1, k, 32, 32)
	}
}

// TestStreamRowsMatchPanels checks that products of at most streamMaxMR
// rows, which stream B's rows (streamColumns), give bit for bit the rows
// the panel kernels give when more rows make the same product ineligible:
// a row's result must not depend on how many rows are beside it (the
// policy's batched decoding relies on it). Widths cover whole stream tiles
// with and without ragged panels after them, depths one to several stream
// passes, and B padded or shared by the batch.
func TestStreamRowsMatchPanels(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, isa := range Supported() {
		for _, lb := range []layout{rowMajor, padded, broadcast} {
			for _, s := range [][3]int{{1, 64, 32}, {2, 512, 32}, {3, 80, 17}, {4, 200, 40}, {2, 16, 5}, {1, 130, 256}, {4, 1000, 100}} {
				m, n, k := s[0], s[1], s[2]
				wide := makeParams(rng, 3, m+streamMaxMR, n, k, rowMajor, lb)
				wide.ISA = isa
				if err := Multiply(wide); err != nil {
					t.Fatal(err)
				}
				if b, i, differ := firstRowsDiffer(t, rng, wide, m); differ {
					t.Fatalf("%s B=%s %dx%dx%d: batch %d row %d differs from the panel kernels'", isa, lb, m, n, k, b, i)
				}
			}
		}
	}
}

// TestSwappedRowsMatchPacked checks that products with B stored transposed
// and at most swapMaxM rows, computed swapped (multiplySwapped), give bit
// for bit the rows the packed path gives when more rows make the same
// product ineligible: a decode step's rows must equal the same rows
// prefilled in a longer pass. Depths cover one and several kc blocks.
func TestSwappedRowsMatchPacked(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, isa := range Supported() {
		for _, s := range [][3]int{{1, 64, 32}, {7, 130, 17}, {32, 384, 128}, {30, 833, 128}, {33, 128, 384}, {swapMaxM, 200, 600}} {
			m, n, k := s[0], s[1], s[2]
			wide := makeParams(rng, 2, swapMaxM+1+m, n, k, rowMajor, colMajor)
			wide.ISA = isa
			if err := Multiply(wide); err != nil {
				t.Fatal(err)
			}
			if b, i, differ := firstRowsDiffer(t, rng, wide, m); differ {
				t.Fatalf("%s %dx%dx%d: batch %d row %d differs from the packed path's", isa, m, n, k, b, i)
			}
		}
	}
}

// TestSwappedWeightGradientMatchesRows checks that wide products of a
// transposed A by a row-major B (weight gradients), computed swapped, give
// bit for bit the rows a product of up to noPackMaxM rows gives, which is
// not swapped. Depths cover one and several kc blocks.
func TestSwappedWeightGradientMatchesRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, isa := range Supported() {
		for _, s := range [][3]int{{noPackMaxM + 1, 130, 17}, {200, 333, 300}, {256, 768, 600}} {
			m, n, k := s[0], s[1], s[2]
			wide := makeParams(rng, 2, m, n, k, colMajor, rowMajor)
			wide.ISA = isa
			if err := Multiply(wide); err != nil {
				t.Fatal(err)
			}
			check(t, wide)
			for _, rows := range []int{1, 13, noPackMaxM} {
				if b, i, differ := firstRowsDiffer(t, rng, wide, rows); differ {
					t.Fatalf("%s %dx%dx%d: batch %d row %d differs from the first %d rows alone", isa, m, n, k, b, i, rows)
				}
			}
		}
	}
}

// firstRowsDiffer multiplies the first m rows of each of wide's batch items
// again on their own (same operands and strides, a random worker count)
// and reports the first batch item and row whose result is not bit for
// bit wide's, which must have been computed already.
func firstRowsDiffer(t *testing.T, rng *rand.Rand, wide *Params, m int) (b, i int, differ bool) {
	t.Helper()
	narrow := *wide
	narrow.M, narrow.MaxWorkers = m, 1+rng.IntN(3)
	narrow.C = make([]float32, wide.Batch*m*wide.N)
	for j := range narrow.C {
		narrow.C[j] = 12345 // must be overwritten
	}
	if err := Multiply(&narrow); err != nil {
		t.Fatal(err)
	}
	n := wide.N
	for b := range wide.Batch {
		for i := range m {
			got := narrow.C[(b*m+i)*n : (b*m+i+1)*n]
			want := wide.C[(b*wide.M+i)*n : (b*wide.M+i+1)*n]
			if !slices.Equal(got, want) {
				return b, i, true
			}
		}
	}
	return 0, 0, false
}

// TestFewRowsMatchPacked checks that products of at most a tile's rows
// with B stored transposed, computed by taskFewRows, agree with the
// float64 reference and give bit for bit the rows the packed path gives
// when more rows make the same product ineligible: a decode step's row
// must equal the same row prefilled in a longer pass. Widths cover whole
// panels with and without a ragged one after them, depths one and several
// kc blocks with and without a ragged 8x8 block, A in place and packed.
func TestFewRowsMatchPacked(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, isa := range Supported() {
		for _, la := range []layout{rowMajor, strided} {
			for _, s := range [][2]int{{32, 17}, {64, 8}, {130, 300}, {833, 128}, {200, 600}, {1000, 96}, {48, 5}} {
				n, k := s[0], s[1]
				maxMR := mustKernels(isa).maxMR
				for _, m := range []int{1, 2, maxMR / 2, maxMR} {
					wide := makeParams(rng, 2, swapMaxM+1+m, n, k, la, colMajor)
					wide.ISA = isa
					if err := Multiply(wide); err != nil {
						t.Fatal(err)
					}
					narrow := makeParams(rng, 2, m, n, k, la, colMajor)
					narrow.ISA = isa
					if ks := mustKernels(isa); !fewRows(narrow, ks) && n >= ks.nr() {
						t.Fatalf("%s %dx%dx%d: not computed by taskFewRows", isa, m, n, k)
					}
					check(t, narrow)
					if b, i, differ := firstRowsDiffer(t, rng, wide, m); differ {
						t.Fatalf("%s A=%s %dx%dx%d: batch %d row %d differs from the packed path's", isa, la, m, n, k, b, i)
					}
				}
			}
		}
	}
}

// BenchmarkFewRows compares, in one run, single-stream decode products
// (x·Wᵀ, W stored [out, in]) computed by taskFewRows and by the swapped
// path it replaced for them. The Qwen2.5-0.5B shapes' weights (cycled
// through several copies, 40+ MB in all) come from memory, as in its
// decode step; the main job's (128 wide) stay in cache, as in its. GB/s
// counts the weight bytes read.
func BenchmarkFewRows(b *testing.B) {
	for _, s := range [][3]int{{1, 896, 896}, {1, 4864, 896}, {1, 896, 4864}, {1, 32768, 896}, {4, 4864, 896}, {6, 4864, 896}, {12, 4864, 896}, {1, 128, 128}, {1, 384, 128}, {1, 128, 384}, {1, 1024, 128}, {12, 384, 128}, {12, 128, 384}, {6, 384, 128}} {
		m, n, k := s[0], s[1], s[2]
		copies := 1
		if k > 128 {
			copies = max(1, (48<<20)/(4*n*k))
		}
		rng := rand.New(rand.NewPCG(15, 16))
		ps := make([]*Params, copies)
		for i := range ps {
			ps[i] = makeParams(rng, 1, m, n, k, rowMajor, colMajor)
			ps[i].MaxWorkers, ps[i].Team = 2, &parallel.Team{Size: 2}
		}
		for _, path := range []string{"fewrows", "swapped"} {
			b.Run(fmt.Sprintf("%dx%dx%d/%s", m, n, k, path), func(b *testing.B) {
				i := 0
				for b.Loop() {
					p := ps[i%copies]
					i++
					var err error
					if path == "fewrows" {
						err = Multiply(p)
					} else {
						err = multiplySwapped(p)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(4*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			})
		}
	}
}

// TestBLayoutsMatch checks that a product gives the same bits whether B
// is stored transposed (a weight [out, in], taskFewRows, swapped or
// packed) or with contiguous rows (its transposed copy [in, out], read in
// place or packed): the model's small-model sampler reads a transposed
// copy of the weights that training and log-probs read as they are, and
// its samples must not depend on which.
func TestBLayoutsMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	for _, isa := range Supported() {
		for _, s := range [][3]int{{1, 384, 128}, {1, 128, 384}, {1, 1024, 128}, {2, 384, 128}, {12, 384, 128}, {32, 384, 128}, {1, 300, 600}, {130, 70, 300}, {300, 40, 20}} {
			m, n, k := s[0], s[1], s[2]
			p := makeParams(rng, 1, m, n, k, rowMajor, colMajor)
			p.ISA = isa
			p.MaxWorkers, p.Team = 2, &parallel.Team{Size: 2}
			q := *p
			q.B = make([]float32, k*n)
			for r := range k {
				for j := range n {
					q.B[r*n+j] = p.B[r*p.BRowStride+j*p.BColStride]
				}
			}
			q.BRowStride, q.BColStride, q.BBatchStride = n, 1, k*n
			q.C = make([]float32, len(p.C))
			if err := Multiply(p); err != nil {
				t.Fatal(err)
			}
			if err := Multiply(&q); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.C, q.C) {
				t.Errorf("%s %dx%dx%d: B [out, in] and [in, out] give different bits", isa, m, n, k)
			}
		}
	}
}
