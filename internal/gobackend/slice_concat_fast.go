package gobackend

import "unsafe"

// Slice and Concatenate as runs (gofast change). Upstream's Slice walks the
// output element by element with a multi-axis odometer, and its Concatenate
// calls copy once per block even when a block is one element: a decode step
// of the built-in policy slices its rows block by block and concatenates
// scatter indices along a last axis of 4, 30-40 such ops a step at 2-17 us
// each. Both are data movement, so results are the same bits.

// sliceRunsMin is the shortest contiguous run worth a copy call; slices
// with shorter runs (a strided last axis, say) keep the element walk.
const sliceRunsMin = 4

// sliceRuns copies operand[starts : : strides] into out as contiguous runs:
// the innermost axes the slice takes whole, plus the next one if its
// stride is 1, are one run; the outer axes are walked. It reports false,
// copying nothing, when a run would be shorter than sliceRunsMin.
func sliceRuns[T any](out, operand []T, operandDims, outDims, starts, strides []int) bool {
	rank := len(outDims)
	run, axis := 1, rank-1
	for axis >= 0 && outDims[axis] == operandDims[axis] {
		run *= outDims[axis] // taken whole: start 0, and stride 1 unless the axis has size 1
		axis--
	}
	if axis >= 0 && strides[axis] == 1 {
		run *= outDims[axis]
		axis--
	}
	if len(out) == 0 {
		return true
	}
	if run < sliceRunsMin && run < len(out) {
		return false
	}
	operandStrides := calculateStrides(operandDims)
	offset := 0
	for a, s := range starts {
		offset += s * operandStrides[a]
	}
	outer := axis + 1 // axes [0, outer) are walked
	steps, index := make([]int, outer), make([]int, outer)
	for a := range outer {
		steps[a] = operandStrides[a] * strides[a]
	}
	for o := 0; o < len(out); o += run {
		copy(out[o:o+run], operand[offset:offset+run])
		for a := outer - 1; a >= 0; a-- {
			index[a]++
			offset += steps[a]
			if index[a] < outDims[a] {
				break
			}
			offset -= outDims[a] * steps[a]
			index[a] = 0
		}
	}
	return true
}

// concatLoopMaxBytes is the largest block Concatenate copies with a loop
// instead of a copy call (whose overhead dominates below it).
const concatLoopMaxBytes = 64

// copyBlocks copies blocks consecutive blocks of blockBytes from src into
// dst, the first at dstOffset and each next one dstStride bytes further.
// All sizes are in bytes and multiples of elemSize.
func copyBlocks(dst, src []byte, blocks, blockBytes, dstOffset, dstStride, elemSize int) {
	if blockBytes <= concatLoopMaxBytes {
		switch elemSize {
		case 4:
			copyWordBlocks(asWords[uint32](dst), asWords[uint32](src), blocks, blockBytes/4, dstOffset/4, dstStride/4)
			return
		case 8:
			copyWordBlocks(asWords[uint64](dst), asWords[uint64](src), blocks, blockBytes/8, dstOffset/8, dstStride/8)
			return
		case 2:
			copyWordBlocks(asWords[uint16](dst), asWords[uint16](src), blocks, blockBytes/2, dstOffset/2, dstStride/2)
			return
		case 1:
			copyWordBlocks(dst, src, blocks, blockBytes, dstOffset, dstStride)
			return
		}
	}
	for b := range blocks {
		d := dstOffset + b*dstStride
		copy(dst[d:d+blockBytes], src[b*blockBytes:(b+1)*blockBytes])
	}
}

// copyWordBlocks is copyBlocks in elements of one word type.
func copyWordBlocks[W uint8 | uint16 | uint32 | uint64](dst, src []W, blocks, block, dstOffset, dstStride int) {
	src = src[:blocks*block]
	dst = dst[dstOffset:]
	if block == 1 { // a concatenation of [..., 1] operands along the last axis
		for b, v := range src {
			dst[b*dstStride] = v
		}
		return
	}
	for b := range blocks {
		d := dst[b*dstStride : b*dstStride+block]
		for i, v := range src[b*block : (b+1)*block] {
			d[i] = v
		}
	}
}

// asWords views a buffer's bytes as words; buffers are allocated as typed
// slices of their dtype, so their bytes are aligned for it.
func asWords[W uint16 | uint32 | uint64](b []byte) []W {
	var w W
	size := int(unsafe.Sizeof(w))
	if len(b) < size {
		return nil
	}
	return unsafe.Slice((*W)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)
}
