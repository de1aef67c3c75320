package main

import "testing"

func TestMemoryLimitFor(t *testing.T) {
	for _, tt := range []struct {
		live uint64
		want int64
	}{
		{0, DefaultMemoryLimit},
		{512 << 20, DefaultMemoryLimit},
		{1 << 30, DefaultMemoryLimit},
		{2 << 30, 3 << 30},   // 3 GiB for a 2 GiB live heap
		{10 << 30, 15 << 30}, // a large job keeps its headroom
	} {
		if got := memoryLimitFor(tt.live); got != tt.want {
			t.Errorf("memoryLimitFor(%d) = %d, want %d", tt.live, got, tt.want)
		}
	}
}

func TestDefaultGCSettings(t *testing.T) {
	env := func(vars ...string) func(string) (string, bool) {
		return func(name string) (string, bool) {
			for _, v := range vars {
				if v == name {
					return "set", true
				}
			}
			return "", false
		}
	}
	for _, tt := range []struct {
		vars      []string
		limit     bool
		gcPercent int
	}{
		{nil, true, DefaultGCPercent},
		{[]string{"GOGC"}, true, 0},
		{[]string{"GOMEMLIMIT"}, false, 0},
		{[]string{"GOMEMLIMIT", "GOGC"}, false, 0},
	} {
		limit, gc := defaultGCSettings(env(tt.vars...))
		if limit != tt.limit || gc != tt.gcPercent {
			t.Errorf("%v set: limit %v, GOGC %d; want %v, %d", tt.vars, limit, gc, tt.limit, tt.gcPercent)
		}
	}
}
