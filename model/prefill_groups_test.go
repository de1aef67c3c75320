package model

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func testPrefillJobs(lengths ...[2]int) []*prefillJob {
	jobs := make([]*prefillJob, len(lengths))
	for i, l := range lengths {
		jobs[i] = &prefillJob{prompt: make([]int, l[0]+l[1]), reuse: l[1]}
	}
	return jobs
}

func totalPrefillCost(groups [][]*prefillJob) int {
	c := 0
	for _, g := range groups {
		c += prefillCost(g)
	}
	return c
}

// TestGroupPrefillJobsSplitsLongFromShort checks the case that motivated
// the split: many short turn suffixes and one long first prompt.
func TestGroupPrefillJobsSplitsLongFromShort(t *testing.T) {
	var lengths [][2]int
	for range 24 {
		lengths = append(lengths, [2]int{61, 240})
	}
	lengths = append(lengths, [2]int{111, 0})
	jobs := testPrefillJobs(lengths...)
	groups := groupPrefillJobs(jobs)
	if len(groups) != 2 {
		t.Fatalf("got %d passes, want 2 (the long prompt alone)", len(groups))
	}
	if len(groups[0]) != 1 || groups[0][0] != jobs[24] {
		t.Errorf("first pass has %d jobs, want the long prompt alone", len(groups[0]))
	}
	if one := prefillCost(jobs); totalPrefillCost(groups) >= one {
		t.Errorf("split costs %d, one pass %d", totalPrefillCost(groups), one)
	}
}

// TestGroupPrefillJobsPartitions checks on random batches that every job
// lands in exactly one pass, in its given order within the pass, that the
// split never costs more than one pass, and that it is optimal among
// contiguous splits of the sorted jobs (checked by brute force).
func TestGroupPrefillJobsPartitions(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := 1 + rng.IntN(9)
		var lengths [][2]int
		for range n {
			lengths = append(lengths, [2]int{1 + rng.IntN(200), rng.IntN(300)})
		}
		jobs := testPrefillJobs(lengths...)
		groups := groupPrefillJobs(jobs)
		seen := map[*prefillJob]bool{}
		for _, g := range groups {
			if len(g) == 0 {
				t.Fatalf("trial %d: empty pass", trial)
			}
			last := -1
			for _, j := range g {
				i := slices.Index(jobs, j)
				if seen[j] || i <= last {
					t.Fatalf("trial %d: job %d repeated or out of order", trial, i)
				}
				seen[j], last = true, i
			}
		}
		if len(seen) != n {
			t.Fatalf("trial %d: %d of %d jobs placed", trial, len(seen), n)
		}
		got := totalPrefillCost(groups)
		if one := prefillCost(jobs); got > one {
			t.Errorf("trial %d: split costs %d, one pass %d", trial, got, one)
		}
		sorted := slices.Clone(jobs)
		slices.SortStableFunc(sorted, func(a, b *prefillJob) int { return b.suffix() - a.suffix() })
		if want := bestContiguousCost(sorted); got != want {
			t.Errorf("trial %d: split costs %d, the best contiguous split %d", trial, got, want)
		}
	}
}

// bestContiguousCost tries every split of jobs into contiguous runs.
func bestContiguousCost(jobs []*prefillJob) int {
	best := -1
	for mask := 0; mask < 1<<(len(jobs)-1); mask++ {
		c, start := 0, 0
		for i := 1; i <= len(jobs); i++ {
			if i == len(jobs) || mask&(1<<(i-1)) != 0 {
				c += prefillCost(jobs[start:i])
				start = i
			}
		}
		if best < 0 || c < best {
			best = c
		}
	}
	return best
}

func TestGroupPrefillJobsEmptyAndSingle(t *testing.T) {
	if g := groupPrefillJobs(nil); len(g) != 0 {
		t.Errorf("no jobs: %v", g)
	}
	jobs := testPrefillJobs([2]int{5, 0})
	if g := groupPrefillJobs(jobs); len(g) != 1 || len(g[0]) != 1 {
		t.Errorf("one job: %v", g)
	}
}
