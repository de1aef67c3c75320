package parallel

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// withProcs runs the test with at least n Ps, so that helpers can run
// beside the caller even on a one-core machine.
func withProcs(t *testing.T, n int) {
	t.Helper()
	if old := runtime.GOMAXPROCS(0); old < n {
		runtime.GOMAXPROCS(n)
		t.Cleanup(func() { runtime.GOMAXPROCS(old) })
	}
}

// TestSplitCoversEachPieceOnce checks that Split hands out every index of
// [0, n) exactly once, in pieces of the asked size, for any team size and
// worker count.
func TestSplitCoversEachPieceOnce(t *testing.T) {
	withProcs(t, 4)
	for _, size := range []int{0, 1, 2, 4} {
		team := &Team{Size: size}
		for _, tc := range []struct{ n, piece, workers int }{
			{0, 3, 2}, {1, 3, 2}, {7, 3, 2}, {9, 3, 4}, {100, 1, 8}, {1000, 64, 3}, {5, 0, 2}, {64, 64, 4},
		} {
			seen := make([]atomic.Int32, tc.n)
			team.Split(tc.n, tc.piece, tc.workers, func(lo, hi int) {
				if lo < 0 || hi > tc.n || lo >= hi {
					t.Errorf("size %d %+v: piece [%d, %d)", size, tc, lo, hi)
					return
				}
				if piece := max(tc.piece, 1); lo%piece != 0 || (hi-lo != piece && hi != tc.n) {
					t.Errorf("size %d %+v: piece [%d, %d) is not a whole piece", size, tc, lo, hi)
				}
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			})
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("size %d %+v: index %d done %d times", size, tc, i, c)
				}
			}
		}
	}
}

// TestZeroTeamRunsOnCaller checks that the zero Team calls fn once, on the
// caller's goroutine, and starts no helper.
func TestZeroTeamRunsOnCaller(t *testing.T) {
	var team Team
	calls := 0 // not atomic: the race detector flags a second goroutine
	team.Run(8, func() { calls++ })
	if calls != 1 {
		t.Fatalf("fn called %d times, want 1", calls)
	}
	if n := team.helpers.Load(); n != 0 {
		t.Fatalf("%d helpers started by the zero Team", n)
	}
}

// TestRunUsesHelpers checks that a Run whose work outlasts a helper's
// start-up gets that helper's call, and that Run returns only after it.
func TestRunUsesHelpers(t *testing.T) {
	withProcs(t, 2)
	team := &Team{Size: 2}
	var calls, returned atomic.Int32
	team.Run(2, func() {
		calls.Add(1)
		// Wait for the other call, so both are known to have run.
		deadline := time.Now().Add(5 * time.Second)
		for calls.Load() < 2 && time.Now().Before(deadline) {
			runtime.Gosched()
		}
		time.Sleep(time.Millisecond)
		returned.Add(1)
	})
	if calls.Load() != 2 {
		t.Fatalf("fn called %d times, want 2 (a helper never joined)", calls.Load())
	}
	if returned.Load() != 2 {
		t.Fatalf("Run returned while %d calls were still running", 2-returned.Load())
	}
}

// TestConcurrentCallers runs many Splits on one Team at once, as the
// backend's concurrent executions do, and checks every result.
func TestConcurrentCallers(t *testing.T) {
	withProcs(t, 4)
	team := &Team{Size: 3, Spin: 50 * time.Microsecond}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for round := range 200 {
				n := 1 + (g*131+round*17)%500
				out := make([]int, n)
				team.Split(n, 1+round%7, 3, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						out[i] = i * i
					}
				})
				for i, v := range out {
					if v != i*i {
						t.Errorf("caller %d round %d: out[%d] = %d", g, round, i, v)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestHelperPanicReachesCaller checks that a panic on a helper is
// re-raised by Run on the caller's goroutine, with the helper's value.
func TestHelperPanicReachesCaller(t *testing.T) {
	withProcs(t, 2)
	team := &Team{Size: 2}
	var helperRan atomic.Bool
	got := func() (r any) {
		defer func() { r = recover() }()
		team.Run(2, func() {
			if strings.Contains(string(debug.Stack()), "(*Team).help") {
				helperRan.Store(true)
				panic("boom on a helper")
			}
			deadline := time.Now().Add(5 * time.Second)
			for !helperRan.Load() && time.Now().Before(deadline) {
				runtime.Gosched()
			}
		})
		return nil
	}()
	if !helperRan.Load() {
		t.Fatal("no helper joined the job")
	}
	if s, _ := got.(string); !strings.Contains(s, "boom on a helper") {
		t.Fatalf("Run recovered %v, want the helper's panic", got)
	}
	// The Team still works after the panic.
	var n atomic.Int32
	team.Split(10, 1, 2, func(lo, hi int) { n.Add(int32(hi - lo)) })
	if n.Load() != 10 {
		t.Fatalf("after a panic, Split did %d of 10 indices", n.Load())
	}
}

// TestIdleHelpersExit checks that helpers exit after Spin without a job,
// so an idle Team holds no goroutines, and that a later Run starts them
// again.
func TestIdleHelpersExit(t *testing.T) {
	withProcs(t, 2)
	team := &Team{Size: 2, Spin: time.Millisecond}
	for range 2 {
		team.Split(1000, 10, 2, func(lo, hi int) {})
		deadline := time.Now().Add(5 * time.Second)
		for team.helpers.Load() != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%d helpers still alive 5 s after the last job", team.helpers.Load())
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// TestNoSpin checks that a NoSpin Team still splits jobs correctly and
// that its helpers are gone soon after each one.
func TestNoSpin(t *testing.T) {
	withProcs(t, 2)
	team := &Team{Size: 2, Spin: NoSpin}
	for round := range 50 {
		out := make([]int, 100+round)
		team.Split(len(out), 7, 2, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = i + 1
			}
		})
		for i, v := range out {
			if v != i+1 {
				t.Fatalf("round %d: out[%d] = %d", round, i, v)
			}
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for team.helpers.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d NoSpin helpers still alive after 5 s", team.helpers.Load())
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// ExampleTeam_Split squares a slice in pieces of 4 elements on up to two
// goroutines; the result does not depend on which goroutine did a piece.
func ExampleTeam_Split() {
	team := &Team{Size: 2}
	xs := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	team.Split(len(xs), 4, 2, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xs[i] *= xs[i]
		}
	})
	fmt.Println(xs)
	// Output: [1 4 9 16 25 36 49 64 81 100]
}

// BenchmarkShortJob compares handing a job of about 10 µs to a Team with
// starting goroutines for it, the cost Team exists to avoid.
func BenchmarkShortJob(b *testing.B) {
	const n = 1 << 14
	xs := make([]float32, n)
	work := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xs[i] = xs[i]*0.999 + 1
		}
	}
	workers := runtime.GOMAXPROCS(0)
	b.Run("caller", func(b *testing.B) {
		for b.Loop() {
			work(0, n)
		}
	})
	b.Run("goroutines", func(b *testing.B) {
		chunk := (n + workers - 1) / workers
		for b.Loop() {
			var wg sync.WaitGroup
			for lo := chunk; lo < n; lo += chunk {
				wg.Go(func() { work(lo, min(lo+chunk, n)) })
			}
			work(0, chunk)
			wg.Wait()
		}
	})
	b.Run("team", func(b *testing.B) {
		team := &Team{Size: workers}
		for b.Loop() {
			team.Split(n, (n+workers-1)/workers, workers, work)
		}
	})
}
