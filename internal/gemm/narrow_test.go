package gemm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/org/agentevolver/internal/parallel"
)

// narrowed replaces p's float32 B by the int8 values or bfloat16 bit
// patterns nearest to it and returns the float32 B they convert to: the
// operand the narrow product must equal.
func narrowed(rng *rand.Rand, p *Params, kind string) []float32 {
	wide := make([]float32, len(p.B))
	switch kind {
	case "int8":
		q := make([]int8, len(p.B))
		for i := range q {
			q[i] = int8(rng.IntN(256) - 128)
			wide[i] = float32(q[i])
		}
		p.BInt8 = q
	case "bfloat16":
		h := make([]uint16, len(p.B))
		for i, v := range p.B {
			h[i] = uint16(math.Float32bits(v) >> 16)
			wide[i] = math.Float32frombits(uint32(h[i]) << 16)
		}
		p.BBFloat16 = h
	}
	p.B = nil
	return wide
}

// TestNarrowBMatchesWide checks that a product with B stored as int8 or
// bfloat16 gives bit for bit the product with the float32 numbers they
// convert to, for every ISA: on the few-rows path (a tile's rows at most,
// B stored transposed, converted as its panels are transposed, with
// ragged panels and 8x8 blocks), on taskNarrowPanels (B's rows
// contiguous, any number of rows, ragged panels, depths over kc) and on
// the others (B converted first).
func TestNarrowBMatchesWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, isa := range Supported() {
		for _, kind := range []string{"int8", "bfloat16"} {
			maxMR := mustKernels(isa).maxMR
			for _, s := range [][4]int{
				{1, 32, 17, int(colMajor)}, {1, 130, 300, int(colMajor)}, {maxMR, 833, 128, int(colMajor)},
				{1, 32, 17, int(rowMajor)}, {1, 700, 300, int(rowMajor)}, {maxMR + 3, 45, 260, int(rowMajor)}, {200, 70, 513, int(rowMajor)}, {2, 13, 9, int(rowMajor)},
				{2, 64, 9, int(colMajor)}, {maxMR + 1, 96, 40, int(colMajor)}, {3, 50, 70, int(rowMajor)},
				{40, 20, 33, int(colMajor)}, {1, 5, 16, int(colMajor)},
			} {
				m, n, k, lb := s[0], s[1], s[2], layout(s[3])
				name := fmt.Sprintf("%s %s %dx%dx%d B=%s", isa, kind, m, n, k, lb)
				p := makeParams(rng, 2, m, n, k, rowMajor, lb)
				p.ISA = isa
				p.MaxWorkers, p.Team = 2, &parallel.Team{Size: 2}
				want := *p
				want.B = narrowed(rng, p, kind)
				want.C = make([]float32, len(p.C))
				if err := Multiply(&want); err != nil {
					t.Fatal(err)
				}
				if err := Multiply(p); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !slices.Equal(p.C, want.C) {
					t.Fatalf("%s: differs from the float32 product of the converted B", name)
				}
			}
		}
	}
}

// paneled stores p's narrow B (any strides) in panels of w columns, as
// Params.BPanelWidth describes.
func paneled(p *Params, w int) {
	panels := (p.N + w - 1) / w
	at := func(b, q, j int) int { return b*p.BBatchStride + q*p.BRowStride + j*p.BColStride }
	to := func(b, q, j int) int { return b*panels*p.K*w + (j/w)*p.K*w + q*w + j%w }
	n := p.Batch * panels * p.K * w
	if p.BInt8 != nil {
		out := make([]int8, n)
		for b := range p.Batch {
			for q := range p.K {
				for j := range p.N {
					out[to(b, q, j)] = p.BInt8[at(b, q, j)]
				}
			}
		}
		p.BInt8 = out
	} else {
		out := make([]uint16, n)
		for b := range p.Batch {
			for q := range p.K {
				for j := range p.N {
					out[to(b, q, j)] = p.BBFloat16[at(b, q, j)]
				}
			}
		}
		p.BBFloat16 = out
	}
	p.BBatchStride, p.BRowStride, p.BColStride = panels*p.K*w, w, 1
	p.BPanelWidth, p.BPanelStride = w, p.K*w
}

// TestNarrowPanelsMatchWide checks that B stored in panels of columns
// (Params.BPanelWidth) gives bit for bit the float32 product of the
// converted B, for every ISA: one row (the fused kernels) and several,
// panels of 32 and 64 columns, a ragged last panel, depths over kc.
func TestNarrowPanelsMatchWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	for _, isa := range Supported() {
		for _, kind := range []string{"int8", "bfloat16"} {
			for _, s := range [][4]int{{1, 128, 300, 32}, {1, 96, 40, 64}, {1, 70, 17, 32}, {5, 64, 260, 32}, {40, 100, 33, 64}} {
				m, n, k, w := s[0], s[1], s[2], s[3]
				name := fmt.Sprintf("%s %s %dx%dx%d panels of %d", isa, kind, m, n, k, w)
				p := makeParams(rng, 2, m, n, k, rowMajor, rowMajor)
				p.ISA = isa
				p.MaxWorkers, p.Team = 2, &parallel.Team{Size: 2}
				want := *p
				want.B = narrowed(rng, p, kind)
				want.C = make([]float32, len(p.C))
				if err := Multiply(&want); err != nil {
					t.Fatal(err)
				}
				paneled(p, w)
				if err := Multiply(p); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !slices.Equal(p.C, want.C) {
					t.Fatalf("%s: differs from the float32 product of the converted B", name)
				}
			}
		}
	}
	bad := &Params{Batch: 1, M: 1, N: 32, K: 2, A: make([]float32, 2), C: make([]float32, 32),
		BRowStride: 16, BColStride: 1, BInt8: make([]int8, 64), BPanelWidth: 16, BPanelStride: 32}
	if err := Multiply(bad); !errors.Is(err, ErrInvalid) {
		t.Errorf("panels of 16 columns: %v, want ErrInvalid", err)
	}
}

// TestNarrowBInvalid checks that a B given twice, or too short in its
// narrow type, is refused with ErrInvalid.
func TestNarrowBInvalid(t *testing.T) {
	p := &Params{Batch: 1, M: 1, N: 4, K: 4, A: make([]float32, 4), C: make([]float32, 4),
		BRowStride: 1, BColStride: 4, BInt8: make([]int8, 16), BBFloat16: make([]uint16, 16)}
	if err := Multiply(p); !errors.Is(err, ErrInvalid) {
		t.Fatalf("B given twice: %v, want ErrInvalid", err)
	}
	p.BBFloat16 = nil
	p.BInt8 = make([]int8, 15)
	if err := Multiply(p); !errors.Is(err, ErrInvalid) {
		t.Fatalf("BInt8 too short: %v, want ErrInvalid", err)
	}
}

// BenchmarkNarrowFewRows measures single-stream decode products x·W in
// one run, W in float32 stored [out, in] (the model's layout) and in
// bfloat16 and int8 stored [out, in] (converted while transposed), [in,
// out] (converted by rows) and in panels of 32 columns (the sampler's
// layout); the weights (several
// copies, 48 MB or more of float32) come from memory as in a decode step.
// GB/s counts the bytes of W read.
func BenchmarkNarrowFewRows(b *testing.B) {
	for _, s := range [][3]int{{1, 4864, 896}, {1, 896, 4864}, {1, 32768, 896}, {1, 384, 128}, {12, 4864, 896}} {
		m, n, k := s[0], s[1], s[2]
		copies := 1
		if k > 128 {
			copies = max(1, (48<<20)/(4*n*k))
		}
		for _, kind := range []string{"float32", "bfloat16", "int8", "bfloat16-rows", "int8-rows", "bfloat16-panels", "int8-panels"} {
			rng := rand.New(rand.NewPCG(23, 24))
			ps := make([]*Params, copies)
			layoutB := colMajor
			if !strings.HasSuffix(kind, "float32") && strings.Contains(kind, "-") {
				layoutB = rowMajor
			}
			narrowKind, _, _ := strings.Cut(kind, "-")
			for i := range ps {
				ps[i] = makeParams(rng, 1, m, n, k, rowMajor, layoutB)
				ps[i].MaxWorkers, ps[i].Team = 2, &parallel.Team{Size: 2}
				if narrowKind != "float32" {
					narrowed(rng, ps[i], narrowKind)
				}
				if strings.HasSuffix(kind, "-panels") {
					paneled(ps[i], PanelWidth)
				}
			}
			bytes := map[string]int{"float32": 4, "bfloat16": 2, "int8": 1}[narrowKind]
			b.Run(fmt.Sprintf("%dx%dx%d/%s", m, n, k, kind), func(b *testing.B) {
				i := 0
				for b.Loop() {
					if err := Multiply(ps[i%copies]); err != nil {
						b.Fatal(err)
					}
					i++
				}
				b.ReportMetric(float64(bytes*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e3, "µs/op")
			})
		}
	}
}
