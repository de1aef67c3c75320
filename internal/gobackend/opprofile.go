package gobackend

import (
	"cmp"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// Op profile (gofast change).
//
// With the opprofile option the executor times every op it runs and adds
// the time to a table keyed by the op, what it was fused into and its
// output shape, so that where a program's time goes is a flag rather than
// a patch. The timing is wall time around the op's executor: in parallel
// execution ops that overlap each count their own. Time outside the ops
// (scheduling, buffer bookkeeping) is not in the table.

// opProfile accumulates the time of executed ops; the zero value is empty.
type opProfile struct {
	mu      sync.Mutex
	entries map[opProfileKey]*opProfileEntry
}

// opProfileKey identifies one row of the profile.
type opProfileKey struct {
	op    backends.OpType
	fused string // the fused op's type name; empty for an op as built
	shape string // the inputs' and the output's shapes (opProfileShapes)
}

// opProfileEntry is one row: how many times the op ran and for how long.
type opProfileEntry struct {
	calls int
	total time.Duration
}

// OpProfileRow is one row of a Backend's op profile: ops of one type, fused
// into the same kind of node, with the same output shape.
type OpProfileRow struct {
	// Op is the op type, such as "Mul" or "DotGeneral".
	Op string
	// Fused names the fusion the node was rewritten into (fuse.go), such as
	// "softmaxFusion"; empty for an op executed as built.
	Fused string
	// Shape is the inputs' shapes and the output's, as "[2 3] [3 4] -> [2 4]"
	// (dtype once, when all are of one).
	Shape string
	// Calls is how many times such an op ran.
	Calls int
	// Total is their summed wall time.
	Total time.Duration
}

// add records that node ran for d.
func (p *opProfile) add(node *Node, d time.Duration) {
	key := opProfileKey{op: node.opType, shape: opProfileShapes(node)}
	if f, ok := node.data.(fusedOp); ok {
		key.fused = fusionName(f)
	} else if f, ok := node.data.(multiFusedOp); ok {
		key.fused = fusionName(f)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.entries == nil {
		p.entries = make(map[opProfileKey]*opProfileEntry)
	}
	e := p.entries[key]
	if e == nil {
		e = &opProfileEntry{}
		p.entries[key] = e
	}
	e.calls++
	e.total += d
}

// fusionName is the name of a fused node's data type.
func fusionName(f any) string {
	t := reflect.TypeOf(f)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// OpProfile returns the rows of the op profile, the most time first, and
// empties it. It returns nil unless the backend was created with the
// opprofile option.
func (b *Backend) OpProfile() []OpProfileRow {
	p := b.opProfile
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	rows := make([]OpProfileRow, 0, len(p.entries))
	for k, e := range p.entries {
		rows = append(rows, OpProfileRow{Op: k.op.String(), Fused: k.fused, Shape: k.shape, Calls: e.calls, Total: e.total})
	}
	p.entries = nil
	slices.SortFunc(rows, func(a, b OpProfileRow) int {
		if c := cmp.Compare(b.Total, a.Total); c != 0 {
			return c
		}
		return strings.Compare(a.Op+a.Fused+a.Shape, b.Op+b.Fused+b.Shape)
	})
	return rows
}

// WriteOpProfile writes rows as a table: the share of the rows' total time,
// the time, the calls and what ran, at most limit rows (all when limit <=
// 0) and a last line with the total.
func WriteOpProfile(w io.Writer, rows []OpProfileRow, limit int) error {
	var total time.Duration
	for _, r := range rows {
		total += r.Total
	}
	if limit <= 0 || limit > len(rows) {
		limit = len(rows)
	}
	for _, r := range rows[:limit] {
		what := r.Op
		if r.Fused != "" {
			what += "(" + r.Fused + ")"
		}
		share := 0.0
		if total > 0 {
			share = 100 * float64(r.Total) / float64(total)
		}
		if _, err := fmt.Fprintf(w, "%5.1f%% %12v %6d  %s %s\n", share, r.Total.Round(time.Microsecond), r.Calls, what, r.Shape); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "total %v in %d kinds of op\n", total.Round(time.Microsecond), len(rows))
	return err
}

// opProfileShapes is the profile's description of node's inputs and output.
func opProfileShapes(node *Node) string {
	var b strings.Builder
	dtype := node.shape.DType
	if node.IsMultiOutputs() {
		dtype = node.multiOutputsShapes[0].DType
	}
	one := true
	for _, in := range node.inputs {
		one = one && in.shape.DType == dtype
	}
	write := func(s shapes.Shape) {
		if !one {
			b.WriteString(s.DType.String())
		}
		fmt.Fprint(&b, s.Dimensions)
	}
	if one {
		b.WriteString(dtype.String() + " ")
	}
	for i, in := range node.inputs {
		if i > 0 {
			b.WriteByte(' ')
		}
		write(in.shape)
	}
	b.WriteString(" -> ")
	if node.IsMultiOutputs() {
		for i, out := range node.multiOutputsShapes {
			if i > 0 {
				b.WriteByte(' ')
			}
			write(out)
		}
		return b.String()
	}
	write(node.shape)
	return b.String()
}
