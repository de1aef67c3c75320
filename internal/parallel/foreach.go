package parallel

import (
	"context"
	"sync"
)

// ForEach calls fn(i) for every i in [0, n), in order of i, each on a
// goroutine of its own, with at most limit calls running at once (limit
// below 1 means 1). Before each call it waits for a free slot or for ctx
// to end; once ctx has ended it starts no more calls, even when a slot is
// free. It returns after every started call has returned: ctx's error
// when some i were never started, else nil. fn learns of cancellation
// through the ctx it closes over; a panic in fn is not recovered.
//
// It is the fan-out of slow, independent calls (rollouts, model
// requests), not of the short compute jobs Team runs. errgroup's SetLimit
// would serve but for the wait for a slot, which does not watch a context.
func ForEach(ctx context.Context, n, limit int, fn func(i int)) error {
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	defer wg.Wait()
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if err := ctx.Err(); err != nil { // also when both were ready
			return err
		}
		wg.Go(func() {
			defer func() { <-sem }()
			fn(i)
		})
	}
	return nil
}
