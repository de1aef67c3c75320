package model

import (
	"cmp"
	"slices"
)

// prefillCallTokens is what one more prefill pass costs, in padded token
// positions: the fixed cost of running the rows graph (a few hundred ops)
// against the cost of one token through it. Measured on the built-in
// training shape (gofast, AMD EPYC): about 450 us a pass against 20 us a
// token. For larger models a token costs more and a pass about the same,
// so the figure errs towards fewer, larger passes, today's behaviour.
const prefillCallTokens = 24

// prefillColsPerToken is how many key columns cost as much as one token
// position: attention's share of a prefilled token grows with the
// columns it sees (about 0.019 us per column against 20 us a token, same
// measurement).
const prefillColsPerToken = 1024

// prefillCost estimates, in padded token positions, one prefill pass
// over jobs: every row is padded to the longest suffix, the rows to a
// bucket, and every position attends over the block's columns.
func prefillCost(jobs []*prefillJob) int {
	b, t, cols := prefillShape(jobs)
	return prefillCallTokens + b*t + b*t*cols/prefillColsPerToken
}

// prefillShape is the padded shape of one prefill pass over jobs: rows,
// token positions per row and cache columns.
func prefillShape(jobs []*prefillJob) (b, t, cols int) {
	longest := 0
	for _, j := range jobs {
		longest = max(longest, j.suffix())
	}
	t = BucketSize(longest)
	for _, j := range jobs {
		cols = max(cols, j.reuse+t) // padding positions are written too
	}
	return BucketSize(len(jobs)), t, alignCols(cols)
}

// groupPrefillJobs splits jobs into the prefill passes that cost least in
// all (prefillCost). A pass pads every row to its longest suffix, so a
// batch of short turn suffixes with one long first prompt among them
// costs as if all were long; sorted by suffix, the best split into
// contiguous runs is found by dynamic programming (jobs are at most a
// batch, a few dozen). The split changes no result: a row's numbers do
// not depend on the rows beside it (see engine). Passes come out longest
// first, and jobs within a pass in their given order.
func groupPrefillJobs(jobs []*prefillJob) [][]*prefillJob {
	switch len(jobs) {
	case 0:
		return nil
	case 1:
		return [][]*prefillJob{jobs}
	}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(jobs[b].suffix(), jobs[a].suffix())
	})
	sorted := make([]*prefillJob, len(jobs))
	for i, o := range order {
		sorted[i] = jobs[o]
	}
	n := len(sorted)
	// best[i] is the least cost of the first i sorted jobs, from[i] where
	// its last pass starts.
	best, from := make([]int, n+1), make([]int, n+1)
	for i := 1; i <= n; i++ {
		best[i] = -1
		for j := range i {
			if c := best[j] + prefillCost(sorted[j:i]); best[i] < 0 || c < best[i] {
				best[i], from[i] = c, j
			}
		}
	}
	var groups [][]*prefillJob
	for i := n; i > 0; i = from[i] {
		idx := slices.Clone(order[from[i]:i])
		slices.Sort(idx)
		group := make([]*prefillJob, len(idx))
		for k, o := range idx {
			group[k] = jobs[o]
		}
		groups = append(groups, group)
	}
	slices.Reverse(groups)
	return groups
}
