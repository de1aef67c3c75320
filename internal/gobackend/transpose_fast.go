package gobackend

// gofast change: Transpose as a blocked copy instead of a per-element
// transposeIterator. The permutation is first simplified (size-1 axes
// dropped, operand axes that stay adjacent and in order merged), then:
//   - if the innermost axis stays innermost, every output row is one copy();
//   - otherwise the two axes that are innermost on either side are copied in
//     square tiles, so both the reads and the writes of a tile stay within a
//     few cache lines.
// It only moves values, so the output is identical to upstream's.

// transposeTile is the tile edge (in elements) of the 2-D blocked copy:
// 16x16 float32 reads and writes each touch 16 cache lines.
const transposeTile = 16

// simplifyTranspose returns the merged operand dimensions and the
// permutation over them (output axis i is merged operand axis perm[i]).
func simplifyTranspose(dims, permutations []int) (mDims, mPerm []int) {
	// Output-ordered operand axes without the size-1 ones.
	var outAxes []int
	for _, a := range permutations {
		if dims[a] != 1 {
			outAxes = append(outAxes, a)
		}
	}
	// Group output-consecutive axes that are also operand-consecutive.
	type group struct{ first, size int } // first operand axis, merged size
	var groups []group
	for i, a := range outAxes {
		if i > 0 && outAxes[i-1] < a && allOnesBetween(dims, outAxes[i-1], a) {
			groups[len(groups)-1].size *= dims[a]
		} else {
			groups = append(groups, group{a, dims[a]})
		}
	}
	// Number the groups in operand order.
	order := make([]int, len(groups)) // operand rank of each group
	for i := range groups {
		for j := range groups {
			if groups[j].first < groups[i].first {
				order[i]++
			}
		}
	}
	mDims = make([]int, len(groups))
	mPerm = make([]int, len(groups))
	for i, g := range groups {
		mDims[order[i]] = g.size
		mPerm[i] = order[i]
	}
	return mDims, mPerm
}

// allOnesBetween reports whether operand axes a+1..b-1 all have size 1, so
// a and b are adjacent once size-1 axes are dropped.
func allOnesBetween(dims []int, a, b int) bool {
	for k := a + 1; k < b; k++ {
		if dims[k] != 1 {
			return false
		}
	}
	return true
}

// transposeBlocked writes the transpose of in (operand dimensions dims) to
// out, output axis i being operand axis permutations[i].
func transposeBlocked[T any](in, out []T, dims, permutations []int) {
	if len(in) == 0 {
		return
	}
	mDims, mPerm := simplifyTranspose(dims, permutations)
	rank := len(mDims)
	if rank <= 1 {
		copy(out, in)
		return
	}
	inStrides := make([]int, rank) // per merged operand axis
	s := 1
	for a := rank - 1; a >= 0; a-- {
		inStrides[a] = s
		s *= mDims[a]
	}
	outStrides := make([]int, rank) // per merged operand axis
	s = 1
	for i := rank - 1; i >= 0; i-- {
		outStrides[mPerm[i]] = s
		s *= mDims[mPerm[i]]
	}
	inner := rank - 1 // operand's innermost axis; stride 1 in in
	if mPerm[rank-1] == inner {
		// The innermost axis stays innermost (e.g. [1, 0, 2]): rows are
		// contiguous on both sides.
		n := mDims[inner]
		forEachOuter(mDims, inStrides, outStrides, []int{inner}, func(inOff, outOff int) {
			copy(out[outOff:outOff+n], in[inOff:inOff+n])
		})
		return
	}
	a := mPerm[rank-1] // output's innermost axis; stride 1 in out
	dA, dB := mDims[a], mDims[inner]
	inA, outB := inStrides[a], outStrides[inner]
	forEachOuter(mDims, inStrides, outStrides, []int{a, inner}, func(inOff, outOff int) {
		for i0 := 0; i0 < dA; i0 += transposeTile {
			i1 := min(i0+transposeTile, dA)
			for j0 := 0; j0 < dB; j0 += transposeTile {
				j1 := min(j0+transposeTile, dB)
				for i := i0; i < i1; i++ {
					src := in[inOff+i*inA+j0 : inOff+i*inA+j1]
					o := outOff + i + j0*outB
					for _, v := range src {
						out[o] = v
						o += outB
					}
				}
			}
		}
	})
}

// forEachOuter calls fn with the operand and output offsets of every
// combination of indices over the axes not in skip.
func forEachOuter(dims, inStrides, outStrides, skip []int, fn func(inOff, outOff int)) {
	var axes []int
	for a := range dims {
		isSkipped := false
		for _, k := range skip {
			isSkipped = isSkipped || k == a
		}
		if !isSkipped {
			axes = append(axes, a)
		}
	}
	idx := make([]int, len(axes))
	inOff, outOff := 0, 0
	for {
		fn(inOff, outOff)
		k := len(axes) - 1
		for ; k >= 0; k-- {
			a := axes[k]
			idx[k]++
			inOff += inStrides[a]
			outOff += outStrides[a]
			if idx[k] < dims[a] {
				break
			}
			inOff -= inStrides[a] * dims[a]
			outOff -= outStrides[a] * dims[a]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}
