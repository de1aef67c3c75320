//go:build !unix

package main

import "time"

// processCPUTime returns 0: the process's CPU time is not known here.
func processCPUTime() time.Duration { return 0 }
