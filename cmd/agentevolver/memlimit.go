package main

import (
	"os"
	"runtime/debug"
)

// DefaultMemoryLimit is the soft memory limit (runtime/debug.SetMemoryLimit)
// the command sets when the GOMEMLIMIT environment variable is not set.
//
// Why: the pure-Go backend allocates fresh buffers for every execution, so
// the main job's live heap stays near 1 GB while, with Go's default
// collector pacing (GOGC=100 and no limit), the process grows to 5-6 GB
// between collections. A soft limit makes the collector run before that;
// with 1 GiB the main job peaked at 1.2 GB resident with identical results,
// about 10% slower. It is soft: a job that truly needs more memory gets it
// (the collector then runs more often). Set GOMEMLIMIT to choose another
// limit, or GOMEMLIMIT=off to have none.
const DefaultMemoryLimit = 1 << 30

// applyDefaultMemoryLimit sets DefaultMemoryLimit unless the user chose a
// limit with GOMEMLIMIT (which the runtime has already applied).
func applyDefaultMemoryLimit() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	debug.SetMemoryLimit(DefaultMemoryLimit)
}
