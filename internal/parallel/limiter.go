package parallel

import "context"

// Limiter bounds the calls in flight among all its users (a client's
// requests, the graders that share one judge endpoint). A nil *Limiter
// bounds nothing.
type Limiter struct {
	slots chan struct{}
}

// NewLimiter returns a Limiter of n slots; n below 1 returns nil, which
// bounds nothing.
func NewLimiter(n int) *Limiter {
	if n < 1 {
		return nil
	}
	return &Limiter{slots: make(chan struct{}, n)}
}

// Acquire takes a slot, waiting until one is free or ctx ends; then it
// returns ctx's error and holds nothing. A ctx already ended never takes a
// slot. Every nil return must be paired with one Release.
func (l *Limiter) Acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l == nil {
		return nil
	}
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Release gives back a slot Acquire took.
func (l *Limiter) Release() {
	if l != nil {
		<-l.slots
	}
}
