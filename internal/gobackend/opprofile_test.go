package gobackend

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/graph"
)

// TestOpProfile runs a graph twice with the opprofile option and checks the
// rows: each op executed once a run, keyed by its shapes, the costliest
// first, emptied by reading; without the option there is no profile.
func TestOpProfile(t *testing.T) {
	for _, mode := range []string{"ops_sequential", "ops_parallel"} {
		be := newBackend(t, mode+",opprofile,nofusion")
		fn := func(x, y *graph.Node) *graph.Node { return graph.Exp(graph.Mul(graph.Add(x, y), x)) }
		x, y := hostTensor{[]float32{1, 2, 3, 4, 5, 6}, []int{2, 3}}, hostTensor{[]float32{6, 5, 4, 3, 2, 1}, []int{2, 3}}
		runGraph(t, be, fn, x, y)
		runGraph(t, be, fn, x, y)
		rows := be.OpProfile()
		calls := map[string]int{}
		for i, r := range rows {
			calls[r.Op] += r.Calls
			if r.Op == "Add" && r.Shape != "Float32 [2 3] [2 3] -> [2 3]" {
				t.Errorf("%s: Add's shapes %q", mode, r.Shape)
			}
			if i > 0 && r.Total > rows[i-1].Total {
				t.Errorf("%s: row %d (%v) costs more than row %d (%v)", mode, i, r.Total, i-1, rows[i-1].Total)
			}
		}
		for _, op := range []string{"Add", "Mul", "Exp"} {
			if calls[op] != 2 {
				t.Errorf("%s: %s ran %d times, want 2 (rows %+v)", mode, op, calls[op], rows)
			}
		}
		var buf bytes.Buffer
		if err := WriteOpProfile(&buf, rows, 2); err != nil {
			t.Fatal(err)
		}
		if lines := strings.Split(strings.TrimSpace(buf.String()), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[2], "total ") {
			t.Errorf("%s: table of 2 rows:\n%s", mode, buf.String())
		}
		if again := be.OpProfile(); len(again) != 0 {
			t.Errorf("%s: %d rows after reading the profile, want none", mode, len(again))
		}
	}
	if rows := newBackend(t, "ops_sequential").OpProfile(); rows != nil {
		t.Errorf("profile without the opprofile option: %v", rows)
	}
}

// TestOpProfileFused checks that a fused node is named by its fusion.
func TestOpProfileFused(t *testing.T) {
	be := newBackend(t, "ops_sequential,opprofile")
	runGraph(t, be, func(x, y *graph.Node) *graph.Node { return graph.Mul(graph.Exp(x), y) },
		hostTensor{[]float32{1, 2, 3}, []int{3}}, hostTensor{[]float32{3, 2, 1}, []int{3}})
	for _, r := range be.OpProfile() {
		if r.Op == "Mul" && r.Fused != "elementwiseFusion" {
			t.Errorf("fused Mul listed as %q", r.Fused)
		}
		if r.Op == "Exp" {
			t.Errorf("Exp ran on its own inside a fused region")
		}
	}
}
