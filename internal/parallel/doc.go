// Package parallel runs the short data-parallel jobs of the gofast backend
// (matrix products, elementwise ops, softmax rows) on a Team: the caller's
// goroutine plus helpers that stay awake between jobs, so that a job of a
// few microseconds finds them running instead of paying a core's wake-up.
//
// It is hand-written rather than taken from a worker-pool library because
// the point is the spinning hand-over: channel- or cond-based pools park
// their workers, which is exactly the wake-up cost this avoids.
//
// ForEach is the other kind of parallelism the module needs: a bounded
// fan-out of slow, independent calls (rollouts, model requests) that
// stops starting calls once a context ends; Limiter bounds such calls when
// they come from many callers (a client's requests, graders sharing one
// judge endpoint).
package parallel
