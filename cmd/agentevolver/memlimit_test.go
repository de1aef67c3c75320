package main

import "testing"

func TestMemoryLimitFor(t *testing.T) {
	for _, tt := range []struct {
		live uint64
		want int64
	}{
		{0, DefaultMemoryLimit},
		{512 << 20, DefaultMemoryLimit},
		{1 << 30, 3 << 29},   // 1.5 GiB for a 1 GiB live heap
		{10 << 30, 15 << 30}, // a large job keeps its headroom
	} {
		if got := memoryLimitFor(tt.live); got != tt.want {
			t.Errorf("memoryLimitFor(%d) = %d, want %d", tt.live, got, tt.want)
		}
	}
}
