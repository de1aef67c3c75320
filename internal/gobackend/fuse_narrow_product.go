package gobackend

import (
	"unsafe"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	"github.com/gomlx/gomlx/pkg/core/shapes"

	"github.com/org/agentevolver/internal/gemm"
)

// Narrow products (gofast change).
//
// A float32 DotGeneral whose right operand is ConvertDType of an int8 or
// bfloat16 tensor, read by nothing else, is a product by a weight stored
// narrow: a sampler's quantised or bfloat16 copy of a float32 weight.
// Executed as written, the conversion writes the whole weight in float32
// and the product reads it back, four or two times the bytes of the
// narrow weight. Fused, the product reads the narrow data and converts it
// as it goes (package gemm's Params.BInt8 and BBFloat16): for the few
// rows of a decode step by a weight stored [out, in], panel by panel in
// L1. The conversion is exact, so the result is the same bits as the
// unfused pair's.

// narrowProductFusion is the data of a fused narrow product: the
// DotGeneral's parameters; its inputs are the left operand and the narrow
// tensor.
type narrowProductFusion struct {
	params *dotGeneralNodeData
}

// fuseNarrowProducts rewrites every narrow product among the nodes
// reachable from the outputs.
func (b *Builder) fuseNarrowProducts(uses []int) {
	for _, n := range b.nodes {
		if narrowed, ok := narrowProductPattern(n, uses); ok {
			n.inputs = []*Node{n.inputs[0], narrowed}
			n.data = narrowProductFusion{params: n.data.(*dotGeneralNodeData)}
			b.backend.fused.narrowProduct.Add(1)
		}
	}
}

// narrowProductPattern reports whether d is a float32 DotGeneral whose
// right operand converts an int8 or bfloat16 tensor to float32 for it
// alone, and returns that tensor.
func narrowProductPattern(d *Node, uses []int) (*Node, bool) {
	if d.opType != backends.OpTypeDotGeneral || d.shape.DType != dtypes.Float32 || uses[d.builderIdx] == 0 {
		return nil, false
	}
	if _, ok := d.data.(*dotGeneralNodeData); !ok {
		return nil, false
	}
	conv := d.inputs[1]
	if conv.opType != backends.OpTypeConvertDType || uses[conv.builderIdx] != 1 || conv == d.inputs[0] {
		return nil, false
	}
	src := conv.inputs[0]
	if dt := src.shape.DType; dt != dtypes.Int8 && dt != dtypes.BFloat16 {
		return nil, false
	}
	return src, true
}

// execute computes the product by execDotGeneralGemm, which reads the
// narrow operand (dgRHSOperand).
func (f narrowProductFusion) execute(backend *Backend, node *Node, inputs []*Buffer, _ []bool) (*Buffer, error) {
	output := backend.getBufferForShape(node.shape)
	if err := execDotGeneralGemm(backend, inputs[0], inputs[1], f.params, output); err != nil {
		backend.putBuffer(output)
		return nil, err
	}
	return output, nil
}

// dgRHSOperand sets p's B from a DotGeneral's right operand: float32 data
// as dgStridedOperand gives it; an int8 or bfloat16 operand (a fused
// narrow product) read in place when its axes collapse to single strides
// or it is stored in panels (narrowPanels), else from a float32 copy. It
// returns the buffer to give back to the pool, if any.
func dgRHSOperand(backend *Backend, rhs *Buffer, params *dotGeneralNodeData, p *gemm.Params) (tmp *Buffer) {
	var narrow bool
	switch flat := rhs.flat.(type) {
	case []int8:
		p.BInt8, narrow = flat, true
	case []bfloat16.BFloat16:
		p.BBFloat16, narrow = unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(flat))), len(flat)), true
	}
	if narrow {
		if width, stride := narrowPanels(rhs.shape, params); width > 0 {
			// [panels, K, width] contracting K: gemm's panel layout, whose
			// output [.., panels, width] is C's [.., N].
			p.BBatchStride, p.BColStride, p.BRowStride, p.BPanelWidth, p.BPanelStride = 0, 1, width, width, stride
			return nil
		}
		if bs, cs, ks, ok := dgAxesStrides(rhs.shape, params.rhsContractingAxes, params.rhsBatchAxes); ok {
			p.BBatchStride, p.BColStride, p.BRowStride = bs, cs, ks
			return nil
		}
		p.BInt8, p.BBFloat16 = nil, nil
		wide := widenBuffer(backend, rhs)
		if copied := dgStridedRHS(backend, wide, params, p); copied != nil {
			backend.putBuffer(wide)
			return copied
		}
		return wide // p.B reads it
	}
	return dgStridedRHS(backend, rhs, params, p)
}

// dgStridedRHS sets p's float32 B from rhs by dgStridedOperand and returns
// its transposed copy, if it made one.
func dgStridedRHS(backend *Backend, rhs *Buffer, params *dotGeneralNodeData, p *gemm.Params) (tmp *Buffer) {
	// For rhs the cross axis is gemm's column axis (N) and the contracting
	// axis its row axis (K).
	p.B, p.BBatchStride, p.BColStride, p.BRowStride, tmp = dgStridedOperand(backend, rhs, params.rhsContractingAxes, params.rhsBatchAxes, params.batchSize, params.rhsCrossSize, params.contractingSize)
	return tmp
}

// widenBuffer returns a float32 copy of an int8 or bfloat16 buffer (from
// the pool; the caller returns it), converted as ConvertDType converts.
func widenBuffer(backend *Backend, narrow *Buffer) *Buffer {
	wide := backend.getBuffer(dtypes.Float32, narrow.shape.Size())
	wide.shape = narrow.shape.Clone()
	wide.shape.DType = dtypes.Float32
	convertDTypePairMap.Get(narrow.shape.DType, dtypes.Float32).(convertFnType)(narrow, wide)
	return wide
}

// narrowPanels recognises a narrow operand stored in panels of columns,
// [panels, K, width] with K contracted, no batch axes and width a
// multiple of gemm.PanelWidth (the sampler's layout, model.SamplerWeights),
// and returns the panel width and stride; 0 otherwise.
func narrowPanels(shape shapes.Shape, params *dotGeneralNodeData) (width, stride int) {
	if shape.Rank() != 3 || len(params.rhsBatchAxes) != 0 || len(params.rhsContractingAxes) != 1 || params.rhsContractingAxes[0] != 1 {
		return 0, 0
	}
	d := shape.Dimensions
	if d[2]%gemm.PanelWidth != 0 {
		return 0, 0
	}
	return d[2], d[1] * d[2]
}
