package track

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/org/agentevolver/runlog"
)

// Console prints every record as one line, as the reference's console
// tracker does:
//
//	step:12 - reward/mean:0.42 - reward/success:0.5 - time/step_s:3.1
//
// with the metrics sorted by name and each value in the shortest form
// with at most 4 significant digits. A Console is safe for concurrent use.
type Console struct {
	mu   sync.Mutex
	w    io.Writer
	line []byte
}

// NewConsole returns a Console that writes to w.
func NewConsole(w io.Writer) *Console { return &Console{w: w} }

// WriteRecord prints rec with a single write.
func (c *Console) WriteRecord(rec runlog.Record) error {
	names := make([]string, 0, len(rec.Values))
	for k := range rec.Values {
		names = append(names, k)
	}
	slices.Sort(names)
	c.mu.Lock()
	defer c.mu.Unlock()
	b := append(c.line[:0], "step:"...)
	b = strconv.AppendInt(b, rec.Step, 10)
	for _, k := range names {
		b = append(b, " - "...)
		b = append(b, k...)
		b = append(b, ':')
		b = appendShort(b, rec.Values[k])
	}
	b = append(b, '\n')
	c.line = b
	if _, err := c.w.Write(b); err != nil {
		return fmt.Errorf("track: console: %w", err)
	}
	return nil
}

// appendShort appends v with at most 4 significant digits, NaN and the
// infinities by name.
func appendShort(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, v, 'g', 4, 64)
}

var _ Tracker = (*Console)(nil)
