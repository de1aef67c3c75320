package track

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// TFRecord framing: every record is
//
//	uint64 length, little endian
//	uint32 masked CRC-32C of the 8 length bytes
//	length bytes of payload
//	uint32 masked CRC-32C of the payload
//
// where a CRC is masked as ((crc >> 15) | (crc << 17)) + 0xa282ead8
// (TensorFlow's crc32c.h: a CRC of data that holds CRCs is weak).

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const crcMaskDelta = 0xa282ead8

func maskedCRC(b []byte) uint32 {
	c := crc32.Checksum(b, castagnoli)
	return (c>>15 | c<<17) + crcMaskDelta
}

// appendRecord appends payload framed as one TFRecord.
func appendRecord(b, payload []byte) []byte {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(payload)))
	b = append(b, n[:]...)
	b = binary.LittleEndian.AppendUint32(b, maskedCRC(n[:]))
	b = append(b, payload...)
	return binary.LittleEndian.AppendUint32(b, maskedCRC(payload))
}

// Field numbers of TensorBoard's protos (tensorboard/compat/proto:
// event.proto, summary.proto).
const (
	eventWallTime    = 1 // double
	eventStep        = 2 // int64
	eventFileVersion = 3 // string
	eventSummary     = 5 // Summary
	eventSessionLog  = 7 // SessionLog

	summaryValue = 1 // repeated Summary.Value

	valueTag         = 1 // string
	valueSimpleValue = 2 // float

	sessionLogStatus = 1 // SessionLog.SessionStatus
)

// SessionStart is SessionLog.START, the status of the session-log event
// that [TensorBoard] writes when a run resumes.
const SessionStart = 1

// FileVersion is the file_version of the first event of every event file.
const FileVersion = "brain.Event:2"

// appendEventHeader appends wall_time and step.
func appendEventHeader(b []byte, wall time.Time, step int64) []byte {
	b = protowire.AppendTag(b, eventWallTime, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, math.Float64bits(float64(wall.UnixNano())/1e9))
	if step != 0 {
		b = protowire.AppendTag(b, eventStep, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(step))
	}
	return b
}

// appendSummaryEvent appends an Event at wall and step whose summary holds
// scalars.
func appendSummaryEvent(b []byte, wall time.Time, step int64, scalars []Scalar) []byte {
	var sum []byte
	for _, s := range scalars {
		sum = appendScalar(sum, s.Tag, s.Value)
	}
	b = appendEventHeader(b, wall, step)
	b = protowire.AppendTag(b, eventSummary, protowire.BytesType)
	return protowire.AppendBytes(b, sum)
}

// appendScalar appends one Summary.Value holding a simple_value.
func appendScalar(b []byte, tag string, v float32) []byte {
	var val []byte
	val = protowire.AppendTag(val, valueTag, protowire.BytesType)
	val = protowire.AppendString(val, tag)
	val = protowire.AppendTag(val, valueSimpleValue, protowire.Fixed32Type)
	val = protowire.AppendFixed32(val, math.Float32bits(v))
	b = protowire.AppendTag(b, summaryValue, protowire.BytesType)
	return protowire.AppendBytes(b, val)
}

// Event is one event of an event file, as [ReadEvents] decodes it: the
// fields [TensorBoard] writes.
type Event struct {
	// WallTime is when the event was written.
	WallTime time.Time
	// Step is the training step.
	Step int64
	// FileVersion is set on a file's first event.
	FileVersion string
	// SessionStatus is the status of a session-log event (SessionStart),
	// 0 otherwise.
	SessionStatus int
	// Scalars are the summary's simple values in file order.
	Scalars []Scalar
}

// Scalar is one tagged value of a summary.
type Scalar struct {
	Tag   string
	Value float32
}

// MaxEventBytes bounds one record [ReadEvents] accepts.
const MaxEventBytes = 16 << 20

// ErrCorrupt reports an event file that is not a sequence of well-formed
// TFRecords holding Event protos.
var ErrCorrupt = errors.New("track: corrupt event file")

// ReadEventFile reads the event file at path. See [ReadEvents].
func ReadEventFile(path string) ([]Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("track: %w", err)
	}
	defer f.Close()
	return ReadEvents(f)
}

// ReadEvents decodes an event file: every record's framing and both
// checksums are verified and its Event decoded (fields it does not know
// are skipped). A record cut short at the end of r, as a writer still
// running or a crash leaves, ends the events without an error; anything
// else malformed is an error wrapping ErrCorrupt that names the record.
func ReadEvents(r io.Reader) ([]Event, error) {
	br := bufio.NewReader(r)
	var out []Event
	for i := 0; ; i++ {
		var head [12]byte
		if _, err := io.ReadFull(br, head[:]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return out, nil
			}
			return out, fmt.Errorf("track: read event file: %w", err)
		}
		if maskedCRC(head[:8]) != binary.LittleEndian.Uint32(head[8:]) {
			return out, fmt.Errorf("%w: record %d: length checksum mismatch", ErrCorrupt, i)
		}
		n := binary.LittleEndian.Uint64(head[:8])
		if n > MaxEventBytes {
			return out, fmt.Errorf("%w: record %d: %d bytes (limit %d)", ErrCorrupt, i, n, MaxEventBytes)
		}
		body := make([]byte, n+4)
		if _, err := io.ReadFull(br, body); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return out, nil
			}
			return out, fmt.Errorf("track: read event file: %w", err)
		}
		payload := body[:n]
		if maskedCRC(payload) != binary.LittleEndian.Uint32(body[n:]) {
			return out, fmt.Errorf("%w: record %d: payload checksum mismatch", ErrCorrupt, i)
		}
		ev, err := decodeEvent(payload)
		if err != nil {
			return out, fmt.Errorf("%w: record %d: %w", ErrCorrupt, i, err)
		}
		out = append(out, ev)
	}
}

// decodeEvent decodes the Event fields this package writes.
func decodeEvent(b []byte) (Event, error) {
	var ev Event
	err := eachField(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		switch {
		case num == eventWallTime && typ == protowire.Fixed64Type:
			sec := math.Float64frombits(x)
			if math.IsNaN(sec) || math.IsInf(sec, 0) || math.Abs(sec) > 1e11 {
				return fmt.Errorf("wall time %v out of range", sec)
			}
			ev.WallTime = time.Unix(0, int64(sec*1e9)).UTC()
		case num == eventStep && typ == protowire.VarintType:
			ev.Step = int64(x)
		case num == eventFileVersion && typ == protowire.BytesType:
			ev.FileVersion = string(v)
		case num == eventSessionLog && typ == protowire.BytesType:
			return eachField(v, func(num protowire.Number, typ protowire.Type, _ []byte, x uint64) error {
				if num == sessionLogStatus && typ == protowire.VarintType {
					ev.SessionStatus = int(int32(x))
				}
				return nil
			})
		case num == eventSummary && typ == protowire.BytesType:
			return eachField(v, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
				if num != summaryValue || typ != protowire.BytesType {
					return nil
				}
				var s Scalar
				simple := false
				err := eachField(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
					switch {
					case num == valueTag && typ == protowire.BytesType:
						s.Tag = string(v)
					case num == valueSimpleValue && typ == protowire.Fixed32Type:
						s.Value, simple = math.Float32frombits(uint32(x)), true
					}
					return nil
				})
				if err == nil && simple {
					ev.Scalars = append(ev.Scalars, s)
				}
				return err
			})
		}
		return nil
	})
	return ev, err
}

// eachField calls fn for every field of the message b: v holds a
// length-delimited field's bytes, x a numeric field's value.
func eachField(b []byte, fn func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var (
			v []byte
			x uint64
		)
		switch typ {
		case protowire.VarintType:
			x, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var x32 uint32
			x32, n = protowire.ConsumeFixed32(b)
			x = uint64(x32)
		case protowire.Fixed64Type:
			x, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := fn(num, typ, v, x); err != nil {
			return err
		}
	}
	return nil
}
