package taskgen

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Bounds on what a Parquet task file may ask a reader to allocate. A page
// header is a few dozen bytes of thrift that claims sizes and counts the
// decoder then allocates for: a 1 KiB file could otherwise claim
// gigabytes (the fuzzer found such files within seconds).
//
// A page holds whole values, so one page must fit the largest value
// (MaxParquetValueBytes) and what parquet-go buffers beside it (a page is
// cut after 256 KiB). A page claiming more than smallPageBytes once
// decoded must store at least 1/maxPageRatio of that, so that a small file
// cannot claim large pages: a 64 MiB page needs 256 KiB of file.
const (
	maxPageHeaderBytes = 64 << 10
	maxPageBytes       = MaxParquetValueBytes + 1<<20 // one page, compressed or not
	smallPageBytes     = 16 << 20
	maxPageRatio       = 256
	maxPageValues      = 1 << 20
	maxDecodedBytes    = 1 << 30 // all pages of the file, uncompressed
)

// checkFooter checks the file's frame before parquet-go reads it: the
// magic bytes at both ends and a footer length that fits in the file.
// parquet-go allocates the footer length it reads before comparing it with
// the file size: "PAR1PAR1" made it allocate 789 MB.
func checkFooter(r io.ReaderAt, size int64) error {
	const magic = "PAR1"
	if size < 12 {
		return fmt.Errorf("%d bytes is too short for a parquet file", size)
	}
	var head [4]byte
	var tail [8]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return err
	}
	if _, err := r.ReadAt(tail[:], size-8); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if string(head[:]) != magic || string(tail[4:]) != magic {
		return errors.New("not a parquet file (no PAR1 magic bytes at both ends)")
	}
	footer := int64(binary.LittleEndian.Uint32(tail[:4]))
	if footer > size-12 {
		return fmt.Errorf("footer of %d bytes in a file of %d", footer, size)
	}
	return nil
}

// checkPages walks every page header of every column chunk of a Parquet
// file before the library decodes anything, and rejects a file whose
// chunks lie outside it, whose pages overrun their chunk, or whose claimed
// sizes and value counts exceed the bounds above. parquet-go trusts these
// fields (it only rejects negative sizes).
func checkPages(r io.ReaderAt, size int64, meta *format.FileMetaData) error {
	var decoded int64
	for g, rg := range meta.RowGroups {
		if rg.NumRows < 0 || rg.NumRows > MaxTasksPerFile {
			return fmt.Errorf("row group %d: %d rows", g, rg.NumRows)
		}
		for c, cc := range rg.Columns {
			if cc.FilePath != "" {
				return fmt.Errorf("row group %d column %d: data in another file (%q)", g, c, cc.FilePath)
			}
			m := cc.MetaData
			start := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
				start = m.DictionaryPageOffset
			}
			end := start + m.TotalCompressedSize
			if start < 0 || m.TotalCompressedSize < 0 || end > size || end < start {
				return fmt.Errorf("row group %d column %d: chunk [%d, %d) outside the file of %d bytes", g, c, start, end, size)
			}
			if err := checkChunkPages(r, start, end, rg.NumRows, &decoded); err != nil {
				return fmt.Errorf("row group %d column %d: %w", g, c, err)
			}
		}
	}
	return nil
}

// checkChunkPages checks the pages of the chunk at [pos, end) of a row
// group of rows rows. A task file's columns are flat, one value per row, so
// no page may hold more values than its row group has rows.
func checkChunkPages(r io.ReaderAt, pos, end, rows int64, decoded *int64) error {
	limit := min(rows, maxPageValues)
	buf := make([]byte, min(maxPageHeaderBytes, end-pos))
	for pos < end {
		n := min(int64(len(buf)), end-pos)
		got, err := r.ReadAt(buf[:n], pos)
		if err != nil && !(errors.Is(err, io.EOF) && int64(got) == n) {
			return fmt.Errorf("page header at %d: %w", pos, err)
		}
		var h format.PageHeader
		proto := thrift.CompactProtocol{}
		br := proto.NewReaderFromBytes(buf[:n])
		if err := thrift.NewDecoder(br).Decode(&h); err != nil {
			if n == maxPageHeaderBytes && errors.Is(err, io.ErrUnexpectedEOF) {
				// Older versions of WriteParquet wrote page statistics
				// that repeat a page's largest value in its header.
				return fmt.Errorf("page header at %d is larger than %d bytes (page statistics holding a large value? "+
					"write the file again with this version): %w", pos, maxPageHeaderBytes, err)
			}
			return fmt.Errorf("page header at %d: %w", pos, err)
		}
		headerLen := int64(br.BytesRead())
		switch {
		case h.CompressedPageSize < 0 || int64(h.CompressedPageSize) > end-pos-headerLen:
			return fmt.Errorf("page at %d: %d compressed bytes overrun the chunk", pos, h.CompressedPageSize)
		case h.CompressedPageSize > maxPageBytes || h.UncompressedPageSize < 0 || h.UncompressedPageSize > maxPageBytes:
			return fmt.Errorf("page at %d: sizes %d/%d beyond the limit of %d bytes", pos, h.CompressedPageSize, h.UncompressedPageSize, maxPageBytes)
		case h.UncompressedPageSize > smallPageBytes && int64(h.UncompressedPageSize) > maxPageRatio*int64(h.CompressedPageSize):
			return fmt.Errorf("page at %d: %d bytes decoded from %d stored", pos, h.UncompressedPageSize, h.CompressedPageSize)
		}
		for _, v := range []int32{h.DataPageHeader.V.NumValues, h.DictionaryPageHeader.V.NumValues,
			h.DataPageHeaderV2.V.NumValues, h.DataPageHeaderV2.V.NumNulls, h.DataPageHeaderV2.V.NumRows} {
			if v < 0 || int64(v) > limit {
				return fmt.Errorf("page at %d: %d values, limit %d", pos, v, limit)
			}
		}
		if *decoded += int64(h.UncompressedPageSize); *decoded > maxDecodedBytes {
			return fmt.Errorf("more than %d bytes of pages once decoded", maxDecodedBytes)
		}
		pos += headerLen + int64(h.CompressedPageSize)
	}
	return nil
}
