// Package graphrun runs a GoMLX graph once on host tensors, turning the
// panics GoMLX reports errors with into errors: the one place the trainer's
// and attribution's per-batch graphs are compiled and executed.
package graphrun
