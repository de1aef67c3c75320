package parallel

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestForEachRunsAllWithinLimit(t *testing.T) {
	for _, limit := range []int{-1, 0, 1, 3, 100} {
		var running, peak atomic.Int32
		var mu sync.Mutex
		seen := map[int]int{}
		err := ForEach(context.Background(), 20, limit, func(i int) {
			r := running.Add(1)
			for {
				p := peak.Load()
				if r <= p || peak.CompareAndSwap(p, r) {
					break
				}
			}
			time.Sleep(time.Millisecond)
			running.Add(-1)
			mu.Lock()
			seen[i]++
			mu.Unlock()
		})
		if err != nil {
			t.Fatalf("limit %d: %v", limit, err)
		}
		if len(seen) != 20 {
			t.Errorf("limit %d: %d distinct calls, want 20", limit, len(seen))
		}
		for i, k := range seen {
			if k != 1 {
				t.Errorf("limit %d: fn(%d) called %d times", limit, i, k)
			}
		}
		if want := int32(max(limit, 1)); peak.Load() > want {
			t.Errorf("limit %d: %d calls at once", limit, peak.Load())
		}
	}
	if err := ForEach(context.Background(), 0, 2, func(int) { t.Error("called") }); err != nil {
		t.Fatal(err)
	}
}

func TestForEachStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- ForEach(ctx, 10, 2, func(i int) {
			calls.Add(1)
			<-release
		})
	}()
	for calls.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		t.Fatalf("ForEach returned %v before its calls did", err)
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if calls.Load() != 2 {
		t.Errorf("%d calls, want the 2 started before the cancellation", calls.Load())
	}

	// A context already done starts nothing, even with free slots.
	if err := ForEach(ctx, 3, 3, func(int) { t.Error("called") }); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	// Cancelled after the last start: nil.
	ctx2, cancel2 := context.WithCancel(context.Background())
	if err := ForEach(ctx2, 1, 1, func(int) { cancel2() }); err != nil {
		t.Fatalf("err = %v, want nil: every call started", err)
	}
}
