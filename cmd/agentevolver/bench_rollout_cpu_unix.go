//go:build unix

package main

import (
	"syscall"
	"time"
)

// processCPUTime returns the CPU time (user and system) this process has
// used so far, or 0 where it cannot tell.
func processCPUTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
