package parallel_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/org/agentevolver/internal/parallel"
)

// TestLimiterBounds checks that no more than n holders run at once, that
// a waiter gives up when its context ends, and that nil bounds nothing.
func TestLimiterBounds(t *testing.T) {
	l := parallel.NewLimiter(2)
	var running, peak atomic.Int32
	done := make(chan struct{})
	for range 6 {
		go func() {
			defer func() { done <- struct{}{} }()
			if err := l.Acquire(context.Background()); err != nil {
				t.Error(err)
				return
			}
			defer l.Release()
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(5 * time.Millisecond)
			running.Add(-1)
		}()
	}
	for range 6 {
		<-done
	}
	if p := peak.Load(); p > 2 || p == 0 {
		t.Errorf("peak %d holders, want 1 or 2", p)
	}

	full := parallel.NewLimiter(1)
	if err := full.Acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := full.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting on a full limiter: %v, want the deadline", err)
	}
	full.Release()
	if err := full.Acquire(ctx); err == nil {
		t.Error("an ended context took a slot")
	}

	var none *parallel.Limiter = parallel.NewLimiter(0)
	if none != nil {
		t.Fatal("NewLimiter(0) bounds something")
	}
	for range 3 {
		if err := none.Acquire(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	none.Release()
}
