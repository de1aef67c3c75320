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
