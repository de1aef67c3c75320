package gobackend

// ewBroadcast reads a source broadcast to an elementwise region's shape,
// block by block (gofast change, fuse_elementwise.go). Its axes are the
// region's, with axes of size 1 dropped and neighbours merged where the
// source is laid out alike, so that the innermost axis holds the longest
// runs: a [B,T,1] scale against [B,T,D] is runs of D copies of one value,
// a [1,1,D] weight runs of D values.
type ewBroadcast struct {
	dims    []int // the region's dimensions, collapsed
	strides []int // the source's stride along each of dims; 0 repeats
}

// newEWBroadcast describes a source of dimensions src (the region's rank,
// each axis equal to the region's or 1) broadcast to dims.
func newEWBroadcast(src, dims []int) *ewBroadcast {
	// Row-major strides of the source, 0 along its broadcast axes.
	strides := make([]int, len(src))
	s := 1
	for a := len(src) - 1; a >= 0; a-- {
		if src[a] != 1 {
			strides[a] = s
		}
		s *= src[a]
	}
	bc := &ewBroadcast{}
	for a, d := range dims {
		if d == 1 {
			continue
		}
		if last := len(bc.dims) - 1; last >= 0 && bc.strides[last] == strides[a]*d {
			// The previous axis steps over this one whole: one axis.
			bc.dims[last] *= d
			bc.strides[last] = strides[a]
			continue
		}
		bc.dims = append(bc.dims, d)
		bc.strides = append(bc.strides, strides[a])
	}
	if len(bc.dims) == 0 { // a region of one element; ewFusable excludes it
		bc.dims, bc.strides = []int{1}, []int{0}
	}
	return bc
}

// maxEWRank bounds the collapsed rank whose index fill keeps on the stack.
const maxEWRank = 8

// fill sets dst to the region's elements b, b+1, ... of the broadcast src.
func (bc *ewBroadcast) fill(dst, src []float32, b int) {
	r := len(bc.dims)
	var idxStack [maxEWRank]int
	idx := idxStack[:0]
	if r > maxEWRank {
		idx = make([]int, r)
	}
	idx = idx[:r]
	off, rem := 0, b
	for a := r - 1; a >= 0; a-- {
		idx[a] = rem % bc.dims[a]
		rem /= bc.dims[a]
		off += idx[a] * bc.strides[a]
	}
	// The innermost axis is one the source has (stride 1: every later axis
	// of the region has size 1, so of the source too) or broadcasts (0).
	inner, step := bc.dims[r-1], bc.strides[r-1]
	for pos := 0; pos < len(dst); {
		run := dst[pos:min(len(dst), pos+inner-idx[r-1])]
		if step == 0 {
			// One value: the first 16 stored, then doubled by copies
			// (memmove). Filling 1024 elements in runs of 32, 256 and 4096
			// took 288, 87 and 53 ns so, against 337, 195 and 151 stored one
			// at a time (and 513, 110, 59 doubled from the first).
			v := src[off]
			head := run[:min(16, len(run))]
			for i := range head {
				head[i] = v
			}
			for k := len(head); k < len(run); k *= 2 {
				copy(run[k:], run[:k])
			}
		} else {
			copy(run, src[off:off+len(run)])
		}
		pos += len(run)
		idx[r-1] += len(run)
		off += len(run) * step
		for a := r - 1; a > 0 && idx[a] == bc.dims[a]; a-- {
			off -= idx[a] * bc.strides[a]
			idx[a] = 0
			idx[a-1]++
			off += bc.strides[a-1]
		}
	}
}
