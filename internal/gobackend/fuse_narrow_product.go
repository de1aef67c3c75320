package gobackend

import (
	"unsafe"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/pkg/errors"

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

// execute computes the product with the narrow operand read in place when
// its axes collapse to single strides, else from a float32 copy in the
// [batch, cross, contracting] layout.
func (f narrowProductFusion) execute(backend *Backend, node *Node, inputs []*Buffer, _ []bool) (*Buffer, error) {
	lhs, rhs := inputs[0], inputs[1]
	params := f.params
	output := backend.getBufferForShape(node.shape)
	bs, cs, ks, ok := dgAxesStrides(rhs.shape, params.rhsContractingAxes, params.rhsBatchAxes)
	panelWidth, panelStride := narrowPanels(rhs.shape, params)
	if panelWidth > 0 {
		// [panels, K, width] contracting K: gemm's panel layout, whose
		// output [.., panels, width] is C's [.., N].
		bs, cs, ks, ok = 0, 1, panelWidth, true
	}
	if !ok {
		wide := widenBuffer(backend, rhs)
		err := execDotGeneralGemm(backend, lhs, wide, params, output)
		backend.putBuffer(wide)
		if err != nil {
			backend.putBuffer(output)
			return nil, err
		}
		return output, nil
	}
	p := gemm.Params{
		Batch: params.batchSize, M: params.lhsCrossSize, N: params.rhsCrossSize, K: params.contractingSize,
		C:          output.flat.([]float32),
		MaxWorkers: gemmWorkers(backend),
		Team:       &backend.team,
	}
	var lhsTmp *Buffer
	p.A, p.ABatchStride, p.ARowStride, p.AColStride, lhsTmp = dgStridedOperand(backend, lhs, params.lhsContractingAxes, params.lhsBatchAxes, params.batchSize, params.lhsCrossSize, params.contractingSize)
	p.BBatchStride, p.BColStride, p.BRowStride = bs, cs, ks
	p.BPanelWidth, p.BPanelStride = panelWidth, panelStride
	switch flat := rhs.flat.(type) {
	case []int8:
		p.BInt8 = flat
	case []bfloat16.BFloat16:
		p.BBFloat16 = unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(flat))), len(flat))
	}
	err := gemm.Multiply(&p)
	if lhsTmp != nil {
		backend.putBuffer(lhsTmp)
	}
	if err != nil {
		backend.putBuffer(output)
		return nil, errors.Wrapf(err, "DotGeneral(%s, ConvertDType(%s)) -> %s", lhs.shape, rhs.shape, node.shape)
	}
	return output, nil
}

// widenBuffer returns a float32 copy of an int8 or bfloat16 buffer (from
// the pool; the caller returns it).
func widenBuffer(backend *Backend, narrow *Buffer) *Buffer {
	wide := backend.getBuffer(dtypes.Float32, narrow.shape.Size())
	wide.shape = narrow.shape.Clone()
	wide.shape.DType = dtypes.Float32
	out := wide.flat.([]float32)
	switch flat := narrow.flat.(type) {
	case []int8:
		for i, v := range flat {
			out[i] = float32(v)
		}
	case []bfloat16.BFloat16:
		for i, v := range flat {
			out[i] = v.Float32()
		}
	}
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
