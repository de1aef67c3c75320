package gobackend

import (
	"runtime"
	"testing"
	"weak"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/stretchr/testify/require"
)

func TestBufferSizeClass(t *testing.T) {
	prev := 0
	for n := range 1 << 14 {
		c := bufferSizeClass(n)
		require.GreaterOrEqual(t, c, n)
		require.GreaterOrEqual(t, c, prev, "classes grow with the length")
		require.Equal(t, c, bufferSizeClass(c), "a class is its own class (n=%d)", n)
		if n > exactSizeClassesUpTo {
			require.LessOrEqual(t, 4*c, 5*n, "n=%d rounded to %d: more than 25%% extra", n, c)
		} else {
			require.Equal(t, n, c)
		}
		prev = c
	}
	// Powers of two and 1.5 times them are classes of their own.
	for _, n := range []int{32, 48, 64, 96, 3 * 1024, 1 << 20, 3 << 20} {
		require.Equal(t, n, bufferSizeClass(n))
	}
	require.Equal(t, 20, bufferSizeClass(17))
	require.Equal(t, 112, bufferSizeClass(100))
	require.Equal(t, 1280, bufferSizeClass(1025))
}

// newTestBackend returns a backend of its own, with empty pools.
func newTestBackend(t *testing.T) *Backend {
	bb, err := New("")
	require.NoError(t, err)
	t.Cleanup(bb.Finalize)
	return bb.(*Backend)
}

func TestBufferPoolReuse(t *testing.T) {
	b := newTestBackend(t)

	buf := b.getBuffer(dtypes.Float32, 100)
	require.Len(t, buf.flat.([]float32), 100)
	require.Equal(t, 112, cap(buf.flat.([]float32)))
	require.Equal(t, 100, buf.shape.Size())
	require.True(t, buf.valid)
	b.putBuffer(buf)
	require.False(t, buf.valid)

	// A length of the same class gets the same buffer, re-sliced.
	got := b.getBuffer(dtypes.Float32, 110)
	require.Same(t, buf, got)
	require.Len(t, got.flat.([]float32), 110)
	require.Equal(t, shapes.Make(dtypes.Float32, 110), got.shape)
	require.True(t, got.valid)

	// Other classes or dtypes do not.
	other := b.getBuffer(dtypes.Float32, 120)
	require.NotSame(t, got, other)
	require.Equal(t, 128, cap(other.flat.([]float32)))
	b.putBuffer(got)
	require.NotSame(t, got, b.getBuffer(dtypes.Int32, 110))
	require.Same(t, got, b.getBuffer(dtypes.Float32, 100))
}

func TestPutBufferOutsidePool(t *testing.T) {
	b := newTestBackend(t)

	// A backing array whose capacity is not a size class never enters a pool.
	foreign := &Buffer{shape: shapes.Make(dtypes.Float32, 100), flat: make([]float32, 100), valid: true}
	b.putBuffer(foreign)
	require.False(t, foreign.valid)
	require.NotSame(t, foreign, b.getBuffer(dtypes.Float32, 100))

	// Nor does one whose shape does not match its data.
	mismatched := &Buffer{shape: shapes.Make(dtypes.Int32, 112), flat: make([]float32, 112), valid: true}
	b.putBuffer(mismatched)
	require.NotSame(t, mismatched, b.getBuffer(dtypes.Int32, 112))
}

func TestBufferPoolDropsCollectedEntries(t *testing.T) {
	var p bufferPool
	// Zero weak pointers stand for buffers the GC has collected.
	p.idle = make([]weak.Pointer[Buffer], 3, 4)
	kept := &Buffer{}
	p.put(kept) // fills the capacity
	p.put(&Buffer{})
	require.Len(t, p.idle, 2, "collected entries are dropped before the idle list grows")
	p.idle = append(p.idle[:1], weak.Pointer[Buffer]{}, p.idle[1])
	require.NotSame(t, kept, p.get())
	require.Same(t, kept, p.get(), "get skips collected entries")
	require.Nil(t, p.get())
	require.Empty(t, p.idle)
	runtime.KeepAlive(kept)
}

// BenchmarkExecuteVaryingLengths executes a small attention-like graph
// (matmuls, softmax, reductions) on a sequence length that changes at every
// execution, as a training job's padded batches do. Besides the bytes
// allocated per execution it reports live-MB: the live heap right after a
// garbage collection at the end, which is what the GC's heap goal (twice
// that) is based on. Upstream's exact-length sync.Pools keep the idle
// buffers of every recent length live; the weak, size-classed pools keep
// none, and share buffers between lengths of a class.
func BenchmarkExecuteVaryingLengths(b *testing.B) {
	const width = 128
	exec, err := graph.NewExec(backend, func(x, w *graph.Node) *graph.Node {
		h := graph.Tanh(graph.Dot(x, w))
		scores := graph.Softmax(graph.MatMul(h, graph.Transpose(h, 0, 1)), -1)
		return graph.ReduceAllSum(graph.Mul(graph.MatMul(scores, h), h))
	})
	if err != nil {
		b.Fatal(err)
	}
	exec.SetMaxCache(-1)
	w := tensors.FromShape(shapes.Make(dtypes.Float32, width, width))
	var xs []*tensors.Tensor
	for n := 200; n < 400; n += 7 {
		xs = append(xs, tensors.FromShape(shapes.Make(dtypes.Float32, n, width)))
	}
	run := func(x *tensors.Tensor) {
		out, err := exec.Exec(x, w)
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range out {
			_ = t.FinalizeAll()
		}
	}
	for _, x := range xs { // compile every shape
		run(x)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		run(xs[i%len(xs)])
	}
	b.StopTimer()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-MB")
}
