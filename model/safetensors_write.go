package model

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// bfloat16Bits converts f to bfloat16 (the upper half of a float32) with
// IEEE round-to-nearest-even, the rounding PyTorch's tensor.to(bfloat16)
// uses. NaNs stay NaNs (quiet, sign kept); values beyond the largest
// bfloat16 round to infinity, as they must under nearest-even.
//
// It is written here because the libraries at hand do not round: the
// module's github.com/x448/float16 has only IEEE half precision, and GoMLX's
// bfloat16.FromFloat32 truncates (drops the low 16 bits), which biases
// every weight towards zero by up to one unit in the last place.
func bfloat16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fff_ffff > 0x7f80_0000 {
		// NaN: adding the rounding bias could carry it into infinity.
		return uint16(b>>16) | 0x0040
	}
	// Adding 0x7fff rounds up what lies above the halfway point; adding
	// the lowest kept bit as well breaks ties towards an even result.
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// exportDTypeInfo is what the safetensors writer needs to know of an
// export dtype.
type exportDTypeInfo struct {
	name      string // safetensors dtype name
	torchName string // config.json torch_dtype
	size      int    // bytes per element
}

// stEntry is one tensor of a safetensors file to write.
type stEntry struct {
	name  string
	shape []int
	size  int // elements
}

// stHeaderTensor is a tensor's entry in a safetensors header.
type stHeaderTensor struct {
	DType       string   `json:"dtype"`
	Shape       []int    `json:"shape"`
	DataOffsets [2]int64 `json:"data_offsets"`
}

// safetensorsHeader returns the 8-byte length prefix and JSON header of a
// file holding entries, in order, as dtype. The header is padded with
// spaces to a multiple of 8 bytes, as the format's reference writer does,
// so that the data of every tensor starts aligned.
func safetensorsHeader(entries []stEntry, dt exportDTypeInfo) ([]byte, error) {
	header := make(map[string]any, len(entries)+1)
	header["__metadata__"] = map[string]string{"format": "pt"}
	var offset int64
	for _, e := range entries {
		n := int64(e.size) * int64(dt.size)
		header[e.name] = stHeaderTensor{DType: dt.name, Shape: e.shape, DataOffsets: [2]int64{offset, offset + n}}
		offset += n
	}
	js, err := json.Marshal(header)
	if err != nil {
		return nil, fmt.Errorf("%w: safetensors header: %w", ErrBadCheckpoint, err)
	}
	for len(js)%8 != 0 {
		js = append(js, ' ')
	}
	if len(js) > maxHeaderBytes {
		return nil, fmt.Errorf("%w: safetensors header of %d bytes exceeds %d", ErrBadCheckpoint, len(js), maxHeaderBytes)
	}
	out := make([]byte, 8, 8+len(js))
	binary.LittleEndian.PutUint64(out, uint64(len(js)))
	return append(out, js...), nil
}

// writeSafetensors streams a safetensors file of entries to w: the header,
// then each tensor's values as read by value (a float32 tensor of the
// entry's shape), converted to dt. Only one tensor is read at a time and
// its bytes are produced in small chunks, so exporting a large model needs
// little memory beyond the model itself. ctx is checked between tensors.
func writeSafetensors(ctx context.Context, w io.Writer, entries []stEntry, dt exportDTypeInfo, value func(name string) (*tensors.Tensor, error)) error {
	header, err := safetensorsHeader(entries, dt)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.Write(header); err != nil {
		return err
	}
	chunk := make([]byte, 0, 1<<16)
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		t, err := value(e.name)
		if err != nil {
			return err
		}
		if got := t.Shape().Size(); got != e.size {
			return fmt.Errorf("%w: %s holds %d values, its shape %v needs %d", ErrTensorMismatch, e.name, got, e.shape, e.size)
		}
		var werr error
		if err := tensors.ConstFlatData(t, func(flat []float32) {
			for len(flat) > 0 && werr == nil {
				n := min(len(flat), cap(chunk)/dt.size)
				chunk = chunk[:n*dt.size]
				encodeValues(chunk, flat[:n], dt.size)
				_, werr = bw.Write(chunk)
				flat = flat[n:]
			}
		}); err != nil {
			return fmt.Errorf("%w: reading %s: %w", ErrGraph, e.name, err)
		}
		if werr != nil {
			return werr
		}
	}
	return bw.Flush()
}

// encodeValues writes values little-endian into dst: as float32 when size
// is 4, as bfloat16 (round to nearest even) when it is 2.
func encodeValues(dst []byte, values []float32, size int) {
	if size == 4 {
		for i, v := range values {
			binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(v))
		}
		return
	}
	for i, v := range values {
		binary.LittleEndian.PutUint16(dst[2*i:], bfloat16Bits(v))
	}
}
