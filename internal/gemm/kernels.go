package gemm

import "fmt"

// ISA selects a micro-kernel implementation.
type ISA int

const (
	// Auto picks the best ISA the machine supports.
	Auto ISA = iota
	// Generic is the portable pure-Go kernel, available everywhere.
	Generic
	// AVX2 is the AVX2+FMA assembly kernel (amd64 only).
	AVX2
	// AVX512 is the AVX-512F assembly kernel (amd64 only).
	AVX512
)

// String returns the ISA's name.
func (i ISA) String() string {
	switch i {
	case Auto:
		return "auto"
	case Generic:
		return "generic"
	case AVX2:
		return "avx2"
	case AVX512:
		return "avx512"
	}
	return fmt.Sprintf("ISA(%d)", int(i))
}

// Supported lists the ISAs this machine can run, best first; Generic is
// always last.
func Supported() []ISA {
	var out []ISA
	if hasAVX512 {
		out = append(out, AVX512)
	}
	if hasAVX2 {
		out = append(out, AVX2)
	}
	return append(out, Generic)
}

// Best returns the ISA that Auto selects on this machine.
func Best() ISA { return Supported()[0] }

// kernelSet describes one ISA's micro-kernels. A kernel computes a tile of
// mr rows (1..maxMR) by nv*width columns (nv in 1..maxNV) from a packed A
// panel (k steps of mr values) and B rows (k steps of nv*width values, ldb
// apart), and stores it into C (rows ldc apart), adding C's old values when
// accum is set.
type kernelSet struct {
	isa   ISA
	maxMR int
	width int
	maxNV int
	// run computes one tile; the caller guarantees the offsets are in range
	// (checked again by checkTile before any assembly runs).
	run func(mr, nv, k int, a []float32, aOff int, b []float32, bOff, ldb int, c []float32, cOff, ldc int, accum bool)
	// runDirect is run with A read in place (row i at aOff + i*lda); nil
	// when the ISA has no such kernels.
	runDirect func(mr, nv, k int, a []float32, aOff, lda int, b []float32, bOff, ldb int, c []float32, cOff, ldc int, accum bool)
	// stream runs k steps of an mr-row product (mr <= streamMaxMR, A read
	// in place) over tiles consecutive tiles of streamCols(mr) columns,
	// starting from C's values when cont is set and from zero otherwise;
	// nil when the ISA has no stream kernels.
	stream     func(mr, k int, a []float32, aOff, lda int, b []float32, bOff, ldb int, c []float32, cOff, ldc, tiles int, cont bool)
	streamCols func(mr int) int
}

// nr is the widest tile in columns.
func (ks *kernelSet) nr() int { return ks.width * ks.maxNV }

// checkTile panics (recovered by Multiply into an error) when a kernel call
// would touch memory outside its slices: the assembly kernels do no bounds
// checks of their own.
func checkTile(mr, ncols, k int, a []float32, aOff int, b []float32, bOff, ldb int, c []float32, cOff, ldc int) {
	if aOff < 0 || aOff+k*mr > len(a) {
		panic(fmt.Errorf("gemm: internal error: packed A panel %dx%d at %d out of range (len %d)", mr, k, aOff, len(a)))
	}
	checkBC(mr, ncols, k, b, bOff, ldb, c, cOff, ldc)
}

// checkBC is checkTile's test of the B rows and the C tile.
func checkBC(mr, ncols, k int, b []float32, bOff, ldb int, c []float32, cOff, ldc int) {
	if bOff < 0 || cOff < 0 || (k > 0 && bOff+(k-1)*ldb+ncols > len(b)) || cOff+(mr-1)*ldc+ncols > len(c) {
		panic(fmt.Errorf("gemm: internal error: tile %dx%d k=%d out of range (b %d+%d*%d of %d, c %d+%d*%d of %d)",
			mr, ncols, k, bOff, k, ldb, len(b), cOff, mr, ldc, len(c)))
	}
}

// checkDirectA is checkTile's test of an unpacked A block.
func checkDirectA(mr, k int, a []float32, aOff, lda int) {
	if aOff < 0 || lda < 0 || aOff+(mr-1)*lda+k > len(a) {
		panic(fmt.Errorf("gemm: internal error: direct A block %dx%d at %d (lda %d) out of range (len %d)", mr, k, aOff, lda, len(a)))
	}
}

// genericMR and genericWidth size the pure-Go kernel's tile: 4x8 keeps its
// 32 accumulators in a small array the compiler can hold in registers or L1.
const (
	genericMR    = 4
	genericWidth = 8
)

var genericKernels = &kernelSet{
	isa:   Generic,
	maxMR: genericMR,
	width: genericWidth,
	maxNV: 1,
	run:   genericKernel,
}

// genericKernel is the portable micro-kernel. Each output element is
// accumulated over p in increasing order, like the assembly kernels.
func genericKernel(mr, nv, k int, a []float32, aOff int, b []float32, bOff, ldb int, c []float32, cOff, ldc int, accum bool) {
	const w = genericWidth
	checkTile(mr, nv*w, k, a, aOff, b, bOff, ldb, c, cOff, ldc)
	var acc [genericMR][w]float32
	for p := range k {
		brow := (*[w]float32)(b[bOff+p*ldb : bOff+p*ldb+w])
		arow := a[aOff+p*mr : aOff+p*mr+mr]
		for i, av := range arow {
			row := &acc[i]
			for j := range w {
				row[j] += av * brow[j]
			}
		}
	}
	for i := range mr {
		crow := (*[w]float32)(c[cOff+i*ldc : cOff+i*ldc+w])
		if accum {
			for j := range w {
				crow[j] += acc[i][j]
			}
		} else {
			*crow = acc[i]
		}
	}
}

// kernelsFor returns the kernel set for isa, or an error when this machine
// cannot run it.
func kernelsFor(isa ISA) (*kernelSet, error) {
	if isa == Auto {
		isa = Best()
	}
	switch isa {
	case Generic:
		return genericKernels, nil
	case AVX2:
		if hasAVX2 {
			return avx2Kernels, nil
		}
	case AVX512:
		if hasAVX512 {
			return avx512Kernels, nil
		}
	}
	return nil, fmt.Errorf("gemm: ISA %s not supported on this machine (supported: %v)", isa, Supported())
}
