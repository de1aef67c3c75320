package gobackend

import "github.com/pkg/errors"

// panicf replaces upstream's github.com/gomlx/gomlx/internal/exceptions.Panicf,
// which is not importable from outside the GoMLX module. It panics with an
// error carrying a stack trace, as upstream does; the graph executor recovers
// such panics and returns them as errors.
func panicf(format string, args ...any) {
	panic(errors.Errorf(format, args...))
}
